"""A wrapper of a method upstream left unchanged is kept (*retain*), whatever else upstream
changed around it: nothing in the two releases says the plugin must drop it, and a *remove*
there would lose a patch the plugin's maintainers may still need (they sometimes drop such a
wrapper for a redesign of their own, which no upstream tree shows).

The plugin below is written by this test in the shape of a KV-compression plugin's manager
hooks: a function handed the manager class saves the originals under generated names and
wraps ``allocate`` (an offset applied to the request around the original) and ``free``;
the new upstream changed ``free`` and the manager's other methods, not ``allocate``."""

from __future__ import annotations

from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

MANAGER_OLD = """class Manager:
    def __init__(self):
        self.blocks = {}
        self.pins = {}

    def allocate(self, request, num_tokens):
        have = request.num_computed_tokens
        return (have + num_tokens) // 16

    def free(self, request):
        self.pins.pop(request.request_id, None)
        self.blocks.pop(request.request_id, None)

    def take_offloads(self):
        return []
"""
MANAGER_NEW = """class Manager:
    def __init__(self):
        self.blocks = {}

    def allocate(self, request, num_tokens):
        have = request.num_computed_tokens
        return (have + num_tokens) // 16

    def free(self, request):
        self.blocks.pop(request.request_id, None)

    def take_boundary_offloads(self):
        return []
"""
HOOKS = """# Note: the fixture device compresses its KV cache and counts blocks physically.
from fup.manager import Manager

_MARKER = "_fplug_manager_patch"


def _install_manager_hooks(manager_cls):
    original_allocate = manager_cls.allocate
    original_free = manager_cls.free

    def allocate(manager, request, *args, **kwargs):
        removed = getattr(manager, "_fplug_offsets", {}).get(request.request_id)
        if removed is None:
            return original_allocate(manager, request, *args, **kwargs)
        semantic = request.num_computed_tokens
        request.num_computed_tokens = semantic - removed
        try:
            return original_allocate(manager, request, *args, **kwargs)
        finally:
            request.num_computed_tokens = semantic

    def free(manager, request):
        getattr(manager, "_fplug_offsets", {}).pop(request.request_id, None)
        return original_free(manager, request)

    setattr(manager_cls, f"{_MARKER}_original_allocate", original_allocate)
    setattr(manager_cls, f"{_MARKER}_original_free", original_free)
    manager_cls.allocate = allocate
    manager_cls.free = free


_install_manager_hooks(Manager)
"""


@pytest.fixture
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    releases = {"1.0": {"fup/manager.py": MANAGER_OLD}, "2.0": {"fup/manager.py": MANAGER_NEW}}
    plugin = {
        "kplug/patch/__init__.py": "from kplug.patch import hooks  # noqa: F401\n",
        "kplug/patch/hooks.py": HOOKS,
    }
    return write_trees(tmp_path, monkeypatch, releases, "kplug", plugin)


def test_a_wrapper_of_an_unchanged_method_is_kept(trees: Path) -> None:
    result = audit_trees(trees, "kplug")
    decisions = sorted((a.entry.target, a.drift.decision) for a in result.entries)
    assert decisions == [
        ("fup.manager.Manager._fplug_manager_patch_original_allocate", "retain"),
        ("fup.manager.Manager._fplug_manager_patch_original_free", "retain"),
        ("fup.manager.Manager.allocate", "retain"),
        ("fup.manager.Manager.free", "retain"),
    ]
