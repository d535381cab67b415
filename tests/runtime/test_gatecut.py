"""Cutting version gates that change between two releases (runtime/port/gatecut.py), on texts in
the shape of a vllm-ascend patch file and copy."""

from __future__ import annotations

from patchkeeper.runtime.port.gatecut import Cut, cut_gates

IMPORT_GATE = """from vllm.model_executor.layers.mamba.gdn import GatedDeltaNetAttention

from plugin.ops.index import prepare_chunk_indices_310
from plugin.utils import is_rc_device, vllm_version_is

if vllm_version_is("0.25.1"):
    from vllm.model_executor.layers.fla.ops import index as fla_index  # type: ignore
else:
    # moved to third_party in 0.26
    from vllm.third_party.fla.ops import index as fla_index

fla_index.prepare_chunk_indices = prepare_chunk_indices_310
"""

IMPORT_GATE_CUT = """from vllm.model_executor.layers.mamba.gdn import GatedDeltaNetAttention

from plugin.ops.index import prepare_chunk_indices_310
from plugin.utils import is_rc_device

# moved to third_party in 0.26
from vllm.third_party.fla.ops import index as fla_index

fla_index.prepare_chunk_indices = prepare_chunk_indices_310
"""


def test_an_import_gate_keeps_the_new_module_and_drops_the_helper() -> None:
    text, cuts = cut_gates(IMPORT_GATE, "0.25.1", "0.26.0")
    assert text == IMPORT_GATE_CUT
    assert cuts == (Cut(6, 'vllm_version_is("0.25.1")', "else"),)


COPY = """class Model:
    def forward(self, positions, hidden_states, residual):
        for layer in self.layers:
            hidden_states = layer(positions, hidden_states)
        if not vllm_version_is("0.24.0"):
            if hidden_states.shape[0] != positions.shape[0]:
                hidden_states = gather(hidden_states)
        hidden_size = (
            self.config.hidden_size
            if vllm_version_is("0.24.0")
            else self.hidden_size
        )
        if vllm_version_is("0.24.0"):
            residual = residual.float()
        elif vllm_version_is("0.25.1"):
            residual = residual.half()
        else:
            residual = residual.contiguous()
        if vllm_version_is("0.23.0"):
            residual = None
        if is_310p():
            hidden_states = hidden_states.float()
        elif vllm_version_is("0.24.0"):
            hidden_states = hidden_states.half()
        else:
            hidden_states = hidden_states.bfloat16()
        return hidden_states.split([hidden_size, hidden_size])
"""

COPY_CUT = """class Model:
    def forward(self, positions, hidden_states, residual):
        for layer in self.layers:
            hidden_states = layer(positions, hidden_states)
        if hidden_states.shape[0] != positions.shape[0]:
            hidden_states = gather(hidden_states)
        hidden_size = (
            self.hidden_size
        )
        residual = residual.half()
        if vllm_version_is("0.23.0"):
            residual = None
        if is_310p():
            hidden_states = hidden_states.float()
        else:
            hidden_states = hidden_states.bfloat16()
        return hidden_states.split([hidden_size, hidden_size])
"""


def test_statements_expressions_and_elif_chains_in_a_copy() -> None:
    """At 0.24.0 -> 0.25.1: the ``elif`` on 0.25.1 (live from 0.25.1 on) becomes the chain's
    ``else`` and the dead ``if`` on 0.24.0 above it leaves that block; a dead ``elif``
    under a test that is not a gate goes alone; the 0.23.0 gate, dead at both, stays."""
    text, cuts = cut_gates(COPY, "0.24.0", "0.25.1")
    assert text == COPY_CUT
    assert cuts == (
        Cut(5, 'not vllm_version_is("0.24.0")', "if"),
        Cut(9, 'vllm_version_is("0.24.0")', "orelse"),
        Cut(13, 'vllm_version_is("0.24.0")', "else"),
        Cut(15, 'vllm_version_is("0.25.1")', "if"),
        Cut(23, 'vllm_version_is("0.24.0")', "else"),
    )


def test_the_only_statement_of_a_block_becomes_pass_and_one_liners_stay() -> None:
    text = (
        "def setup():\n"
        '    if vllm_version_is("0.25.1"):\n'
        "        patch_it()\n"
        "\n"
        'if vllm_version_is("0.25.1"): patch_other()\n'
    )
    cut, cuts = cut_gates(text, "0.25.1", "0.26.0")
    assert cut == 'def setup():\n    pass\n\nif vllm_version_is("0.25.1"): patch_other()\n'
    assert cuts == (Cut(2, 'vllm_version_is("0.25.1")', "nothing"),)


def test_a_text_that_does_not_parse_or_has_no_changing_gate_is_kept() -> None:
    broken = 'if vllm_version_is("0.25.1"):\n    x = (\n'
    assert cut_gates(broken, "0.25.1", "0.26.0") == (broken, ())
    later = 'if vllm_version_is("0.27.0"):\n    x = 1\n'
    assert cut_gates(later, "0.25.1", "0.26.0") == (later, ())


