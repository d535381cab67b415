"""The runtime truth draft (``benchmarks/runtime_truth_draft.py``) reading a replacement that
is defined outside the patch file, on small written plugin trees (no network, no cache)."""

from __future__ import annotations

import ast
from pathlib import Path

from benchmark_scripts import load

draft = load("runtime_truth_draft")

PATCH = """\
from vllm.v1.worker.gpu import structured_outputs

from vllm_ascend.ops.bitmask import _apply_bitmask_kernel
from vllm_ascend.ops.sample import sample as ascend_sample

structured_outputs._apply_bitmask_kernel = _apply_bitmask_kernel
"""

BITMASK = """\
def _apply_bitmask_impl(logits_ptr, bitmask_ptr, n):
    pos = 0
    logits_idx = pos


class _Launcher:
    def __call__(self, *args):
        return _apply_bitmask_impl(*args)


_apply_bitmask_kernel = _Launcher()
"""

SAMPLE = """\
from vllm_ascend.utils import vllm_version_is

if vllm_version_is("0.28.0"):

    def sample(logits, temperature):
        return logits

else:

    def sample(logits, temperature, is_drafting):
        return logits
"""

GDN = """\
def _get_state_dtype(self):
    return (1, 2)


class Attention310:
    get_state_dtype = _get_state_dtype
"""


def plugin(root: Path, bitmask: str = BITMASK) -> Path:
    """A plugin tree: a patch file importing its replacements from two other modules."""
    files = {
        "vllm_ascend/patch/worker/patch_triton.py": PATCH,
        "vllm_ascend/ops/bitmask.py": bitmask,
        "vllm_ascend/ops/sample.py": SAMPLE,
        "vllm_ascend/ops/gdn.py": GDN,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def names(node: ast.AST | None) -> list[str]:
    """The top-level statements of a found definition: their names, or ``if`` / ``=``."""
    assert node is not None
    body = node.body if isinstance(node, ast.Module) else [node]
    return [getattr(stmt, "name", type(stmt).__name__) for stmt in body]


def test_an_imported_launcher_object_is_read_with_its_class_and_kernel(tmp_path: Path) -> None:
    root = plugin(tmp_path)
    found = draft.replacement_node(
        root, "vllm_ascend.patch.worker.patch_triton:_apply_bitmask_kernel"
    )
    assert names(found) == ["_apply_bitmask_impl", "_Launcher", "Assign"]


def test_an_imported_alias_in_a_version_branch_is_the_whole_branch(tmp_path: Path) -> None:
    root = plugin(tmp_path)
    found = draft.replacement_node(root, "vllm_ascend.patch.worker.patch_triton:ascend_sample")
    assert names(found) == ["If"]


def test_a_class_attribute_naming_a_function_is_that_function(tmp_path: Path) -> None:
    root = plugin(tmp_path)
    found = draft.replacement_node(root, "vllm_ascend.ops.gdn:Attention310.get_state_dtype")
    assert names(found) == ["_get_state_dtype"]


def test_a_kernel_changed_with_upstream_is_read_as_following_it(tmp_path: Path) -> None:
    old = plugin(tmp_path / "old")
    new = plugin(tmp_path / "new", BITMASK.replace("logits_idx = pos", "logits_idx += pos"))
    replacement = "vllm_ascend.patch.worker.patch_triton:_apply_bitmask_kernel"
    before = draft.replacement_node(old, replacement)
    after = draft.replacement_node(new, replacement)
    old_up = ast.parse("def kernel(pos):\n    logits_idx = pos\n").body[0]
    new_up = ast.parse("def kernel(pos):\n    logits_idx += pos\n").body[0]
    assert draft.follows_upstream(before, after, old_up, new_up) == "lines: logits_idx += pos"
    own_up = [ast.parse(f"def kernel(pos):\n    return {n}\n").body[0] for n in (0, 1)]
    assert draft.follows_upstream(before, after, *own_up) == ""
