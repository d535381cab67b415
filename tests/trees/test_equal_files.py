"""verify's untouched files: a pair found equal is not read again while neither file changed;
an edit that keeps the size and the modification time is still found (the change time)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from patchkeeper.trees.equal_cache import cache_dir
from patchkeeper.trees.tree import DIRECTORY, Pristine, Tree
from patchkeeper.trees.untouched_files import untouched_drift

OLD_NS = 1_600_000_000 * 10**9  # September 2020: long past the racy window


def _tree(root: Path, files: dict[str, bytes]) -> Tree:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.utime(path, ns=(OLD_NS, OLD_NS))
    return Tree(DIRECTORY, root, root, f"directory {root}")


def _drift(target: Tree, pristine: Tree) -> list[tuple[str, str | None, str | None]]:
    found, _ = untouched_drift(target, Pristine("pristine", tree=pristine), set())
    return [(check.path, check.expected_sha256, check.actual_sha256) for check in found]


FILES = {"pkg/a.py": b"a = 1\n", "pkg/b.py": b"b = 2\n", "setup.py": b"setup()\n"}


@pytest.fixture
def trees(tmp_path: Path, private_cache: Path) -> tuple[Tree, Tree]:
    return _tree(tmp_path / "target", FILES), _tree(tmp_path / "pristine", FILES)


def test_equal_pairs_are_remembered_once_their_change_time_is_old(
    trees: tuple[Tree, Tree], monkeypatch: pytest.MonkeyPatch
) -> None:
    target, pristine = trees
    assert _drift(target, pristine) == []
    # the files were just written (their change time is now): nothing remembered yet
    assert not cache_dir().exists()
    real = time.time_ns
    monkeypatch.setattr(time, "time_ns", lambda: real() + 10**10)
    assert _drift(target, pristine) == []
    (store,) = cache_dir().iterdir()
    assert store.name.endswith(".marshal")


def test_an_edit_keeping_size_and_mtime_is_found(
    trees: tuple[Tree, Tree], monkeypatch: pytest.MonkeyPatch
) -> None:
    target, pristine = trees
    now = time.time_ns
    monkeypatch.setattr(time, "time_ns", lambda: now() + 10**10)  # every file is old
    assert _drift(target, pristine) == []
    assert len(list(cache_dir().iterdir())) == 1
    edited = target.root / "pkg" / "a.py"
    edited.write_bytes(b"a = 9\n")  # same size
    os.utime(edited, ns=(OLD_NS, OLD_NS))  # same modification time; the change time moves
    assert _drift(target, pristine) == [
        (
            "pkg/a.py",
            "cb78bd8a17f7b751fe0d4663366dcbc257204033ef7ddd64b1f2969573b5b2e2",
            "510e191b2d8265cb0043ae2cef914ff264e128dca40545c96708cd7966829acb",
        )
    ]
