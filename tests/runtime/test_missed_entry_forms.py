"""Patch forms the inventory used to miss: ``setattr`` on ``sys.modules[m]`` in a loop over
literal items (one entry per item, named from them), ``list.append`` / ``set.add`` on an
upstream registry, a class reached through ``getattr(module, "Name", None)`` or an
annotated alias, and a swap through ``fn.__globals__["name"]`` (named after the global it
replaces). A loop over something else names nothing, and an ``.add`` with two arguments
is a call. The plugin file is written by the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_trees import pyproject

from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

LOADER = """import sys

import vllm.attention as attention
import vllm.registry as registry
from vllm.model_executor import utils


def _fast(*args):
    return None


def load(names):
    for module, name in [("vllm.ops.a", "rms_norm"), ("vllm.ops.b", "silu")]:
        setattr(sys.modules[module], name, _fast)
    for name in ("fwd", "bwd"):
        setattr(attention, name, _fast)
    for name in names:
        setattr(attention, name, _fast)
    registry.BACKENDS.append("tpu")
    registry.KINDS.add("tpu")
    registry.calc.add(1, 2)
    Layer = getattr(attention, "Layer", None)
    if Layer is not None:
        Layer.forward = _fast
    Norm: type = attention.Norm
    Norm.forward = _fast
    utils.set_weight.__globals__["_load"] = _fast
"""


def test_loop_setattr_registry_append_getattr_class_and_globals_swap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("mplug", {"m": "mplug.loader:load"}),
        "mplug/__init__.py": "",
        "mplug/loader.py": LOADER,
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    inventory = take_inventory(None, plugin=tmp_path, package="mplug")
    assert [
        (e.line, e.target, e.key, e.mechanism.value, e.replacement) for e in inventory.entries
    ] == [
        (14, "vllm.ops.a.rms_norm", None, "setattr", "mplug.loader:_fast"),
        (14, "vllm.ops.b.silu", None, "setattr", "mplug.loader:_fast"),
        (16, "vllm.attention.bwd", None, "setattr", "mplug.loader:_fast"),
        (16, "vllm.attention.fwd", None, "setattr", "mplug.loader:_fast"),
        (19, "vllm.registry.BACKENDS", "'tpu'", "registry", "<expr>"),
        (20, "vllm.registry.KINDS", "'tpu'", "registry", "<expr>"),
        (24, "vllm.attention.Layer.forward", None, "assignment", "mplug.loader:_fast"),
        (26, "vllm.attention.Norm.forward", None, "assignment", "mplug.loader:_fast"),
        (27, "vllm.model_executor.utils._load", None, "assignment", "mplug.loader:_fast"),
    ]
    assert [(f.code, f.line) for f in inventory.findings if f.code == "setattr-name"] == [
        ("setattr-name", 18)
    ]


EAGLE = """import logging

logger = logging.getLogger(__name__)


def patch_eagle():
    try:
        from vllm.v1.spec_decode.eagle import EagleProposer
    except ImportError:
        return

    # the method's name varies across vLLM versions
    method_name = None
    for name in ("_greedy_sample", "greedy_sample", "_sample_greedy"):
        if hasattr(EagleProposer, name):
            method_name = name
            break
    if method_name is None:
        return

    def _patched_greedy_sample(self, hidden_states):
        return self.model.compute_logits(hidden_states).argmax(dim=-1)

    setattr(EagleProposer, method_name, _patched_greedy_sample)
"""


def test_a_setattr_name_chosen_at_run_time_is_a_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # flash-head 0.1.10's patches/eagle.py: the name is picked by hasattr among literals
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("fhead", {"f": "fhead.patches.eagle:patch_eagle"}),
        "fhead/__init__.py": "",
        "fhead/patches/__init__.py": "",
        "fhead/patches/eagle.py": EAGLE,
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    inventory = take_inventory(
        None, plugin=tmp_path, package="fhead", patch_directory="fhead/patches"
    )
    assert inventory.entries == ()
    assert [(f.code, f.path, f.line, f.message) for f in inventory.findings] == [
        (
            "setattr-name",
            "fhead/patches/eagle.py",
            24,
            "setattr on vllm.v1.spec_decode.eagle.EagleProposer with an attribute name this "
            "reader cannot tell (method_name): that patch is not listed; name the attribute "
            "with a string literal or a module constant",
        )
    ]


def test_annotated_assignments_outside_the_patch_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module outside the patch directory (read only for its edges) with annotated
    assignments at module and class level: an annotated alias of a plugin object is an
    edge, and nothing fails."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("aplug", {"a": "aplug:register"}),
        "aplug/__init__.py": (
            "from aplug import helpers\n\nCOUNT: int = 3\nSETUP: object = helpers.setup\n\n\n"
            "class Options:\n    size: int = 1\n\n\ndef register():\n    SETUP()\n"
        ),
        "aplug/helpers.py": "def setup():\n    import aplug.patch.layers\n",
        "aplug/patch/__init__.py": "",
        "aplug/patch/layers.py": "import vllm.layers as layers\n\nlayers.Cls.run = None\n",
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    inventory = take_inventory(
        None, plugin=tmp_path, package="aplug", patch_directory="aplug/patch"
    )
    assert [
        (e.file, e.line, e.target, e.activation.status.value if e.activation else None)
        for e in inventory.entries
    ] == [("aplug/patch/layers.py", 3, "vllm.layers.Cls.run", "active")]
