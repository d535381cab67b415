"""A plugin without ``<package>/patch`` (tpu-inference, vllm-spyre keep their patches beside
the rest of their code): the whole package is scanned by default, and only the files that
patch something are asked for a header."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_trees import pyproject

from patchkeeper.runtime.inventory.runtime_inventory import take_inventory


def test_the_whole_package_is_scanned_and_only_patching_files_need_a_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject(
            "wplug", {"w": "wplug:register"}, group="vllm.platform_plugins"
        ),
        "wplug/__init__.py": "def register():\n    import wplug.hacks  # noqa: F401\n",
        "wplug/util.py": "def helper():\n    return 1\n",
        "wplug/hacks.py": (
            "import vllm.engine\n\n\ndef step(x):\n    return x\n\n\nvllm.engine.step = step\n"
        ),
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    inventory = take_inventory(None, plugin=tmp_path, package="wplug")
    assert inventory.patch_directory == "wplug"
    assert inventory.files == ("wplug/__init__.py", "wplug/hacks.py", "wplug/util.py")
    assert [(e.file, e.line, e.target) for e in inventory.entries] == [
        ("wplug/hacks.py", 8, "vllm.engine.step")
    ]
    assert [(f.code, f.path) for f in inventory.findings] == [("header-missing", "wplug/hacks.py")]
