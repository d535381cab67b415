"""The store keys and module files taken from the text of paths give what :mod:`pathlib`
gives (``relative_to(root).as_posix()``; ``root / "a/b" / "__init__.py"`` or
``"a/b.py"``), on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree, _module_path
from patchkeeper.runtime.store.cache import SummaryCache


def _pathlib_key(cache: SummaryCache, file: Path) -> str:
    try:
        return file.relative_to(cache.root).as_posix()
    except ValueError:
        return str(file)


@pytest.mark.parametrize("root", ["/", "/srv", "/srv/tree"])
def test_store_keys_are_relative_paths_as_pathlib_makes_them(
    root: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    cache = SummaryCache(Path(root), "salt")
    files = ["/srv/a.py", "/srv", "/srvx/a.py", "/srv/tree/x/y.py", "/a", "/", "rel/x.py"]
    keys = {file: cache._key(Path(file)) for file in files}
    assert keys == {file: _pathlib_key(cache, Path(file)) for file in files}
    if root == "/srv":
        assert keys["/srv/tree/x/y.py"] == "tree/x/y.py"
        assert keys["/srv"] == "."
        assert keys["/srvx/a.py"] == "/srvx/a.py"


def test_module_files_are_the_ones_pathlib_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "tree"
    for relative in ("up/__init__.py", "up/a.py", "up/b/__init__.py", "up/b/c.py", "up/d.txt"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text("")
    (root / "up" / "e.py").mkdir()  # a folder named like a module file
    tree = UpstreamTree(root, ("up",))
    modules = ["up", "up.a", "up.b", "up.b.c", "up.d", "up.e", "up.x", "", "up..a", ".up", "up."]
    found = {module: tree.module_file(module) for module in modules}
    assert found == {module: _module_path(tree.root, module) for module in modules}
    assert found["up.b"] == (tree.root / "up" / "b" / "__init__.py", True)
    assert found["up.b.c"] == (tree.root / "up" / "b" / "c.py", False)
    # pathlib reads "up..a" as up/a and "up." as up/: the text version follows it there too
    assert found["up..a"] == found["up.a"] and found["up."] == found["up"]
    assert [m for m, f in found.items() if f is None] == ["up.d", "up.e", "up.x", "", ".up"]
