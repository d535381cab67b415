"""Upgrades audited on Debian's orig tarballs (``benchmarks/mine_debian.py`` and
``benchmarks/accuracy.py``) on written fixtures: no network.

The trees, series and tarballs are written here in the shape of the real ones: a project
whose sdist leaves its tests out while the orig tarball (the upstream source as released,
which Debian's series applies to) has them.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from benchmark_scripts import load

accuracy = load("accuracy")
mine = load("mine_debian")

CORE_1 = "def greet(name):\n    return 'hello ' + name\n\n\ndef shout(name):\n    return name\n"
#: 2.0 has the fix of b.patch (shout upper-cases) and moved nothing else.
CORE_2 = CORE_1.replace("return name\n", "return name.upper()\n")
TEST = "from foo.core import greet\n\n\ndef test_greet():\n    assert greet('a') == 'hello a'\n"

#: Kept by Debian: greets with a comma, and tests it (the test file is not in the sdist).
A_PATCH = """\
Description: greet with a comma
Forwarded: not-needed
--- a/foo/core.py
+++ b/foo/core.py
@@ -1,5 +1,5 @@
 def greet(name):
-    return 'hello ' + name
+    return 'hello, ' + name
 
 
 def shout(name):
--- a/tests/test_core.py
+++ b/tests/test_core.py
@@ -2,4 +2,4 @@
 
 
 def test_greet():
-    assert greet('a') == 'hello a'
+    assert greet('a') == 'hello, a'
"""
#: Dropped by Debian: upstream 2.0 has it.
B_PATCH = """\
Description: shout in capitals
Origin: upstream, https://example.org/foo/commit/0123456789abcdef0123456789abcdef01234567
--- a/foo/core.py
+++ b/foo/core.py
@@ -3,4 +3,4 @@
 
 
 def shout(name):
-    return name
+    return name.upper()
"""


def write_tree(root: Path, core: str, tests: bool) -> Path:
    """An upstream tree of foo: ``foo/core.py``, with ``tests/test_core.py`` when ``tests``."""
    (root / "foo").mkdir(parents=True)
    (root / "foo" / "__init__.py").write_text("", encoding="utf-8")
    (root / "foo" / "core.py").write_text(core, encoding="utf-8")
    if tests:
        (root / "tests").mkdir()
        (root / "tests" / "test_core.py").write_text(TEST, encoding="utf-8")
    return root


def series() -> object:
    """The bookworm series of python-foo 1.0-1 and what trixie's 2.0-1 did to it."""
    return mine.Series(
        entries=[("a.patch", None)],
        old_texts={"a.patch": A_PATCH},
        new_texts={"a.patch": A_PATCH},
        between=[],
        to="2.0",
        label="trixie 2.0-1",
    )


def test_the_orig_tarball_is_the_main_one_not_a_component() -> None:
    checksums = (
        f"{'1' * 64} 2101 python-foo_1.0-1.dsc "
        f"{'2' * 64} 512 python-foo_1.0.orig-docs.tar.gz "
        f"{'3' * 64} 61234 python-foo_1.0.orig.tar.xz "
        f"{'4' * 64} 9932 python-foo_1.0-1.debian.tar.xz"
    )
    orig = mine.orig_tarball(checksums, "pool/main/p/python-foo")
    assert orig == accuracy.OrigTarball(
        "python-foo_1.0.orig.tar.xz", "pool/main/p/python-foo", "3" * 64
    )
    assert mine.orig_size(orig) == 61234
    assert mine.orig_tarball(f"{'4' * 64} 9932 python-foo_1.0-1.debian.tar.xz", "pool/x") is None


def test_a_patch_on_files_the_sdist_lacks_is_judged_on_the_orig_tarballs(tmp_path: Path) -> None:
    sdist_pin = write_tree(tmp_path / "sdist-1.0", CORE_1, tests=False)
    sdist_new = write_tree(tmp_path / "sdist-2.0", CORE_2, tests=False)
    orig_pin = write_tree(tmp_path / "orig-1.0", CORE_1, tests=True)
    orig_new = write_tree(tmp_path / "orig-2.0", CORE_2, tests=True)

    on_sdist = mine.judge(series(), sdist_pin, sdist_new, accuracy.SDIST_TREES)
    assert on_sdist.rows == []
    assert dict(on_sdist.left_out) == {mine.SDIST_LACKS: 1}

    on_orig = mine.judge(series(), orig_pin, orig_new, accuracy.ORIG_TREES)
    assert dict(on_orig.left_out) == {}
    assert dict(on_orig.truths) == {"carried": 1}
    assert on_orig.patches() == 1
    assert on_orig.rows == [
        "",
        '[patches."a.patch"]',
        'truth = "carried"',
        'why = "kept with the same 4 changed lines"',
        'source = "trixie 2.0-1 debian/patches/series keeps a.patch"',
    ]
    # kept on a file the new orig tarball lacks: no audit of it can judge the patch
    (orig_new / "tests" / "test_core.py").unlink()
    gone = mine.judge(series(), orig_pin, orig_new, accuracy.ORIG_TREES)
    assert dict(gone.left_out) == {mine.NEW_ORIG_LACKS: 1}


