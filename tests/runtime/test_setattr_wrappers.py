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


CONSTANT_NAMES = """from typing import Callable, Optional

from vllm.entrypoints.chat_utils import Tracker

_PLACEHOLDER = "placeholder"
_RESET = "reset"
_COUNT = "count"
_ORIG_PLACEHOLDER: Optional[Callable[..., str]] = getattr(Tracker, _PLACEHOLDER, None)
_orig_count = getattr(Tracker, _COUNT)


def placeholder(self, modality):
    return _ORIG_PLACEHOLDER(self, modality)


def count(self, _orig_count=None):
    return _orig_count(self) if _orig_count else 0


def _install_reset():
    orig = getattr(Tracker, _RESET)

    def reset(self):
        orig(self)

    setattr(Tracker, _RESET, reset)


def register():
    setattr(Tracker, _PLACEHOLDER, placeholder)
    setattr(Tracker, _COUNT, count)
    _install_reset()
"""


def test_an_original_read_by_getattr_with_a_constant_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``getattr(Cls, _ATTR, None)`` with ``_ATTR`` a module constant reads the original as
    ``getattr(Cls, "attr")`` does, at module level (annotated or not) or in the function that
    installs the wrapper; a parameter of the same name hides the saved original."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("cplug", {"c": "cplug:register"}),
        "cplug/__init__.py": CONSTANT_NAMES,
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    inventory = take_inventory(None, plugin=tmp_path, package="cplug")
    assert [(e.line, e.target, e.mechanism.value, e.replacement) for e in inventory.entries] == [
        (26, "vllm.entrypoints.chat_utils.Tracker.reset", "wrapper", "cplug:_install_reset.reset"),
        (30, "vllm.entrypoints.chat_utils.Tracker.placeholder", "wrapper", "cplug:placeholder"),
        (31, "vllm.entrypoints.chat_utils.Tracker.count", "setattr", "cplug:count"),
    ]
