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

from fupplug import fup_plugin
from plugin_trees import TreeWriter

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


PLUGIN = fup_plugin(
    "fplug",
    {"hooks": HOOKS, "helpers": HELPERS},
    "def register():\n    from fplug.patch import hooks\n\n    hooks.apply(None)\n",
)


def test_patches_on_a_parameter_are_named_after_what_the_callers_pass(
    plugin_trees: TreeWriter,
) -> None:
    inventory = take_inventory(plugin_trees.write("fplug", PLUGIN).config())
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
    plugin_trees: TreeWriter,
) -> None:
    project = '[project]\nname = "fup"\nversion = "{}"\n'
    # 1.1 changes the body of NPURunner.step: the wrapper calls the original, so it keeps
    npu = "class NPURunner:\n    def step(self, *args):\n        self.steps += 1\n        return None\n"
    trees = plugin_trees.write(
        "fplug",
        PLUGIN,
        {"pyproject.toml": project.format("1.0"), **UPSTREAM},
        {"pyproject.toml": project.format("1.1"), **UPSTREAM, "fup/worker/npu.py": npu},
    )
    result = audit.audit_runtime(trees.config(), old=trees.old, new=trees.new)
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