def tarball(path: Path, members: dict[str, str]) -> Path:
    """A gzipped tarball of text files (``{path inside: text}``)."""
    with tarfile.open(path, "w:gz") as archive:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_an_orig_tarball_unpacks_as_dpkg_source_lays_it_out(tmp_path: Path) -> None:
    one = tarball(tmp_path / "foo_1.0.orig.tar.gz", {"foo-1.0/foo/core.py": CORE_1})
    (tmp_path / "a").mkdir()
    assert accuracy.unpack_orig(one, tmp_path / "a") == tmp_path / "a" / "foo-1.0"
    assert (tmp_path / "a" / "foo-1.0" / "foo" / "core.py").read_text() == CORE_1
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["foo-1.0"]

    several = tarball(tmp_path / "bar_2.0.orig.tar.gz", {"setup.py": "", "bar/x.py": ""})
    (tmp_path / "b").mkdir()
    root = accuracy.unpack_orig(several, tmp_path / "b")
    assert root == tmp_path / "b" / "bar_2.0"
    assert sorted(p.name for p in root.iterdir()) == ["bar", "setup.py"]

    (tmp_path / "c").mkdir()
    broken = tmp_path / "baz_1.0.orig.tar.gz"
    broken.write_bytes(b"not a tarball")
    with pytest.raises(RuntimeError, match=r"^baz_1\.0\.orig\.tar\.gz cannot be unpacked: "):
        accuracy.unpack_orig(broken, tmp_path / "c")


ORIG_ROW = """\
source = "python-foo"
suite = "bookworm"
debian-version = "1.0-1"
upstream = "foo"
pin = "1.0"
to = "2.0"
to-why = "trixie upstream version (Debian 2.0-1)"
mined = true
trees = "debian-orig"
trees-why = "the sdists lack files the series patches"
pin-orig = {{ file = "python-foo_1.0.orig.tar.gz", directory = "pool/main/p/python-foo", sha256 = "{pin}" }}
to-orig = {{ file = "python-foo_2.0.orig.tar.gz", directory = "pool/main/p/python-foo", sha256 = "{to}" }}

[patches."a.patch"]
truth = "carried"
why = "kept with the same 4 changed lines"
source = "trixie 2.0-1 debian/patches/series keeps a.patch"

[patches."b.patch"]
truth = "upstreamed"
why = "dropped; its DEP-3 header says upstream has it"
source = "Origin: upstream, https://example.org/foo/commit/0123456789abcdef0123456789abcdef01234567"
"""


def test_an_orig_row_is_audited_with_both_directories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(cache))
    # the fetched series, in the layout the miner and debian-series leave in the cache
    fetched = cache / "debian-series" / "bookworm" / "python-foo"
    (fetched / "debian" / "patches").mkdir(parents=True)
    (fetched / "debian" / "patches" / "series").write_text("a.patch\nb.patch\n")
    (fetched / "debian" / "patches" / "a.patch").write_text(A_PATCH)
    (fetched / "debian" / "patches" / "b.patch").write_text(B_PATCH)
    (fetched / "python-foo_1.0-1.debian.tar.xz").write_bytes(b"")
    (fetched / accuracy.VERSION_FILE).write_text("1.0\n")
    # both orig tarballs, unpacked where fetch_orig keeps them
    origs = cache / accuracy.ORIG_CACHE
    write_tree(origs / "python-foo_1.0.orig.tar.gz" / "foo-1.0", CORE_1, tests=True)
    write_tree(origs / "python-foo_2.0.orig.tar.gz" / "foo-2.0", CORE_2, tests=True)
    row = tmp_path / "python-foo.bookworm-trixie.toml"
    row.write_text(ORIG_ROW.format(pin="5" * 64, to="6" * 64))

    upgrade = accuracy.load_upgrade(row, "development")
    assert upgrade.trees == accuracy.ORIG_TREES
    assert upgrade.to_orig == accuracy.OrigTarball(
        "python-foo_2.0.orig.tar.gz", "pool/main/p/python-foo", "6" * 64
    )
    result = accuracy.run_upgrade(upgrade)
    assert result.error is None
    assert result.warnings == []
    assert result.target == f"directory {origs / 'python-foo_2.0.orig.tar.gz' / 'foo-2.0'}"
    got = [(p.name, p.verdict, p.action, p.baseline_action) for p in result.patches]
    assert got == [
        ("a.patch", "clean", "carry", "carry"),
        ("b.patch", "upstreamed", "retire", "retire"),
    ]
    table = accuracy.three_way([result])
    assert dict(table["all"]) == {"patches": 2, "right": 2}


def test_an_orig_row_names_both_tarballs(tmp_path: Path) -> None:
    row = tmp_path / "x.toml"
    row.write_text(ORIG_ROW.format(pin="5" * 64, to="6" * 64).replace("to-orig", "#"))
    with pytest.raises(accuracy.UpgradeFileError) as error:
        accuracy.load_upgrade(row)
    assert str(error.value) == f"{row}: trees = 'debian-orig' needs pin-orig and to-orig"
    row.write_text(ORIG_ROW.format(pin="5" * 64, to="not hex"))
    with pytest.raises(accuracy.UpgradeFileError) as error:
        accuracy.load_upgrade(row)
    assert str(error.value) == f"{row}: key 'to-orig': a bare file name and a SHA-256 in hex"
