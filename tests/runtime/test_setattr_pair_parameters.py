"""A ``setattr(obj, name, value)`` whose object and name are both parameters of a helper.

In the shape of a speculative-decoding plugin that wraps methods of upstream's proposer
through one helper, ``_wrap_method(owner_cls, method_name)`` (``setattr(owner_cls,
method_name, wrapped)``), called with the imported class and the method's name as a literal
or as the variable of a loop over literal names; and of an operator plugin whose rewrite
helper ``replace_function(module, function_name)`` is handed a module found by name
(``sys.modules["fup.ops"]``, ``importlib.import_module(...)``) or, from a method, a module
only known at run time. Each (object, name) pair one call passes names one entry, the two
read from the same call; a call the reader cannot follow gives no entry and, where the
helper declares its object a class or module, a ``setattr-name`` finding naming the
``setattr`` and the call. The plugin is written by the test."""

from __future__ import annotations

from fupplug import fup_plugin
from plugin_trees import TreeWriter

from patchkeeper.runtime.inventory.runtime_inventory import take_inventory
from patchkeeper.runtime.model import Inventory

HELPERS = """from types import ModuleType


def _wrap_method(owner_cls: type, method_name: str) -> None:
    original = getattr(owner_cls, method_name)

    def wrapped(self, *args, **kwargs):
        return original(self, *args, **kwargs)

    setattr(owner_cls, method_name, wrapped)


def replace_function(module: ModuleType, function_name: str, replacement) -> None:
    setattr(module, function_name, replacement)


def set_field(holder, field_name, value):
    setattr(holder, field_name, value)
"""

PROPOSER = """from fup.spec import Proposer, Sampler

from fplug.patch.helpers import _wrap_method, set_field


class OwnProposer:
    def step(self):
        return None


def _wrap_both(owner, name):
    _wrap_method(owner, name)


def apply(config):
    _wrap_method(Proposer, "load_model")
    for method_name in ("dummy_run", "propose"):
        _wrap_method(Proposer, method_name)
    _wrap_method(method_name="sample", owner_cls=Sampler)
    _wrap_both(Sampler, "reset")
    _wrap_method(OwnProposer, "step")
    set_field(config, "max_tokens", 8)
"""

OPS = """import importlib
import sys

from fplug.patch.helpers import replace_function


def fast_norm(x):
    return x


def fast_act(x):
    return x


def apply():
    replace_function(sys.modules["fup.ops.norm"], "rms_norm", fast_norm)
    replace_function(importlib.import_module("fup.ops.act"), "silu", fast_act)
"""

REWRITE = """from fplug.patch.helpers import replace_function


def fast_mm(x):
    return x


class MatmulRewrite:
    function_name = "matmul"

    def apply(self, module):
        replace_function(module, self.function_name, fast_mm)
"""


def _inventory(plugin_trees: TreeWriter, *, with_rewrite: bool) -> Inventory:
    register = (
        "def register():\n"
        "    from fplug.patch import ops, proposer\n\n"
        "    proposer.apply(None)\n"
        "    ops.apply()\n"
    )
    patches = {"helpers": HELPERS, "proposer": PROPOSER, "ops": OPS}
    if with_rewrite:
        patches["rewrite"] = REWRITE
    plugin = fup_plugin("fplug", patches, register)
    return take_inventory(plugin_trees.write("fplug", plugin).config())


def _setattr_entries(inventory: Inventory) -> list[tuple[object, ...]]:
    return [
        (e.file, e.line, e.scope, e.target, e.mechanism.value, e.module_hint, e.replacement)
        for e in inventory.entries
    ]


def test_each_pair_a_call_passes_names_one_entry(plugin_trees: TreeWriter) -> None:
    inventory = _inventory(plugin_trees, with_rewrite=False)
    wrapped = "fplug.patch.helpers:_wrap_method.wrapped"
    assert _setattr_entries(inventory) == [
        # one entry per pair passed: the literal, each item of the loop over literal names,
        # keywords, and the pair _wrap_both hands on; the plugin's own class is no patch,
        # and Sampler is never paired with a Proposer method's name
        ("fplug/patch/helpers.py", 10, "_wrap_method", f"fup.spec.{target}", "setattr",
         "fup.spec", wrapped)
        for target in (
            "Proposer.dummy_run",
            "Proposer.load_model",
            "Proposer.propose",
            "Sampler.reset",
            "Sampler.sample",
        )
    ] + [
        # modules passed by name: sys.modules[...] and importlib.import_module(...)
        ("fplug/patch/helpers.py", 14, "replace_function", "fup.ops.act.silu", "setattr",
         "fup.ops.act", "<expr>"),
        ("fplug/patch/helpers.py", 14, "replace_function", "fup.ops.norm.rms_norm", "setattr",
         "fup.ops.norm", "<expr>"),
    ]  # fmt: skip
    assert [f for f in inventory.findings if f.code == "setattr-name"] == []


def test_a_call_the_reader_cannot_follow_is_a_finding_not_an_entry(
    plugin_trees: TreeWriter,
) -> None:
    inventory = _inventory(plugin_trees, with_rewrite=True)
    # the module a method is handed at run time: replace_function lists nothing it sets,
    # not even the modules its other callers name, and says why at the setattr's line
    assert [(e.line, e.target) for e in inventory.entries if e.scope == "replace_function"] == []
    assert [
        (f.code, f.path, f.line, f.message, f.hint)
        for f in inventory.findings
        if f.code == "setattr-name"
    ] == [
        (
            "setattr-name",
            "fplug/patch/helpers.py",
            14,
            "setattr whose object and attribute name are parameters of "
            "fplug.patch.helpers.replace_function: the call at fplug/patch/rewrite.py:12 "
            "passes module as module, which this reader cannot follow to an upstream module "
            "or class; that patch is not listed",
            'pass an imported upstream module or class (or sys.modules["name"]) and a string '
            "literal in every call of replace_function, or write the patch where the target "
            "is named",
        )
    ]
    # set_field(config, ...) sets a field of an instance, undeclared: neither entry nor
    # finding
    assert [e for e in inventory.entries if e.scope == "set_field"] == []
