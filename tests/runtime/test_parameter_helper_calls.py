"""The calls of a helper that patches the class it is handed, and what cannot be followed.

In the shape of a plugin that wraps a method of each of upstream's request classes in a
loop over them (``for request_type in (CompletionRequest, ChatRequest):
_wrap(request_type)``), hooks a runner class read from a module looked up by name
(``loaded = sys.modules.get(RUNNER_MODULE)``, ``_install(loaded.NPURunner)``), and hooks
classes it only has at run time (``_install_coordinator(type(coordinator))``). Each class
the loop or the lookup names is an entry; a helper whose callers cannot be followed is a
``setattr-name`` finding at its first patch, naming every line and the call, when it
declares its parameter a class or module or another call passes an upstream class; a
helper only ever handed instances says nothing. The plugin is written by the test."""

from __future__ import annotations

from fupplug import fup_plugin
from plugin_trees import TreeWriter

from patchkeeper.runtime.inventory.runtime_inventory import take_inventory
from patchkeeper.runtime.model import Inventory

HOOKS = """import sys
from typing import Any

from fup.api.protocol import ChatRequest, CompletionRequest
from fup.core.scheduler import Scheduler

RUNNER_MODULE = "fup.worker.npu"


def _wrap(request_type: type[Any]) -> None:
    original = request_type.to_params

    def to_params(self, *args):
        return original(self, *args)

    request_type.to_params = to_params


def _install_runner(runner_cls):
    runner_cls.ready = True


def _install_coordinator(coordinator_cls: type[Any]) -> None:
    coordinator_cls.allocate = _allocate
    setattr(coordinator_cls, "free", _allocate)


def _install_engine(engine_cls):
    engine_cls.run = _allocate


def _reset(state):
    state.count = 0


def _allocate(self, *args):
    return None


def apply(coordinator, engine, state):
    for request_type in (CompletionRequest, ChatRequest):
        _wrap(request_type)
    loaded = sys.modules.get(RUNNER_MODULE)
    if loaded is not None:
        _install_runner(loaded.NPURunner)
    _install_coordinator(type(coordinator))
    _install_engine(Scheduler)
    _install_engine(type(engine))
    _reset(state)
"""


def _inventory(plugin_trees: TreeWriter) -> Inventory:
    register = (
        "def register():\n    from fplug.patch import hooks\n\n    hooks.apply(None, None, None)\n"
    )
    plugin = fup_plugin("fplug", {"hooks": HOOKS}, register)
    return take_inventory(plugin_trees.write("fplug", plugin).config())


def test_each_class_a_loop_or_a_lookup_passes_is_an_entry(
    plugin_trees: TreeWriter,
) -> None:
    inventory = _inventory(plugin_trees)
    assert [
        (e.file, e.line, e.scope, e.target, e.mechanism.value, e.module_hint)
        for e in inventory.entries
    ] == [
        (
            "fplug/patch/hooks.py",
            16,
            "_wrap",
            "fup.api.protocol.ChatRequest.to_params",
            "wrapper",
            "fup.api.protocol",
        ),
        (
            "fplug/patch/hooks.py",
            16,
            "_wrap",
            "fup.api.protocol.CompletionRequest.to_params",
            "wrapper",
            "fup.api.protocol",
        ),
        ("fplug/patch/hooks.py", 20, "_install_runner", "fup.worker.npu.NPURunner.ready",
         "assignment", "fup.worker.npu"),
    ]  # fmt: skip


def test_a_helper_whose_callers_cannot_be_followed_is_a_finding(
    plugin_trees: TreeWriter,
) -> None:
    inventory = _inventory(plugin_trees)
    hint = (
        'pass an imported upstream class or module (or sys.modules["name"]) in every call '
        "of {}, or write the patches where the class is named"
    )
    # _install_coordinator declares a class; _install_engine is handed Scheduler by one
    # call; _reset is only handed an instance: no finding
    assert [
        (f.code, f.path, f.line, f.message, f.hint)
        for f in inventory.findings
        if f.code == "setattr-name"
    ] == [
        (
            "setattr-name",
            "fplug/patch/hooks.py",
            24,
            "the patches on the parameter coordinator_cls of "
            "fplug.patch.hooks._install_coordinator (lines 24, 25): the call at "
            "fplug/patch/hooks.py:46 passes type(coordinator) as coordinator_cls, which this "
            "reader cannot follow to an upstream module or class; they are not listed",
            hint.format("_install_coordinator"),
        ),
        (
            "setattr-name",
            "fplug/patch/hooks.py",
            29,
            "the patches on the parameter engine_cls of fplug.patch.hooks._install_engine "
            "(line 29): the call at fplug/patch/hooks.py:48 passes type(engine) as "
            "engine_cls, which this reader cannot follow to an upstream module or class; "
            "they are not listed",
            hint.format("_install_engine"),
        ),
    ]
