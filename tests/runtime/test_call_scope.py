"""Which upstream calls reach a replacement, read for the parameters upstream added.

A patch that rebinds a name in a module importing it (``layer.SwaCache = DevSwaCache``)
reaches only the calls that look the name up there: a module that imported the class from
its defining module keeps upstream's, so a parameter only that module passes does not
make the plugin's class *update*. The same class assigned in its defining module reaches
that module's importers, and their calls count; so do the calls of a method, whose
instances travel to any module. A subclass's override whose parameters
never were upstream's (the plugin calls it its own way) is not reached by upstream's new
signature either.

The plugin below is written by this test in the shape of the attention-cache and indexer
subclasses of a vLLM platform plugin, which swaps them into one model's attention module
while other models import the cache class from where upstream defines it."""

from __future__ import annotations

from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

OLD_CACHE = """class SwaCache:
    def __init__(self, dim, window):
        self.dim = dim
        self.window = window

    def spec(self):
        return (self.dim, self.window)


class Indexer:
    def forward(self, x, pos):
        y = x * 2
        return y + pos


class Pages:
    def take(self, k):
        return list(range(k))
"""
NEW_CACHE = """class SwaCache:
    def __init__(self, dim, window, block=64):
        self.dim = dim
        self.window = window
        self.block = block

    def spec(self):
        return (self.dim, self.window)


class Indexer:
    def forward(self, x, pos, scale=None):
        y = x * 2
        if scale is not None:
            y = y * scale
        return y + pos


class Pages:
    def take(self, k, pinned=False):
        return list(range(k)) if not pinned else []
"""
LAYER = """from fup.cache import Indexer, Pages, SwaCache


class Layer:
    def __init__(self):
        self.cache = SwaCache(dim=4, window=8)
        self.indexer = Indexer()
        self.pages = Pages()
"""
OLD_WIDE = """from fup.cache import Pages, SwaCache


class WideLayer:
    def __init__(self, pages: Pages):
        self.cache = SwaCache(dim=8, window=16)
        self.held = pages.take(2)
"""
NEW_WIDE = """from fup.cache import Pages, SwaCache


class WideLayer:
    def __init__(self, pages: Pages):
        self.cache = SwaCache(dim=8, window=16, block=32)
        self.held = pages.take(2, pinned=True)
"""
PATCH = """# Note: the fixture device keeps its sliding window in blocks of its own.
import fup.cache
import fup.layer


class DevSwaCache(fup.cache.SwaCache):
    def __init__(self, dim, window):
        super().__init__(dim, window)
        self.block = 16


class DevIndexer(fup.cache.Indexer):
    def forward(self, x, query, weights):
        return x @ query * weights


class DevPages(fup.cache.Pages):
    def take(self, k):
        return list(range(k))[::-1]


def swap_layer():
    fup.layer.SwaCache = DevSwaCache
    fup.layer.Indexer = DevIndexer
    fup.layer.Pages = DevPages


def swap_everywhere():
    fup.cache.SwaCache = DevSwaCache


swap_layer()
swap_everywhere()
"""


@pytest.fixture
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return write_trees(
        tmp_path,
        monkeypatch,
        {
            "1.0": {"fup/cache.py": OLD_CACHE, "fup/layer.py": LAYER, "fup/wide.py": OLD_WIDE},
            "2.0": {"fup/cache.py": NEW_CACHE, "fup/layer.py": LAYER, "fup/wide.py": NEW_WIDE},
        },
        "fdev",
        {
            "fdev/patch/__init__.py": "from fdev.patch import patch_cache  # noqa: F401\n",
            "fdev/patch/patch_cache.py": PATCH,
        },
    )


def _decisions(trees: Path) -> dict[str, tuple[str, str]]:
    result = audit_trees(trees, "fdev")
    return {a.entry.target: (a.drift.decision, a.drift.evidence[0]) for a in result.entries}


def test_calls_read_are_those_the_rebinding_reaches(trees: Path) -> None:
    decisions = _decisions(trees)
    assert decisions["fup.layer.SwaCache"] == (
        # fup.wide passes block, but it imported SwaCache from fup.cache: the swap in
        # fup.layer never reaches its call; fup.layer's own call passes no block
        "retain",
        "the plugin's class derives from SwaCache and inherits the upstream change; of the "
        "methods it overrides (__init__), __init__ changed upstream in the body alone and the "
        "override calls upstream's (super()): the change passes through; the signature of "
        "__init__ changed too, in a way every upstream call still binds to the override "
        "(parameters added with a default that no upstream call passes are left out); the "
        "others are unchanged upstream",
    )
    # assigned where upstream defines it, the class reaches fup.wide's call with block=32
    assert decisions["fup.cache.SwaCache"] == (
        "update",
        "upstream fup.cache.SwaCache changed: body; the downstream change is not in the new "
        "upstream",
    )
    # a method's calls are read everywhere: the instances fup.layer builds travel (fup.wide
    # takes one and passes pinned=True to the override that lacks it)
    assert decisions["fup.layer.Pages"] == (
        "update",
        "upstream fup.cache.Pages changed: body; the downstream change is not in the new upstream",
    )


def test_an_override_called_its_own_way_is_not_reached_by_a_new_signature(
    trees: Path,
) -> None:
    # DevIndexer.forward(x, query, weights) never took upstream's forward(x, pos) calls: the
    # plugin calls it itself, and upstream's scale parameter reaches none of those calls
    assert _decisions(trees)["fup.layer.Indexer"] == (
        "retain",
        "the plugin's class derives from Indexer and inherits the upstream change; of the "
        "methods it overrides (forward), forward changed upstream in the body alone, only in "
        "code the override does not copy, or only by removing lines; the parameters of "
        "forward already differed from upstream's at the old release (the plugin calls its "
        "override its own way), so upstream's new signature reaches no call of it; the "
        "others are unchanged upstream",
    )
