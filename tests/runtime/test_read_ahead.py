"""Summaries read ahead of the static lookups (:func:`patchkeeper.runtime.lookup.resolve.read_ahead`):
the modules a lookup reaches through imports, re-exports and base classes are summarized on
the workers of the running pool, and every resolution is the one of lookups that parse each
module when they reach it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from patchkeeper.runtime import parallel
from patchkeeper.runtime.lookup import resolve
from patchkeeper.runtime.lookup import upstream_tree as upstream
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree

TREE = {
    "up/__init__.py": "",
    "up/entry.py": "from up.mid import Worker\nfrom up.stars import *\n",
    "up/mid.py": "from up.deep.impl import Worker as Worker\n",
    "up/deep/__init__.py": "",
    "up/deep/impl.py": (
        "from up.base import Base\nfrom up.base2 import Other\n\n\n"
        "class Worker(Base, Other):\n    def run(self):\n        pass\n"
    ),
    "up/base.py": "class Base:\n    def step(self):\n        pass\n\n    limit = 3\n",
    "up/base2.py": "class Other:\n    pass\n",
    "up/stars.py": "from up.s1 import *\nfrom up.s2 import *\n",
    "up/s1.py": "def first():\n    pass\n",
    "up/s2.py": "def second():\n    pass\n",
    "up/elsewhere.py": "class Gone:\n    pass\n",
}
TARGETS = [
    "up.entry.Worker.run",  # entry -> mid -> deep.impl
    "up.entry.Worker.step",  # ... -> base (inherited)
    "up.entry.Worker.limit.real",  # an attribute of a value: partial
    "up.entry.second",  # entry re-exports stars, which re-exports s2
    "up.entry.Gone",  # moved: searched in the whole tree
    "up.entry.Nowhere",  # removed
    "other.x",  # outside
]
#: The modules only a lookup's steps reach (none is where a target's lookup starts).
REACHED = {"up.mid", "up.deep.impl", "up.base", "up.stars", "up.s1", "up.s2"}


@pytest.fixture
def tree_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    for rel, text in TREE.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
        os.utime(tmp_path / rel, (1_700_000_000, 1_700_000_000))  # not racy: records are kept
    return tmp_path


def _expected(tree_dir: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    """The resolutions of lookups that parse each module when they reach it (one process,
    no read-ahead)."""
    with monkeypatch.context() as patch:
        patch.setattr(resolve, "read_ahead", lambda tree, targets: None)
        tree = UpstreamTree(tree_dir, ("up",))
        return resolve.resolve_all(tree, TARGETS)


def _parsed_here(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Two usable cores and a pool for a single file; the list returned gets the name of
    each module summarized in this process rather than on a worker, in order."""
    monkeypatch.setattr(parallel, "MIN_FILES", 1)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    here: list[str] = []
    summarize = upstream.summarize
    parent = os.getpid()

    def counted(source: bytes, module: str, file: str, is_package: bool, path: str | None = None):
        if os.getpid() == parent:
            here.append(module)
        return summarize(source, module, file, is_package, path)

    monkeypatch.setattr(upstream, "summarize", counted)
    return here


def test_read_ahead_gives_the_same_resolutions_and_the_parent_parses_none(
    tree_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _expected(tree_dir, monkeypatch)
    assert expected["up.entry.Worker.step"].module == "up.base"
    assert expected["up.entry.Worker.limit.real"].partial == "real"
    assert expected["up.entry.second"].module == "up.s2"
    assert expected["up.entry.Gone"].candidates == ("up.elsewhere.Gone (line 1)",)
    assert expected["up.entry.Nowhere"].status == resolve.REMOVED
    here = _parsed_here(monkeypatch)
    with parallel.shared_workers():
        tree = UpstreamTree(tree_dir, ("up",))
        found = resolve.resolve_all(tree, TARGETS)
    assert found == expected
    assert set(tree.summaries) >= REACHED
    # the lookups without summaries tried both bases: Other's module was summarized ahead
    # too (a record in the store), though the lookup of "step" stops at Base
    assert "up.base2" not in tree.summaries
    assert tree.cache.valid(tree_dir / "up/base2.py")
    # Every module a lookup read was summarized by a worker (each round, the modules the
    # lookups reach next, had two or more: one alone is parsed where it is asked for); only
    # the module the search of "Gone" found is parsed here (a search is not read ahead).
    assert here == ["up.elsewhere"]


def test_without_a_pool_nothing_is_read_ahead(
    tree_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _expected(tree_dir, monkeypatch)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 1)
    tree = UpstreamTree(tree_dir, ("up",))
    assert tree.unread_modules(lambda: resolve._static(tree, "up.entry.Worker.step")) == {
        "up.entry"
    }
    assert resolve.resolve_all(tree, TARGETS) == expected
    assert tree._unread is None


def test_unread_modules_answers_none_for_modules_without_a_summary(tree_dir: Path) -> None:
    tree = UpstreamTree(tree_dir, ("up",))
    assert tree.summary("up.entry") is not None
    unread = tree.unread_modules(lambda: resolve._static(tree, "up.entry.Worker.run"))
    assert unread == {"up.mid"}  # the lookup stopped there: no summary of it yet
    assert "up.mid" not in tree.summaries
    assert resolve._static(tree, "up.entry.Worker.run").module == "up.deep.impl"


def test_summaries_started_early_are_the_ones_read_later(
    tree_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _expected(tree_dir, monkeypatch)
    here = _parsed_here(monkeypatch)
    with parallel.shared_workers():
        tree = UpstreamTree(tree_dir, ("up",))
        tree.start_prefetch(resolve.target_modules(tree, TARGETS))
        assert len(tree._started) == 1  # handed to the pool, not stored yet
        assert not tree.cache.valid(tree_dir / "up/entry.py")
        found = resolve.resolve_all(tree, TARGETS)
        assert tree._started == []
    assert found == expected
    assert here == ["up.elsewhere"]  # as without the early start
    # outside a pool nothing is started: each module is read when asked for
    tree = UpstreamTree(tree_dir, ("up",))
    tree.cache.entries.clear()
    tree.start_prefetch(resolve.target_modules(tree, TARGETS))
    assert tree._started == []


def test_indexes_started_early_are_the_ones_built_when_asked(
    tree_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = UpstreamTree(tree_dir, ("up",), importers=True)
    defined, importers = expected.defined("Worker"), expected.importers("Worker")
    assert defined == [("up.deep.impl", 5)]
    assert importers == [
        ("up.entry", "up.mid", "Worker", 1, 0),
        ("up.mid", "up.deep.impl", "Worker", 1, 0),
    ]
    expected.cache.entries.clear()  # the next trees build their indexes again
    monkeypatch.setattr(parallel, "MIN_FILES", 1)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    monkeypatch.setattr(upstream.nameindex, "INDEX_CHUNK", 3)
    with parallel.shared_workers():
        tree = UpstreamTree(tree_dir, ("up",), importers=True)
        tree.start_indexes()
        assert tree._indexes_started is not None  # handed to the pool, not taken yet
        assert tree._name_sets is None
        assert tree.defined("Worker") == defined
        assert tree._indexes_started is None
        assert tree.importers("Worker") == importers
        assert tree.defined("Gone") == [("up.elsewhere", 1)]
    # outside a pool nothing is started: the indexes are built when first needed
    tree = UpstreamTree(tree_dir, ("up",), importers=True)
    tree.cache.entries.clear()
    tree.start_indexes()
    assert tree._indexes_started is None
    assert tree.defined("Worker") == defined
