"""A ``setattr`` whose attribute name is an f-string or a ``+`` of constants names it.

In the shape of a KV-compression plugin's attention hook: a local ``marker`` literal, then
``setattr(Impl, f"{marker}_original", original)`` beside ``setattr(Impl, marker, True)``.
The second was listed; the first was a ``setattr-name`` finding ("an attribute name this
reader cannot tell"), though every part of the name is a constant. An f-string or a ``+``
of literals and constants is now such a constant; one with a conversion other than ``!s``
or a format stays a finding. The plugin is written by the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_trees import findings, pyproject

from helpers import write_files
from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

HOOK = """from vllm.attention.backend import AttentionImpl

PREFIX = "_kplug"


def install_query_hook():
    marker = "_kplug_query_observer_v1"
    if AttentionImpl.__dict__.get(marker, False):
        return
    original = AttentionImpl.forward

    def forward(self, layer, query, *args, **kwargs):
        return original(self, layer, query, *args, **kwargs)

    AttentionImpl.forward = forward
    setattr(AttentionImpl, f"{marker}_original", original)
    setattr(AttentionImpl, marker, True)
    setattr(AttentionImpl, PREFIX + "_calls", 0)
    setattr(AttentionImpl, f"{PREFIX!s}_{marker}", 1)
    setattr(AttentionImpl, f"{marker!r}", 2)
"""


def test_a_name_composed_of_constants_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    write_files(
        tmp_path,
        {
            "pyproject.toml": pyproject("kplug", {"k": "kplug:register"}),
            "kplug/__init__.py": (
                "def register():\n    from kplug.patch import hook\n\n"
                "    hook.install_query_hook()\n"
            ),
            "kplug/patch/__init__.py": "",
            "kplug/patch/hook.py": HOOK,
        },
    )
    inventory = take_inventory(None, plugin=tmp_path, package="kplug")
    assert [(e.line, e.target) for e in inventory.entries] == [
        (15, "vllm.attention.backend.AttentionImpl.forward"),
        (16, "vllm.attention.backend.AttentionImpl._kplug_query_observer_v1_original"),
        (17, "vllm.attention.backend.AttentionImpl._kplug_query_observer_v1"),
        (18, "vllm.attention.backend.AttentionImpl._kplug_calls"),
        (19, "vllm.attention.backend.AttentionImpl._kplug__kplug_query_observer_v1"),
    ]
    assert findings(inventory) == [
        (
            "setattr-name",
            20,
            "setattr on vllm.attention.backend.AttentionImpl with an attribute name this reader "
            "cannot tell (f'{marker!r}'): that patch is not listed; name the attribute with a "
            "string literal or a module constant",
        )
    ]
