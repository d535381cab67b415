"""Settling the conflicts of a copy's merge that differ only in layout (runtime/port/layoutmerge.py),
through ``merge_copy`` and real ``git merge-file``; the copy is formatted at 120 columns as
vllm-ascend formats its copies, upstream at 88."""

from __future__ import annotations

from patchkeeper.port.merge import Labels
from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.port.copies import merge_copy
from patchkeeper.runtime.port.layoutmerge import settle, words

OLD = """def forward(self, positions, hidden_states, residual):
    for layer in self.layers:
        if idx in self.aux_hidden_state_layers:
            aux_hidden_states.append(hidden_states + residual)
        hidden_states, residual = layer(
            positions, hidden_states, residual, llama_4_scaling
        )
    hidden_states, _ = self.norm(hidden_states, residual)
    return hidden_states
"""

NEW = """def forward(self, positions, hidden_states, residual):
    for layer in self.layers:
        if idx in self.aux_hidden_state_layers:
            aux_hidden_state = hidden_states + residual
            if aux_hidden_state.shape[0] != positions.shape[0]:
                aux_hidden_state = tensor_model_parallel_all_gather(
                    aux_hidden_state, 0
                )
            aux_hidden_states.append(aux_hidden_state)
        hidden_states, residual = layer(
            positions, hidden_states, residual, llama_4_scaling
        )
    hidden_states, _ = self.norm(hidden_states, residual)
    return hidden_states
"""

# The maintainers took the upstream change from upstream's main branch before the release,
# formatted at 120 columns, and changed the norm call themselves.
MINE = """def _patched_forward(self, positions, hidden_states, residual):
    for layer in self.layers:
        if idx in self.aux_hidden_state_layers:
            aux_hidden_state = hidden_states + residual
            if aux_hidden_state.shape[0] != positions.shape[0]:
                aux_hidden_state = tensor_model_parallel_all_gather(aux_hidden_state, 0)
            aux_hidden_states.append(aux_hidden_state)
        hidden_states, residual = layer(positions, hidden_states, residual, llama_4_scaling)
    hidden_states, _ = self.norm(hidden_states, residual.contiguous())
    return hidden_states
"""

LABELS = Labels("upstream 0.25.1", "upstream 0.24.0", "plugin")


def test_the_copy_that_already_has_the_upstream_change_merges_to_itself() -> None:
    merged, conflicts = merge_copy(
        Code("old.py", 1, tuple(OLD.splitlines(True))),
        Code("new.py", 1, tuple(NEW.splitlines(True))),
        MINE.splitlines(True),
        LABELS,
    )
    assert (merged, conflicts) == (MINE, 0)


def test_a_region_the_plugin_only_reformatted_takes_upstream_and_others_stay() -> None:
    text = (
        "x = 1\n"
        "<<<<<<< new\n"
        "y = f(\n"
        "    a, b, c\n"
        ")\n"
        "||||||| old\n"
        "y = f(\n"
        "    a, b\n"
        ")\n"
        "=======\n"
        "y = f(a, b,)\n"
        ">>>>>>> plugin\n"
        "<<<<<<< new\n"
        "z = 2\n"
        "||||||| old\n"
        "z = 1\n"
        "=======\n"
        "z = 1  # the device needs 1\n"
        ">>>>>>> plugin\n"
    )
    settled, left = settle(text, ("new", "old", "plugin"))
    assert settled == (
        "x = 1\n"
        "y = f(\n"
        "    a, b, c\n"
        ")\n"
        "<<<<<<< new\n"
        "z = 2\n"
        "||||||| old\n"
        "z = 1\n"
        "=======\n"
        "z = 1  # the device needs 1\n"
        ">>>>>>> plugin\n"
    )
    assert left == 1


def test_words_leave_out_layout_but_keep_comments() -> None:
    assert words(["f(\n", "    a,\n", ")\n"]) == words(["f(a)\n"]) == ("f", "(", "a", ")")
    assert words(["x = 1  #  why\n"]) == ("x", "=", "1", "# why")
    assert words(['s = """open\n']) is None
