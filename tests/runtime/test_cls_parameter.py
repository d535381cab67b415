"""A plugin function's first parameter named ``cls`` or ``self`` is a parameter like any other.

In the shape of an accelerator plugin whose patch helpers name their parameter after what it
holds (``def _patch_runner(cls):``, ``def _mark(self):``) and are called with upstream
classes: outside a class, the patch made through such a parameter is named after what the
callers pass, as for any other name; it was left out in silence, as if the function were a
method. The plugin is written by the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

HOOKS = """from fup.core.scheduler import Scheduler
from fup.worker.npu import NPURunner


def _patch_runner(cls):
    original = cls.step

    def step(self, *args):
        return original(self, *args)

    cls.step = step


def _mark(self):
    setattr(self, "patched", True)


class OwnRunner:
    def hook(cls):
        cls.hooked = True


def apply():
    _patch_runner(NPURunner)
    _mark(Scheduler)
"""


def test_a_first_parameter_named_cls_or_self_of_a_plugin_function_is_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    plugin = write_files(
        tmp_path / "fplug",
        {
            "pyproject.toml": (
                '[project]\nname = "fplug"\nversion = "0.1"\n\n'
                '[project.entry-points."fup.plugins"]\nfplug = "fplug:register"\n\n'
                '[tool.patchkeeper]\nupstream = "fup"\n\n'
                '[tool.patchkeeper.runtime]\npackage = "fplug"\n'
                'entry-point-groups = ["fup.plugins"]\nupstream-packages = ["fup"]\n'
            ),
            "fplug/__init__.py": (
                "def register():\n    from fplug.patch import hooks\n\n    hooks.apply()\n"
            ),
            "fplug/patch/__init__.py": "",
            "fplug/patch/hooks.py": HOOKS,
        },
    )
    inventory = take_inventory(load_config(plugin / "pyproject.toml"))
    # a method's first parameter stays left alone (OwnRunner.hook): its calls are not seen
    assert [
        (e.file, e.line, e.scope, e.target, e.mechanism.value, e.replacement)
        for e in inventory.entries
    ] == [
        (
            "fplug/patch/hooks.py",
            11,
            "_patch_runner",
            "fup.worker.npu.NPURunner.step",
            "wrapper",
            "fplug.patch.hooks:_patch_runner.step",
        ),
        (
            "fplug/patch/hooks.py",
            15,
            "_mark",
            "fup.core.scheduler.Scheduler.patched",
            "setattr",
            "<expr>",
        ),
    ]
