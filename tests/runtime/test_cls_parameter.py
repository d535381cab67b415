"""A plugin function's first parameter named ``cls`` or ``self`` is a parameter like any other.

In the shape of an accelerator plugin whose patch helpers name their parameter after what it
holds (``def _patch_runner(cls):``, ``def _mark(self):``) and are called with upstream
classes: outside a class, the patch made through such a parameter is named after what the
callers pass, as for any other name; it was left out in silence, as if the function were a
method. The plugin is written by the test."""

from __future__ import annotations

from fupplug import fup_plugin
from plugin_trees import TreeWriter

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
    plugin_trees: TreeWriter,
) -> None:
    register = "def register():\n    from fplug.patch import hooks\n\n    hooks.apply()\n"
    plugin = fup_plugin("fplug", {"hooks": HOOKS}, register)
    inventory = take_inventory(plugin_trees.write("fplug", plugin).config())
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
