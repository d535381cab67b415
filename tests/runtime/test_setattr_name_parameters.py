"""A ``setattr`` whose attribute name is a parameter of the plugin function around it.

In the shape of an NPU layer module of a multimodal plugin that adds the fields its kernels
read to upstream's forward context through one helper, ``_ensure_attr(name, default)``
(``setattr(fc.ForwardContext, name, default)`` when upstream lacks it), called with the
field names as string literals. Each literal the callers pass names one entry (a name handed
on from caller to caller included); a helper one call hands something else (a loop's
variable) gives no entry and a ``setattr-name`` finding, as before. The plugin is written by
the test."""

from __future__ import annotations

from fupplug import fup_plugin
from plugin_trees import TreeWriter

from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

LAYER = """from typing import Any

import fup.forward_context as fc
from fup.forward_context import ForwardContext


def _ensure_attr(name: str, default: Any) -> None:
    if not hasattr(fc.ForwardContext, name):
        setattr(fc.ForwardContext, name, default)


def _ensure_flag(name):
    _ensure_attr(name, False)


def _ensure_each(name):
    setattr(ForwardContext, name, None)


def prepare(extra_fields):
    _ensure_attr("num_tokens", None)
    _ensure_attr(name="moe_comm_type", default=None)
    _ensure_attr("num_tokens", 0)
    _ensure_flag("in_profile_run")
    _ensure_each("max_tokens_across_dp")
    for field in extra_fields:
        _ensure_each(field)
"""


PLUGIN = fup_plugin(
    "fplug",
    {"layer": LAYER},
    "def register():\n    from fplug.patch import layer\n\n    layer.prepare([])\n",
)


def test_a_setattr_name_parameter_is_named_after_the_literals_the_callers_pass(
    plugin_trees: TreeWriter,
) -> None:
    inventory = take_inventory(plugin_trees.write("fplug", PLUGIN).config())
    assert [
        (e.file, e.line, e.scope, e.target, e.mechanism.value, e.module_hint)
        for e in inventory.entries
    ] == [
        (
            "fplug/patch/layer.py",
            9,
            "_ensure_attr",
            f"fup.forward_context.ForwardContext.{name}",
            "setattr",
            "fup.forward_context",
        )
        # the literals of the direct calls and the one _ensure_flag hands on, each once
        for name in ("in_profile_run", "moe_comm_type", "num_tokens")
    ]
    assert [
        (f.code, f.path, f.line, f.message, f.hint)
        for f in inventory.findings
        if f.code == "setattr-name"
    ] == [
        (
            "setattr-name",
            "fplug/patch/layer.py",
            17,
            "setattr on fup.forward_context.ForwardContext with an attribute name a parameter "
            "of fplug.patch.layer._ensure_each: its callers do not all pass a string literal, "
            "so that patch is not listed",
            "pass the attribute's name as a string literal in every call of _ensure_each, or "
            "write it in the setattr",
        )
    ]