PARTIAL = """def _allocate_kv_cache(kv_cache_config, is_dsv4_model, use_hybrid_layout):
    if is_dsv4_model and not vllm_version_is("0.28.0"):
        backing = allocate(kv_cache_config)
    if vllm_version_is("0.28.0") and "pcp" in kv_cache_config.unsupported:
        kv_cache_config.unsupported.remove("pcp")
    stride = 2 if (use_hybrid_layout or vllm_version_is("0.28.0")) else 1
    if not (vllm_version_is("0.28.0") or is_dsv4_model):
        stride = 4
    return backing, stride
"""

PARTIAL_CUT = """def _allocate_kv_cache(kv_cache_config, is_dsv4_model, use_hybrid_layout):
    if is_dsv4_model:
        backing = allocate(kv_cache_config)
    stride = 2 if (use_hybrid_layout) else 1
    if not is_dsv4_model:
        stride = 4
    return backing, stride
"""


def test_a_gate_inside_and_or_reduces_the_test_to_its_other_operands() -> None:
    text, cuts = cut_gates(PARTIAL, "0.28.0", "0.29.0")
    assert text == PARTIAL_CUT
    assert cuts == (
        Cut(2, 'is_dsv4_model and not vllm_version_is("0.28.0")', "test: is_dsv4_model"),
        Cut(4, 'vllm_version_is("0.28.0") and "pcp" in kv_cache_config.unsupported', "nothing"),
        Cut(6, 'use_hybrid_layout or vllm_version_is("0.28.0")', "test: use_hybrid_layout"),
        Cut(7, 'not (vllm_version_is("0.28.0") or is_dsv4_model)', "test: not is_dsv4_model"),
    )


EARLY_RETURN = """class NpuManager(Manager):
    def find_hit(self, hashes, max_length, drop_last=False):
        if not vllm_version_is("0.25.1"):
            # the new release finds the hit itself
            return super().find_hit(hashes, max_length, drop_last=drop_last)

        blocks = []
        for i in range(max_length - 1, -1, -1):
            if vllm_version_is("0.25.1"):
                blocks.append(hashes[i])
            else:
                blocks.append(None)
        return blocks

    def allocate(self, n):
        if vllm_version_is("0.25.1"):
            raise NotImplementedError(n)
        else:
            n = n + 1
        return n


if not vllm_version_is("0.25.1"):
    raise ImportError("the module is for 0.25.1 only")
READY = True
"""

EARLY_RETURN_CUT = """class NpuManager(Manager):
    def find_hit(self, hashes, max_length, drop_last=False):
        # the new release finds the hit itself
        return super().find_hit(hashes, max_length, drop_last=drop_last)

    def allocate(self, n):
        n = n + 1
        return n


raise ImportError("the module is for 0.25.1 only")
READY = True
"""


def test_the_statements_after_a_kept_return_are_deleted_as_unreachable() -> None:
    text, cuts = cut_gates(EARLY_RETURN, "0.25.1", "0.26.0")
    assert text == EARLY_RETURN_CUT
    # The gate inside the deleted statements is gone with them (no cut reported there);
    # at module level the statements after a kept raise stay (a module is not cut short).
    assert cuts == (
        Cut(3, 'not vllm_version_is("0.25.1")', "if", 8),
        Cut(16, 'vllm_version_is("0.25.1")', "else"),
        Cut(23, 'not vllm_version_is("0.25.1")', "if"),
    )


def test_a_kept_raise_in_a_function_ends_its_block_too() -> None:
    source = (
        "def load(path):\n"
        '    if vllm_version_is("0.26.0"):\n'
        "        raise RuntimeError(path)\n"
        "    data = read(path)\n"
        "    return data\n"
    )
    text, cuts = cut_gates(source, "0.25.1", "0.26.0")
    assert text == "def load(path):\n    raise RuntimeError(path)\n"
    assert cuts == (Cut(2, 'vllm_version_is("0.26.0")', "if", 2),)


def test_a_kept_else_that_returns_ends_its_block_and_a_trailing_if_deletes_nothing() -> None:
    source = (
        "def pick(xs):\n"
        "    for x in xs:\n"
        '        if vllm_version_is("0.25.1"):\n'
        "            x = x + 1\n"
        "        else:\n"
        "            return x\n"
        "        log(x)\n"
        '    if not vllm_version_is("0.25.1"):\n'
        "        return None\n"
    )
    text, cuts = cut_gates(source, "0.25.1", "0.26.0")
    assert text == "def pick(xs):\n    for x in xs:\n        return x\n    return None\n"
    assert cuts == (
        Cut(3, 'vllm_version_is("0.25.1")', "else", 1),
        Cut(8, 'not vllm_version_is("0.25.1")', "if"),
    )
