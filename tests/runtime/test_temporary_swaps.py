"""A swap undone in the ``finally`` of a ``try`` (``old = m.f; m.f = new; try: ... finally:
m.f = old``) is a temporary entry, and so is the restoring statement; a swap without a
restore stays permanent. The plugin file is written by the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_trees import pyproject

from patchkeeper.render.runtime import inventory_text
from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

LOADER = """import vllm.model_loader as loader
import vllm.registry as registry


def _quiet(*args):
    return None


def load(model):
    old = loader.report
    loader.report = _quiet
    registry.TABLE["tmp"] = _quiet
    try:
        setattr(loader, "warn", _quiet)
        model.load()
    finally:
        loader.report = old
        setattr(loader, "warn", old)
        del registry.TABLE["tmp"]
    loader.finish = _quiet
"""


def test_a_swap_restored_in_finally_is_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("tplug", {"t": "tplug.loader:load"}),
        "tplug/__init__.py": "",
        "tplug/loader.py": LOADER,
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    inventory = take_inventory(None, plugin=tmp_path, package="tplug")
    assert [
        (e.line, e.target, e.key, e.mechanism.value, e.temporary) for e in inventory.entries
    ] == [
        (11, "vllm.model_loader.report", None, "assignment", True),
        (12, "vllm.registry.TABLE", "'tmp'", "registry", True),
        (14, "vllm.model_loader.warn", None, "setattr", True),
        (17, "vllm.model_loader.report", None, "wrapper", True),
        (18, "vllm.model_loader.warn", None, "setattr", True),
        (19, "vllm.registry.TABLE", "'tmp'", "registry", True),
        (20, "vllm.model_loader.finish", None, "assignment", False),
    ]
    assert (
        "tplug/loader.py:11  assignment  vllm.model_loader.report  <- tplug.loader:_quiet"
        " (temporary: restored in finally)"
    ) in inventory_text(inventory).splitlines()
