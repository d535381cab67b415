"""A wrapper installed on a class or module the inventory cannot name is said, not dropped.

In the shape of a serving plugin that wraps the first of several upstream methods it finds
(the seams moved between releases): a table of ``(module, class, method)`` literals, each
class loaded with ``getattr(importlib.import_module(module), class)``, and the wrapper
installed by a helper ``_wrap(cls, method)`` that keeps the original. Neither the object nor
the attribute is known without running the plugin, so no entry can name the patch: each such
``setattr`` (and ``cls.attr = wrapper`` on a class loaded at run time) is a ``setattr-name``
finding at its line, and the command exits 1. A ``setattr`` that copies a value onto an
object handed around (a request's field, a config value made from the old one) is no
wrapper and says nothing. The plugin is written by the test."""

from __future__ import annotations

import json
from pathlib import Path

from plugin_trees import TreeWriter

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

PLUGIN = """import functools
import importlib

_SEAMS = (
    ("fup.serve.render", "Renderer", "render_chat"),
    ("fup.serve.chat", "ChatServer", "render_chat_request"),
)


def _wrap(cls, method):
    original = getattr(cls, method)

    @functools.wraps(original)
    async def wrapper(self, request, *args, **kwargs):
        _set(request, "prepared", True)
        return await original(self, request, *args, **kwargs)

    setattr(cls, method, wrapper)


def _set(obj, name, value):
    setattr(obj, name, value)


def _widen(config, field):
    old = getattr(config, field, None) or {}
    setattr(config, field, {**old, "factor": 2})


def install():
    for module_name, class_name, method in _SEAMS:
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError):
            continue
        _wrap(cls, method)
        return


def install_inline():
    for module_name, class_name, method in _SEAMS:
        cls = getattr(importlib.import_module(module_name), class_name)
        original = getattr(cls, method)
        setattr(cls, method, functools.partial(_call, original))
        render = cls.render
        cls.render = lambda self, *a: render(self, *a)


def _call(original, *args):
    return original(*args)
"""

MESSAGE = (
    "{shown} installs a wrapper that calls the original, on a class or module this reader "
    "cannot name (cls): that patch is not listed; import what it patches by name (from "
    "package.module import Name) and patch that, so it can be named"
)


def _plugin(plugin_trees: TreeWriter) -> Path:
    return plugin_trees.write(
        "fplug",
        {
            "pyproject.toml": (
                '[project]\nname = "fplug"\nversion = "0.1"\n\n'
                '[project.entry-points."fup.plugins"]\nfplug = "fplug.plugin:install"\n\n'
                '[tool.patchkeeper]\nupstream = "fup"\n\n'
                '[tool.patchkeeper.runtime]\npackage = "fplug"\npatch-directory = "fplug"\n'
                'entry-point-groups = ["fup.plugins"]\nupstream-packages = ["fup"]\n'
            ),
            "fplug/__init__.py": "",
            "fplug/plugin.py": PLUGIN,
        },
    ).plugin


def test_a_wrapper_on_an_object_no_import_names_is_a_finding(
    plugin_trees: TreeWriter,
) -> None:
    plugin = _plugin(plugin_trees)
    inventory = take_inventory(load_config(plugin / "pyproject.toml"))
    assert inventory.entries == ()
    assert [
        (f.code, f.path, f.line, f.message, f.hint)
        for f in inventory.findings
        if f.code == "setattr-name"
    ] == [
        (
            "setattr-name",
            "fplug/plugin.py",
            18,
            "setattr whose object and attribute name are parameters of fplug.plugin._wrap: "
            "the call at fplug/plugin.py:36 passes cls as cls, which this reader cannot "
            "follow to an upstream module or class; that patch is not listed",
            'pass an imported upstream module or class (or sys.modules["name"]) and a string '
            "literal in every call of _wrap, or write the patch where the target is named",
        ),
        *(
            ("setattr-name", "fplug/plugin.py", line, MESSAGE.format(shown=shown), "")
            for line, shown in ((44, "setattr(cls, method, ...)"), (46, "cls.render = ..."))
        ),
    ]


def test_the_finding_fails_the_inventory_command(plugin_trees: TreeWriter, cli) -> None:
    plugin = _plugin(plugin_trees)
    run = cli("runtime", "inventory", "--json", cwd=plugin)
    body = json.loads(run.out)
    assert (run.code, body["exit_code"], body["entries"]) == (1, 1, [])
    assert [f["line"] for f in body["findings"] if f["code"] == "setattr-name"] == [18, 44, 46]


def test_the_lock_says_it_leaves_the_wrappers_out(plugin_trees: TreeWriter, cli) -> None:
    plugin = _plugin(plugin_trees)
    upstream = write_files(
        plugin_trees.root / "fup-1.0",
        {
            "pyproject.toml": '[project]\nname = "fup"\nversion = "1.0"\n',
            "fup/__init__.py": "",
            "fup/serve/__init__.py": "",
            "fup/serve/render.py": "class Renderer:\n    async def render_chat(self, r):\n        return r\n",
        },
    )
    run = cli("runtime", "lock", "--at", str(upstream), "--json", cwd=plugin)
    assert run.code == 0
    assert json.loads(run.out)["skipped"] == [
        ["fplug/plugin.py:18", "a setattr whose attribute name cannot be told statically"],
        *(
            [f"fplug/plugin.py:{line}", "a wrapper whose class or module cannot be told statically"]
            for line in (44, 46)
        ),
    ]
