"""A replacement defined under a module-level ``if``, ``try`` or ``with`` is the plugin's
function, named as one defined at the top is; a replacement written in parentheses over
several lines is the name inside them. A stub class of an ``except ImportError`` fallback
still does not stand for the upstream import an alias of it shadows: the registry entry a
decorator of that import makes stays. The plugin files are written by the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_trees import pyproject

from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

PATCH = """import os

import vllm.model_executor.layers.ops as ops
from vllm.model_executor.models.llama import LlamaModel

try:
    from vllm.model_executor.custom_op import CustomOp
except ImportError:

    class _StubOp:
        pass

    CustomOp = _StubOp


def top_forward(self):
    return 1


ops.top = (
    top_forward
)

if not os.environ.get("HAS_KERNELS"):

    def _fallback(x):
        return x

    ops.fused = (
        _fallback
    )

try:
    from vllm.model_executor.layers import mhc
except ImportError:
    pass
else:

    class _NpuPre:
        def forward(self, x):
            return x

    mhc.PreOp.forward_oot = _NpuPre.forward

if os.environ.get("EXTRA"):

    def _patched_load(self, weights):
        return set()

    LlamaModel.load_weights = _patched_load


@CustomOp.register("plug_op")
class PlugOp:
    pass


def apply():
    def _local(self):
        return 2

    LlamaModel.local = (
        _local
    )
"""


def test_a_replacement_under_a_module_guard_or_in_parentheses_is_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("gplug", {"g": "gplug.patch.patch_ops:apply"}),
        "gplug/__init__.py": "",
        "gplug/patch/__init__.py": "",
        "gplug/patch/patch_ops.py": PATCH,
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    inventory = take_inventory(
        None, plugin=tmp_path, package="gplug", patch_directory="gplug/patch"
    )
    assert [
        (e.line, e.target, e.key, e.mechanism.value, e.replacement) for e in inventory.entries
    ] == [
        (20, "vllm.model_executor.layers.ops.top", None, "assignment", "gplug.patch.patch_ops:top_forward"),
        (29, "vllm.model_executor.layers.ops.fused", None, "assignment", "gplug.patch.patch_ops:_fallback"),
        (43, "vllm.model_executor.layers.mhc.PreOp.forward_oot", None, "assignment", "gplug.patch.patch_ops:_NpuPre.forward"),
        (50, "vllm.model_executor.models.llama.LlamaModel.load_weights", None, "assignment", "gplug.patch.patch_ops:_patched_load"),
        (53, "vllm.model_executor.custom_op.CustomOp", "'plug_op'", "registry", "gplug.patch.patch_ops:PlugOp"),
        (62, "vllm.model_executor.models.llama.LlamaModel.local", None, "assignment", "gplug.patch.patch_ops:apply._local"),
    ]  # fmt: skip
