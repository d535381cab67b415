"""A function that calls the original it replaces is a *wrapper* however the plugin installs
it: by ``setattr(Cls, "name", new)`` (a literal or a module constant for the name, the class
reached by import or by its dotted path), by ``setattr(sys.modules["m"], "name", new)``, or by
a name bound to ``sys.modules["m"]`` (``mod.name = new``), or ``fn.__globals__["name"] =
new``, as ``Cls.name = new`` always was. The shape of a model plugin that
saves ``getattr(Tracker, "_placeholder_str", None)`` at import and installs its own method
with ``setattr`` in ``register()``; a ``setattr`` of a function that never calls the original
stays a *setattr* (a copy). The plugin is written by the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_trees import pyproject

from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

PLUGIN = """import sys

import vllm
from vllm.entrypoints.chat_utils import Tracker

_FORMAT = "format"
_ORIG_PLACEHOLDER = getattr(Tracker, "placeholder", None)
_orig_helper = vllm.entrypoints.chat_utils.helper


def placeholder(self, modality):
    if modality == "audio":
        return "<audio>"
    return _ORIG_PLACEHOLDER(self, modality)


def helper(x):
    return _orig_helper(x)


def fmt(self, text):
    return text.strip()


_orig_render = vllm.entrypoints.chat_utils.render
_orig_render_all = vllm.entrypoints.chat_utils.render_all


def render(x):
    return _orig_render(x)


def render_all(xs):
    return [_orig_render_all(x) for x in xs]


def register():
    setattr(vllm.entrypoints.chat_utils.Tracker, "placeholder", placeholder)
    setattr(sys.modules["vllm.entrypoints.chat_utils"], "helper", helper)
    setattr(Tracker, _FORMAT, fmt)
    orig = Tracker.count

    def count(self):
        return orig(self) + 1

    setattr(Tracker, "count", count)
    mod = sys.modules["vllm.entrypoints.chat_utils"]
    mod.render = render
    vllm.entrypoints.chat_utils.parse.__globals__["render_all"] = render_all
"""


def test_a_setattr_of_a_function_calling_the_original_is_a_wrapper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("splug", {"s": "splug:register"}),
        "splug/__init__.py": PLUGIN,
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    inventory = take_inventory(None, plugin=tmp_path, package="splug")
    assert [(e.line, e.target, e.mechanism.value, e.replacement) for e in inventory.entries] == [
        (
            38,
            "vllm.entrypoints.chat_utils.Tracker.placeholder",
            "wrapper",
            "splug:placeholder",
        ),
        (39, "vllm.entrypoints.chat_utils.helper", "wrapper", "splug:helper"),
        (40, "vllm.entrypoints.chat_utils.Tracker.format", "setattr", "splug:fmt"),
        (46, "vllm.entrypoints.chat_utils.Tracker.count", "wrapper", "splug:register.count"),
        (48, "vllm.entrypoints.chat_utils.render", "wrapper", "splug:render"),
        (49, "vllm.entrypoints.chat_utils.render_all", "wrapper", "splug:render_all"),
    ]
