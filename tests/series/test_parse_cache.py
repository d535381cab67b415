"""The parse cache: a cached parse equals a fresh one; changed bytes are parsed again."""

from __future__ import annotations

import builtins
import os
import time
from pathlib import Path

import pytest

from patchkeeper.series.parse import load_patches, parse_series, render_patch
from patchkeeper.series.parse_cache import cache_dir

FIRST = b"""\
Subject: two files, a missing newline, a trailer

--- exported from 0123456789abcdef0123456789abcdef01234567
diff --git a/pkg/a.py b/pkg/a.py
index 1111111..2222222 100644
--- a/pkg/a.py
+++ b/pkg/a.py
@@ -1,3 +1,4 @@ def f():
 one
-two
+TWO
+three
 four
@@ -10,2 +11,2 @@
 ten
-eleven
\\ No newline at end of file
+ELEVEN
\\ No newline at end of file
diff --git a/pkg/new.py b/pkg/new.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/pkg/new.py
@@ -0,0 +1,2 @@
+import os\r
+X = 1
-- SIGNATURE
2.39.5
""".replace(b"-- SIGNATURE", b"-- ")  # git's "-- " line
SECOND = b"""\
--- a/pkg/b.py
+++ b/pkg/b.py
@@ -2 +2 @@
-old
+new
"""


@pytest.fixture
def series(tmp_path: Path, private_cache: Path) -> Path:
    patches = tmp_path / "patches"
    patches.mkdir()
    (patches / "first.patch").write_bytes(FIRST)
    (patches / "second.patch").write_bytes(SECOND)
    (patches / "series").write_text("first.patch\nsecond.patch -p1\n", encoding="utf-8")
    return patches / "series"


def test_a_cached_parse_equals_a_fresh_one(series: Path, tmp_path: Path) -> None:
    fresh = load_patches(parse_series(series), 1, cache=False)
    assert not (tmp_path / "cache").exists()  # cache=False neither reads nor writes
    first = load_patches(parse_series(series), 1)
    stores = sorted(p.name for p in (tmp_path / "cache" / "series").iterdir())
    assert len(stores) == 1 and stores[0].endswith(".marshal")
    cached = load_patches(parse_series(series), 1)
    assert cached == first == fresh
    assert [render_patch(p) for p in cached] == [FIRST, SECOND]
    hunk = cached[0].files[0].hunks[1]
    assert (hunk.kinds, hunk.line_nos) == (" -+", (15, 16, 18))
    assert [(line.kind, line.text, line.line_no) for line in hunk.lines] == [
        (" ", b"ten\n", 15),
        ("-", b"eleven", 16),
        ("+", b"ELEVEN", 18),
    ]
    assert cached[0].files[1].hunks[0].post_image == (b"import os\r\n", b"X = 1\n")
    assert cache_dir() == tmp_path / "cache" / "series"


def test_changed_bytes_with_the_same_size_and_time_are_parsed_again(series: Path) -> None:
    load_patches(parse_series(series), 1)
    second = series.parent / "second.patch"
    stamp = second.stat()
    changed = SECOND.replace(b"+new", b"+NEW")
    assert len(changed) == len(SECOND)
    second.write_bytes(changed)
    os.utime(second, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    patches = load_patches(parse_series(series), 1)
    assert patches[1].files[0].hunks[0].post_image == (b"NEW\n",)
    assert patches == load_patches(parse_series(series), 1, cache=False)


def test_another_strip_level_is_another_parse(series: Path) -> None:
    load_patches(parse_series(series), 1)
    series.write_text("first.patch\nsecond.patch -p0\n", encoding="utf-8")
    patches = load_patches(parse_series(series), 1)
    assert patches[1].files[0].path == "b/pkg/b.py"  # the new name, unstripped


def test_a_damaged_store_is_read_as_empty(series: Path) -> None:
    expected = load_patches(parse_series(series), 1)
    (store,) = cache_dir().iterdir()
    store.write_bytes(b"\x00not marshal")
    assert load_patches(parse_series(series), 1) == expected
    assert store.read_bytes() != b"\x00not marshal"  # written again


def test_an_unchanged_file_is_not_read_and_an_edit_is_found(
    series: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = time.time_ns
    monkeypatch.setattr(time, "time_ns", lambda: real() + 10**10)  # the files are old now
    expected = load_patches(parse_series(series), 1)
    reads: list[str] = []

    def counting(real_open):
        def counting_open(file, *args, **kwargs):
            reads.append(os.path.basename(str(file)))
            return real_open(file, *args, **kwargs)

        return counting_open

    # a patch is read through os.open (read_regular), other files through open
    monkeypatch.setattr(builtins, "open", counting(builtins.open))
    monkeypatch.setattr(os, "open", counting(os.open))
    assert load_patches(parse_series(series), 1) == expected
    assert [name for name in reads if name.endswith(".patch")] == []
    second = series.parent / "second.patch"
    stamp = second.stat()
    second.write_bytes(SECOND.replace(b"+new", b"+NEW"))  # same size
    os.utime(second, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # same modification time
    patches = load_patches(parse_series(series), 1)
    assert [name for name in reads if name.endswith(".patch")] == ["second.patch"]
    assert patches[1].files[0].hunks[0].post_image == (b"NEW\n",)
