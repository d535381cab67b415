"""Which calls and statements are patch entries: a library function called through its
module (``jax.config.update("name", value)``, flax's ``nnx.update(model, state)``) is not a
registry patch, and ``del sys.modules[name]`` (an upstream module imported afresh) is an
entry. The plugin file is written by the test in the shape of tpu-inference's."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_trees import pyproject

from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

LOADER = """import sys

import jax
from flax import nnx
import vllm.registry as registry


def load(model, state):
    jax.config.update("jax_enable_x64", True)
    nnx.update(model, state)
    registry.BACKENDS.update({"tpu": "fplug.backend.Tpu"})
    registry.BACKENDS.update(tpu2="fplug.backend.Tpu2")
    del sys.modules["vllm.engine"]
"""


def test_library_calls_are_not_entries_and_a_module_dropped_from_sys_modules_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("fplug", {"f": "fplug.loader:load"}),
        "fplug/__init__.py": "",
        "fplug/loader.py": LOADER,
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    inventory = take_inventory(None, plugin=tmp_path, package="fplug")
    assert [
        (e.line, e.target, e.key, e.mechanism.value, e.replacement) for e in inventory.entries
    ] == [
        (11, "vllm.registry.BACKENDS", "'tpu'", "registry", "<expr>"),
        (12, "vllm.registry.BACKENDS", "'tpu2'", "registry", "<expr>"),
        (13, "vllm.engine", None, "sys-modules", "<removed>"),
    ]
