"""The ``duplicate`` finding of ``runtime audit`` for a target patched from several files.

Wrappers that each call the original they read when installed do not replace one another:
the second wraps the first and both run. A plugin shaped like the speculative-decoding
plugins that wrap ``NPUModelRunner.load_model`` from four files, one per method, was told
"the one imported last wins: keep one", which would drop three of its patches. Wrappers
alone now chain; a plain assignment among them still wins; and a swap restored in the
``finally`` of its ``try`` (temporary) competes with no other patch. The plugin is written
by the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_trees import pyproject

from helpers import write_files
from patchkeeper.errors import Finding
from patchkeeper.runtime.inventory.runtime_inventory import take_inventory
from patchkeeper.runtime.judge.crosscheck import duplicates

WRAP = """from vllm.runner import Runner


def apply_{name}_patch():
    original_load_model = Runner.load_model

    def load_model(self, *args, **kwargs):
        result = original_load_model(self, *args, **kwargs)
        self.{name}_ready = True
        return result

    Runner.load_model = load_model
"""

FILES = {
    "pyproject.toml": pyproject("wplug", {"w": "wplug:register"}),
    "wplug/__init__.py": (
        "def register():\n"
        "    from wplug.patch import draft, eagle, plain, other, window, config\n\n"
        "    draft.apply_draft_patch()\n"
        "    eagle.apply_eagle_patch()\n"
        "    plain.apply()\n"
        "    other.apply()\n"
        "    window.run_window(4)\n"
        "    config.apply()\n"
    ),
    "wplug/patch/__init__.py": "",
    "wplug/patch/draft.py": WRAP.format(name="draft"),
    "wplug/patch/eagle.py": WRAP.format(name="eagle"),
    "wplug/patch/plain.py": (
        "from vllm.runner import Runner\n\n\n"
        "def execute(self):\n    return None\n\n\n"
        "def apply():\n    Runner.execute = execute\n"
    ),
    "wplug/patch/other.py": (
        "from vllm.runner import Runner\n\n\n"
        "def apply():\n"
        "    original_execute = Runner.execute\n\n"
        "    def execute(self):\n        return original_execute(self)\n\n"
        "    Runner.execute = execute\n"
    ),
    "wplug/patch/window.py": (
        "import vllm.context as context\n\n\n"
        "def run_window(size):\n"
        "    saved = context.window\n"
        "    context.window = size\n"
        "    try:\n        return size\n"
        "    finally:\n        context.window = saved\n"
    ),
    "wplug/patch/config.py": (
        "import vllm.context as context\n\n\ndef apply():\n    context.window = 8\n"
    ),
}


def test_wrappers_chain_and_a_temporary_swap_competes_with_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    write_files(tmp_path, FILES)
    inventory = take_inventory(None, plugin=tmp_path, package="wplug")
    assert sorted((e.file, e.line, e.mechanism.value, e.temporary) for e in inventory.entries) == [
        ("wplug/patch/config.py", 5, "assignment", False),
        ("wplug/patch/draft.py", 12, "wrapper", False),
        ("wplug/patch/eagle.py", 12, "wrapper", False),
        ("wplug/patch/other.py", 10, "wrapper", False),
        ("wplug/patch/plain.py", 9, "assignment", False),
        ("wplug/patch/window.py", 6, "assignment", True),
        ("wplug/patch/window.py", 10, "assignment", True),
    ]
    assert duplicates(list(inventory.entries)) == [
        Finding(
            "duplicate",
            "wplug/patch/other.py",
            10,
            "vllm.runner.Runner.execute is patched in 2 files (wplug/patch/other.py:10, "
            "wplug/patch/plain.py:9): the one imported last wins",
            "keep one",
        ),
        Finding(
            "duplicate",
            "wplug/patch/draft.py",
            12,
            "vllm.runner.Runner.load_model is wrapped in 2 files (wplug/patch/draft.py:12, "
            "wplug/patch/eagle.py:12): each wrapper calls the one installed before it, so "
            "all of them run, the one imported last first",
            "check that the import order runs them in the order wanted",
        ),
    ]
