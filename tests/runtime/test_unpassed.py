"""A parameter upstream adds with a default that no upstream call passes leaves the calls
binding to the plugin's copy (or override) that lacks it: *retain*; one a call passes, by
keyword or by position, makes the copy *update*.

The plugin below is written by this test in the shape of the attention-cache subclasses
and copied kernels' launchers of a vLLM platform plugin: a cache class the upstream layer
builds by keyword, an indexer whose ``forward`` the plugin copies, module-level functions
copied and assigned over upstream's."""

from __future__ import annotations

from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

OLD_CACHE = """class SwaCache:
    def __init__(self, dim, window, backend=None):
        self.dim = dim
        self.window = window

    def spec(self):
        return (self.dim, self.window)


class Indexer:
    def forward(self, x, pos):
        y = x * 2
        return y + pos


def score(q, k):
    return q * k


def mix(a, b):
    return a + b


def blend(a, b):
    return a - b
"""
NEW_CACHE = """class SwaCache:
    def __init__(self, dim, window, backend=None, block=64, packed=584):
        self.dim = dim
        self.window = window
        self.block = block

    def spec(self):
        return (self.dim, self.window)


class Indexer:
    def forward(self, x, pos, skip=False):
        y = x * 2
        if not skip:
            y = y + 1
        return y + pos


def score(q, k, scale=1.0):
    return q * k * scale


def mix(a, b, weight=0.5):
    return a * weight + b


def blend(a, b, alpha=0.5):
    return a - b * alpha
"""
OLD_LAYER = """from fup.cache import Indexer, SwaCache, blend, mix, score


class Layer:
    def __init__(self):
        self.cache = SwaCache(dim=4, window=8, backend=None)
        self.indexer = Indexer()

    def run(self, x):
        return score(x, x) + mix(x, x) + blend(x, x)
"""
NEW_LAYER = """from fup.cache import Indexer, SwaCache, blend, mix, score


class Layer:
    def __init__(self):
        self.cache = SwaCache(dim=4, window=8, backend=None)
        self.indexer = Indexer()

    def run(self, x):
        return score(x, x) + mix(x, x, weight=0.2) + blend(x, x, 0.3)
"""
PATCH = """# Note: the fixture device keeps its sliding window in its own block size.
import fup.cache
import fup.layer


class DevSwaCache(fup.cache.SwaCache):
    def __init__(self, dim, window, backend=None):
        super().__init__(dim, window, backend=backend)
        self.block = min(window, 16)


class DevIndexer(fup.cache.Indexer):
    def forward(self, x, pos):
        y = x * 4
        return y + pos


def score(q, k):
    return q @ k


def mix(a, b):
    return a + b + 1


def blend(a, b):
    return a - b - 1


fup.layer.SwaCache = DevSwaCache
fup.layer.Indexer = DevIndexer
fup.cache.score = score
fup.cache.mix = mix
fup.cache.blend = blend
"""


@pytest.fixture
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    releases = {
        version: {"fup/cache.py": cache, "fup/layer.py": layer}
        for version, cache, layer in (("1.0", OLD_CACHE, OLD_LAYER), ("2.0", NEW_CACHE, NEW_LAYER))
    }
    plugin = {
        "fdev/patch/__init__.py": "from fdev.patch import patch_cache  # noqa: F401\n",
        "fdev/patch/patch_cache.py": PATCH,
    }
    return write_trees(tmp_path, monkeypatch, releases, "fdev", plugin)


def test_parameters_no_call_passes_leave_the_copies_kept(trees: Path) -> None:
    result = audit_trees(trees, "fdev")
    decisions = {a.entry.target: (a.drift.decision, a.drift.evidence[0]) for a in result.entries}
    assert decisions == {
        # no upstream call passes scale: the calls bind to the copy as before
        "fup.cache.score": (
            "retain",
            "upstream changed the signature of the function the plugin replaces by its own "
            "copy, adding scale (with a default), which no upstream call in the target's "
            "module or the modules importing it passes: every call still binds to the copy's "
            "parameters, and the copy runs as the plugin wrote it; take the new parameter in "
            "when a caller starts passing it",
        ),
        # fup.layer, which imports mix, passes weight by keyword
        "fup.cache.mix": (
            "update",
            "upstream fup.cache.mix changed: signature: (a, b) -> (a, b, weight=0.5), body; "
            "the downstream change is not in the new upstream",
        ),
        # fup.layer passes alpha by position
        "fup.cache.blend": (
            "update",
            "upstream fup.cache.blend changed: signature: (a, b) -> (a, b, alpha=0.5), body; "
            "the downstream change is not in the new upstream",
        ),
        # the layer builds the cache without block and packed; the override delegates
        "fup.layer.SwaCache": (
            "retain",
            "the plugin's class derives from SwaCache and inherits the upstream change; of "
            "the methods it overrides (__init__), __init__ changed upstream in the body alone "
            "and the override calls upstream's (super()): the change passes through; the "
            "signature of __init__ changed too, in a way every upstream call still binds to "
            "the override (parameters added with a default that no upstream call passes are "
            "left out); the others are unchanged upstream",
        ),
        # no call passes skip by keyword: the override's own copy of forward still fits
        "fup.layer.Indexer": (
            "retain",
            "the plugin's class derives from Indexer and inherits the upstream change; of the "
            "methods it overrides (forward), forward changed upstream in the body alone, and "
            "the override is the plugin's own copy, which upstream's callers still call the "
            "same way (merge upstream's change into it only if the plugin needs it); the "
            "signature of forward changed too, in a way every upstream call still binds to "
            "the override (parameters added with a default that no upstream call passes are "
            "left out); the others are unchanged upstream",
        ),
    }


def test_a_call_through_the_imported_module_is_read(trees: Path) -> None:
    """A module that imports the target's module by name (``from fup import cache``) and
    calls ``cache.score(q, k, scale=2.0)`` passes the new parameter: the copy needs it."""
    runner = trees / "fup-2.0" / "fup" / "runner.py"
    runner.write_text(
        "from fup import cache\n\n\ndef go(q):\n    return cache.score(q, q, scale=2.0)\n"
    )
    result = audit_trees(trees, "fdev")
    decisions = {a.entry.target: a.drift.decision for a in result.entries}
    assert decisions["fup.cache.score"] == "update"


def test_a_forward_called_with_the_parameter_is_updated(trees: Path) -> None:
    """A call through the object (``self.indexer(x, 1, skip=True)`` runs ``forward``) that
    passes the new parameter by keyword reaches the override, which does not take it."""
    layer = trees / "fup-2.0" / "fup" / "layer.py"
    text = layer.read_text(encoding="utf-8")
    layer.write_text(
        text + "\n    def skip(self, x):\n        return self.indexer(x, 1, skip=True)\n"
    )
    result = audit_trees(trees, "fdev")
    decisions = {a.entry.target: a.drift.decision for a in result.entries}
    assert decisions == {
        "fup.cache.score": "retain",
        "fup.cache.mix": "update",
        "fup.cache.blend": "update",
        "fup.layer.SwaCache": "retain",
        "fup.layer.Indexer": "update",
    }
