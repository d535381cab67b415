"""Patches made on a class a plugin function is handed as an argument.

In the shape of an accelerator plugin that installs its hooks through helpers taking the
class to patch (``_patch_runner(runner_cls)``, ``install_hooks(scheduler_cls,
manager_cls)``), called from another file with upstream classes. Each statement is an
entry on every distinct upstream class the callers pass (a *wrapper* when it calls on the
original), a class handed on from caller to caller included; the plugin's own class is no
entry. A helper one call hands something the reader cannot resolve (``type(engine)``), or
that is used other than called (stored in a list), gives none: what it patches is not
known. The plugin and the upstream releases are written by the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.inventory.runtime_inventory import take_inventory
from patchkeeper.runtime.judge import runtime_audit as audit

HOOKS = """import fup.worker.runner
from fup.core.scheduler import Scheduler
from fup.core.manager import Manager
from fup.worker.npu import NPURunner

from .helpers import install_hooks

MARKER = "_fplug_patched"


class OwnRunner:
    def step(self):
        return None


def _patch_runner(runner_cls):
    if getattr(runner_cls, MARKER, False):
        return
    original = runner_cls.step

    def step(self, *args):
        return original(self, *args)

    runner_cls.step = step
    setattr(runner_cls, MARKER, True)


def _patch_engine(engine_cls):
    engine_cls.run = _run


def _patch_hook(cls):
    cls.hook = None


def _run(self):
    return None


def apply(engine):
    _patch_runner(NPURunner)
    _patch_runner(fup.worker.runner.GPURunner)
    _patch_runner(OwnRunner)
    _patch_runner(runner_cls=NPURunner)
    install_hooks(Scheduler, manager_cls=Manager)
    _patch_engine(Scheduler)
    _patch_engine(type(engine))
    return [_patch_hook]
"""

HELPERS = """def install_hooks(scheduler_cls, manager_cls):
    _install_manager(manager_cls)
    scheduler_cls.schedule = _schedule


def _install_manager(manager_cls):
    original_free = manager_cls.free

    def free(self, request):
        return original_free(self, request)

    manager_cls.free = free


def _schedule(self):
    return []
"""

UPSTREAM = {
    "fup/__init__.py": "",
    "fup/core/__init__.py": "",
    "fup/core/scheduler.py": "class Scheduler:\n    def schedule(self):\n        return []\n",
    "fup/core/manager.py": "class Manager:\n    def free(self, request):\n        return None\n",
    "fup/worker/__init__.py": "",
    "fup/worker/runner.py": "class GPURunner:\n    def step(self, *args):\n        return None\n",
    "fup/worker/npu.py": "class NPURunner:\n    def step(self, *args):\n        return None\n",
}


def _plugin(root: Path) -> Path:
    return write_files(
        root,
        {
            "pyproject.toml": (
                '[project]\nname = "fplug"\nversion = "0.1"\n\n'
                '[project.entry-points."fup.plugins"]\nfplug = "fplug:register"\n\n'
                '[tool.patchkeeper]\nupstream = "fup"\n\n'
                '[tool.patchkeeper.runtime]\npackage = "fplug"\n'
                'entry-point-groups = ["fup.plugins"]\nupstream-packages = ["fup"]\n'
            ),
            "fplug/__init__.py": (
                "def register():\n    from fplug.patch import hooks\n\n    hooks.apply(None)\n"
            ),
            "fplug/patch/__init__.py": "",
            "fplug/patch/hooks.py": HOOKS,
            "fplug/patch/helpers.py": HELPERS,
        },
    )


def test_patches_on_a_parameter_are_named_after_what_the_callers_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    plugin = _plugin(tmp_path / "fplug")
    inventory = take_inventory(load_config(plugin / "pyproject.toml"))
    assert [
        (e.file, e.line, e.scope, e.target, e.mechanism.value, e.replacement)
        for e in inventory.entries
    ] == [
        (
            "fplug/patch/helpers.py",
            3,
            "install_hooks",
            "fup.core.scheduler.Scheduler.schedule",
            "assignment",
            "fplug.patch.helpers:_schedule",
        ),
        (
            "fplug/patch/helpers.py",
            12,
            "_install_manager",
            "fup.core.manager.Manager.free",
            "wrapper",
            "fplug.patch.helpers:_install_manager.free",
        ),
        (
            "fplug/patch/hooks.py",
            24,
            "_patch_runner",
            "fup.worker.npu.NPURunner.step",
            "wrapper",
            "fplug.patch.hooks:_patch_runner.step",
        ),
        (
            "fplug/patch/hooks.py",
            24,
            "_patch_runner",
            "fup.worker.runner.GPURunner.step",
            "wrapper",
            "fplug.patch.hooks:_patch_runner.step",
        ),
        (
            "fplug/patch/hooks.py",
            25,
            "_patch_runner",
            "fup.worker.npu.NPURunner._fplug_patched",
            "setattr",
            "<expr>",
        ),
        (
            "fplug/patch/hooks.py",
            25,
            "_patch_runner",
            "fup.worker.runner.GPURunner._fplug_patched",
            "setattr",
            "<expr>",
        ),
    ]
    assert [
        (e.module_hint, e.activation and e.activation.status.value) for e in inventory.entries
    ] == [
        ("fup.core.scheduler", "active"),
        ("fup.core.manager", "active"),
        ("fup.worker.npu", "active"),
        ("fup", "active"),  # what `import fup.worker.runner` binds
        ("fup.worker.npu", "active"),
        ("fup", "active"),
    ]


def test_the_entries_through_a_parameter_are_audited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    old, new = tmp_path / "fup-1.0", tmp_path / "fup-1.1"
    for root, version in ((old, "1.0"), (new, "1.1")):
        project = f'[project]\nname = "fup"\nversion = "{version}"\n'
        write_files(root, {"pyproject.toml": project, **UPSTREAM})
    # 1.1 changes the body of NPURunner.step: the wrapper calls the original, so it keeps
    npu = "class NPURunner:\n    def step(self, *args):\n        self.steps += 1\n        return None\n"
    write_files(new, {"fup/worker/npu.py": npu})
    plugin = _plugin(tmp_path / "fplug")
    result = audit.audit_runtime(load_config(plugin / "pyproject.toml"), old=str(old), new=str(new))
    assert [
        (a.entry.target, a.entry.mechanism.value, a.drift.decision) for a in result.entries
    ] == [
        ("fup.core.scheduler.Scheduler.schedule", "assignment", "retain"),
        ("fup.core.manager.Manager.free", "wrapper", "retain"),
        ("fup.worker.npu.NPURunner.step", "wrapper", "retain"),
        ("fup.worker.runner.GPURunner.step", "wrapper", "retain"),
        ("fup.worker.npu.NPURunner._fplug_patched", "setattr", "retain"),
        ("fup.worker.runner.GPURunner._fplug_patched", "setattr", "retain"),
    ]
    assert result.entries[2].drift.evidence[0] == (
        "upstream fup.worker.npu.NPURunner.step changed (body) but the wrapper calls the "
        "original and the signature is the same"
    )
