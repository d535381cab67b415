"""A parameter upstream renamed, carried into a copy before the merge
(runtime/port/renames.py), and parentheses a formatter dropped once the renamed line fit
(runtime/port/layoutmerge.py), through ``merge_copy`` and real ``git merge-file``. The shape is
vLLM 0.28.0's ``gumbel_sample`` (``output_processed_logits_col`` became
``logits_cache_col``) and the NPU copy of it, written for this test."""

from __future__ import annotations

from patchkeeper.port.merge import Labels
from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.port.copies import merge_copy
from patchkeeper.runtime.port.renames import rename, renamed_parameters

OLD = """def sample(
    logits: Tensor,
    pos: Tensor,
    output_col: Tensor | None = None,
    use_fp64: bool = False,
) -> Tensor:
    pos = pos.contiguous()
    if output_col is not None:
        output_col = output_col.contiguous()
    num_tokens, vocab_size = logits.shape
    local_max = logits.new_empty(num_tokens, dtype=torch.float32)
    per_token_col = (
        output_col is not None
        and output_col.dim() > 0
    )
    _sample_kernel[(num_tokens, 4)](
        local_max,
        output_col,
        PER_TOKEN=per_token_col,
    )
    return local_max
"""

NEW = """def sample(
    logits: Tensor,
    pos: Tensor,
    cache_col: Tensor | None = None,
    use_fp64: bool = False,
) -> Tensor:
    pos = pos.contiguous()
    if cache_col is not None:
        cache_col = cache_col.contiguous()
    num_tokens, vocab_size = logits.shape
    local_max = logits.new_empty(num_tokens, dtype=torch.float32)
    per_token_col = cache_col is not None and cache_col.dim() > 0
    _sample_kernel[(num_tokens, 4)](
        local_max,
        cache_col,
        PER_TOKEN=per_token_col,
        BLOCK=1024,
    )
    return local_max
"""

# The copy replaced the contiguity block and the buffer allocation, and kept the rest.
MINE = """def sample(
    logits: Tensor,
    pos: Tensor,
    output_col: Tensor | None = None,
    use_fp64: bool = False,
) -> Tensor:
    if use_fp64:
        raise NotImplementedError("FP64 is not supported on NPU.")
    num_tokens, vocab_size = logits.shape
    local_max = torch.empty(num_tokens, dtype=torch.float32, device=logits.device)
    per_token_col = output_col is not None and output_col.dim() > 0
    _sample_kernel[(num_tokens, 4)](
        local_max,
        output_col,
        PER_TOKEN=per_token_col,
    )
    return local_max
"""

MERGED = """def sample(
    logits: Tensor,
    pos: Tensor,
    cache_col: Tensor | None = None,
    use_fp64: bool = False,
) -> Tensor:
    if use_fp64:
        raise NotImplementedError("FP64 is not supported on NPU.")
    num_tokens, vocab_size = logits.shape
    local_max = torch.empty(num_tokens, dtype=torch.float32, device=logits.device)
    per_token_col = cache_col is not None and cache_col.dim() > 0
    _sample_kernel[(num_tokens, 4)](
        local_max,
        cache_col,
        PER_TOKEN=per_token_col,
        BLOCK=1024,
    )
    return local_max
"""

LABELS = Labels("upstream 0.28.0", "upstream 0.27.1", "plugin")


def _code(text: str) -> Code:
    return Code("f.py", 1, tuple(text.splitlines(True)))


def test_the_rename_is_carried_into_the_copy_and_the_merge_is_clean() -> None:
    merged, conflicts = merge_copy(_code(OLD), _code(NEW), MINE.splitlines(True), LABELS)
    # Without the rename, the copy's edited lines naming output_col conflict with the
    # rename; without parentheses as layout, upstream's reflowed per_token_col does.
    assert (merged, conflicts) == (MERGED, 0)


def test_renamed_parameters_needs_the_same_position_annotation_and_default() -> None:
    assert renamed_parameters(OLD, NEW, MINE) == {"output_col": "cache_col"}
    # Another default: a new parameter, not a rename.
    other = NEW.replace("cache_col: Tensor | None = None", "cache_col: Tensor | None = 0")
    assert renamed_parameters(OLD, other, MINE) == {}
    # The copy names its parameter otherwise: nothing of it to rename.
    assert renamed_parameters(OLD, NEW, MINE.replace("output_col", "col")) == {}
    # The old name still used by the new definition: no rename.
    kept = NEW.replace("    return local_max\n", "    return local_max, output_col\n")
    assert renamed_parameters(OLD, kept, MINE) == {}


def test_rename_leaves_attributes_strings_and_comments() -> None:
    text = 'y = output_col + self.output_col  # output_col\nz = "output_col"\n'
    assert rename(text, {"output_col": "cache_col"}) == (
        'y = cache_col + self.output_col  # output_col\nz = "output_col"\n'
    )
