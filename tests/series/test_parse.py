"""Reading series files and patches: exact structure, line numbers, errors, round trip."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchkeeper.errors import PatchFormatError
from patchkeeper.series.parse import parse_patch, parse_series, render_patch, split_lines

P = Path("x.patch")


def parse(data: bytes, strip: int = 1):
    return parse_patch(data, name="x.patch", path=P, strip=strip)


SEED_SHAPE = b"""\
[qwen38] engine-stall-sentinel

Warn once per episode when no step completes.

Kind: feature
What: daemon thread warns when no step completes
Upstream: none
Cut-against: 0.32.0
Retires-when: upstreamed
--- exported from 0123456789abcdef0123456789abcdef01234567
diff --git a/envs.py b/envs.py
index 1111111..2222222 100644
--- a/envs.py
+++ b/envs.py
@@ -1,3 +1,4 @@
 import os
+VLLM_ENGINE_STALL_SENTINEL_S = 0
 
 def get():
diff --git a/engine/stall.py b/engine/stall.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/engine/stall.py
@@ -0,0 +1,2 @@
+import threading
+STALL = None
"""


def test_seed_shape_preamble_and_two_files() -> None:
    patch = parse(SEED_SHAPE)
    assert patch.preamble_lines == 10
    assert patch.preamble.endswith(b"--- exported from 0123456789abcdef0123456789abcdef01234567\n")
    assert [(f.kind, f.old_path, f.new_path, f.line_no) for f in patch.files] == [
        ("modify", "envs.py", "envs.py", 11),
        ("create", None, "engine/stall.py", 20),
    ]
    hunk = patch.files[0].hunks[0]
    assert (hunk.index, hunk.line_no, hunk.header) == (1, 15, "@@ -1,3 +1,4 @@")
    assert hunk.pre_image == (b"import os\n", b"\n", b"def get():\n")
    assert hunk.post_image == (
        b"import os\n",
        b"VLLM_ENGINE_STALL_SENTINEL_S = 0\n",
        b"\n",
        b"def get():\n",
    )
    assert (hunk.prefix_context, hunk.suffix_context) == (1, 2)
    assert [line.line_no for line in hunk.lines] == [16, 17, 18, 19]
    created = patch.files[1]
    assert created.new_mode == "100644"
    assert created.hunks[0].post_image == (b"import threading\n", b"STALL = None\n")
    assert render_patch(patch) == SEED_SHAPE


def test_git_rename_delete_and_mode_change() -> None:
    data = b"""\
diff --git a/old/name.py b/new/name.py
similarity index 90%
rename from old/name.py
rename to new/name.py
index 1111111..2222222 100644
--- a/old/name.py
+++ b/new/name.py
@@ -1,2 +1,2 @@
-a = 1
+a = 2
 b = 2
diff --git a/gone.py b/gone.py
deleted file mode 100644
index 3333333..0000000
--- a/gone.py
+++ /dev/null
@@ -1 +0,0 @@
-x = 1
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
"""
    patch = parse(data)
    assert [(f.kind, f.old_path, f.new_path, f.old_mode, f.new_mode) for f in patch.files] == [
        ("rename", "old/name.py", "new/name.py", "100644", "100644"),
        ("delete", "gone.py", None, "100644", None),
        ("mode", "run.sh", "run.sh", "100644", "100755"),
    ]
    assert render_patch(patch) == data


def test_no_newline_marker_strips_the_line_ending() -> None:
    data = b"""\
--- a/f.txt
+++ b/f.txt
@@ -1,2 +1,2 @@
 keep
-last
\\ No newline at end of file
+last changed
\\ No newline at end of file
"""
    hunk = parse(data).files[0].hunks[0]
    assert hunk.pre_image == (b"keep\n", b"last")
    assert hunk.post_image == (b"keep\n", b"last changed")
    assert render_patch(parse(data)) == data


def test_crlf_content_lines_keep_their_carriage_return() -> None:
    data = b"--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n"
    hunk = parse(data).files[0].hunks[0]
    assert hunk.pre_image == (b"a\r\n", b"b\r\n")
    assert hunk.post_image == (b"a\r\n", b"c\r\n")


def test_whole_patch_in_crlf_is_read_as_lf() -> None:
    data = b"--- a/w.txt\r\n+++ b/w.txt\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n"
    diff = parse(data).files[0]
    assert diff.path == "w.txt"
    assert diff.hunks[0].pre_image == (b"a\n", b"b\n")


def test_whole_git_mail_in_crlf_ends_at_its_signature() -> None:
    """A ``git format-patch`` mail saved with CRLF line ends (a mail client, Windows, git's
    ``core.autocrlf``): GNU patch and quilt strip the CRs and stop at the ``-- `` line.
    Before: "hunk #1 of w.txt ... has more lines than its header counts: line 8 continues
    it" (the ``-- \\r`` line read as a removed line) and the hint "edited by hand"."""
    data = (
        b"Subject: [PATCH] change b\r\n\r\n---\r\n"
        b"--- a/w.txt\r\n+++ b/w.txt\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n"
        b"-- \r\n2.39.5\r\n\r\n"
    )
    patch = parse(data)
    hunk = patch.files[0].hunks[0]
    assert (hunk.pre_image, hunk.post_image) == ((b"a\n", b"b\n"), (b"a\n", b"c\n"))
    assert render_patch(patch) == data


def test_index_style_header_and_p0() -> None:
    data = b"""\
Description: quilt style
Index: pkg/mod.py
===================================================================
--- pkg.orig/mod.py
+++ pkg/mod.py
@@ -1 +1 @@
-x
+y
"""
    patch = parse(data, strip=1)
    assert patch.preamble == b"Description: quilt style\n"
    assert patch.files[0].path == "mod.py"
    assert patch.files[0].line_no == 4
    assert render_patch(patch) == data


def test_gbp_signature_is_trailer() -> None:
    data = b"Subject: x\n---\n f | 1 +\n\n--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+b\n-- \n2.39.2\n\n"
    patch = parse(data)
    assert patch.preamble == b"Subject: x\n---\n f | 1 +\n\n"
    assert patch.trailer == b"-- \n2.39.2\n\n"
    assert render_patch(patch) == data


def test_signature_without_its_trailing_space_is_trailer() -> None:
    # mail or an editor stripped the space of "-- ": GNU patch reads the hunk by its counts
    data = b"Subject: x\n---\n f | 1 +\n\n--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+b\n--\n2.31.1\n\n"
    patch = parse(data)
    assert [line.text for line in patch.files[0].hunks[0].lines] == [b"a\n", b"b\n"]
    assert patch.trailer == b"--\n2.31.1\n\n"
    assert render_patch(patch) == data


def test_a_bare_double_dash_before_another_hunk_is_not_a_signature() -> None:
    # "--" followed by more diff is not a signature: the next hunk has no file
    data = b"--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+b\n--\n@@ -5 +6 @@\n-c\n+d\n"
    with pytest.raises(PatchFormatError) as caught:
        parse(data)
    assert caught.value.message == "hunk before any file header"


@pytest.mark.parametrize(
    ("data", "line", "message"),
    [
        (
            b"intro\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n+extra\n",
            8,
            "hunk #1 of f (@@ -1,2 +1,2 @@) has more lines than its header counts (2 old, 2 new)"
            ": line 8 continues it",
        ),
        (
            # short by other counts on each side: no chopped blank context line fills that
            b"--- a/f\n+++ b/f\n@@ -1,4 +1,3 @@\n a\n-b\n+c\n",
            6,
            "truncated hunk: the patch ends before the line counts of its header are met",
        ),
        (
            b"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+c\ndiff --git a/g b/g\n",
            7,
            "hunk line counts do not add up: expected a hunk line (' ', '-', '+'), got "
            "'diff --git a/g b/g'",
        ),
        (b"Subject: x\n\n@@ -1 +1 @@\n-a\n+b\n", 3, "hunk before any file header"),
        (
            b"diff --git a/img.png b/img.png\nindex 1..2 100644\nGIT binary patch\nliteral 5\n",
            1,
            "binary diff for img.png: patchkeeper applies text diffs only",
        ),
    ],
)
def test_malformed_patch_names_file_and_line(data: bytes, line: int, message: str) -> None:
    with pytest.raises(PatchFormatError) as caught:
        parse(data)
    error = caught.value
    assert (error.path, error.line, error.message) == (P, line, message)
    assert str(error).startswith(f"x.patch:{line}: ")


def test_strip_level_too_deep_is_an_error() -> None:
    with pytest.raises(PatchFormatError) as caught:
        parse(b"--- f\n+++ f\n@@ -1 +1 @@\n-a\n+b\n", strip=1)
    assert caught.value.message == "file name 'f' has fewer than 2 path components for -p1"


def test_series_file(tmp_path: Path) -> None:
    series = tmp_path / "series"
    series.write_text("# the series\n\nfirst.patch\n  second.patch -p0 # why\n#off.patch\n")
    entries = parse_series(series).entries
    assert [(e.name, e.line_no, e.strip) for e in entries] == [
        ("first.patch", 3, None),
        ("second.patch", 4, 0),
    ]


def test_a_series_file_with_a_byte_order_mark(tmp_path: Path) -> None:
    """An editor's "UTF-8 with BOM": the mark is not part of the first patch's name (a new
    user's report: "the series lists \ufeffok.patch, which does not exist")."""
    series = tmp_path / "series"
    series.write_bytes(b"\xef\xbb\xbffirst.patch\r\nsecond.patch -p0\r\n")
    entries = parse_series(series).entries
    assert [(e.name, e.line_no, e.strip) for e in entries] == [
        ("first.patch", 1, None),
        ("second.patch", 2, 0),
    ]


def test_series_bad_option(tmp_path: Path) -> None:
    series = tmp_path / "series"
    series.write_text("a.patch --fuzz=2\n")
    with pytest.raises(PatchFormatError) as caught:
        parse_series(series)
    assert (caught.value.line, caught.value.message) == (
        1,
        "unknown option '--fuzz=2' after a.patch",
    )


#: A DEP-3 patch in the shape Debian's security backports have: a git From line, a MIME
#: encoded author (whose words, read as a series line, were "unknown option" before).
BACKPORT = (
    "From 1f2e3d4c5b6a79880706f5e4d3c2b1a098765432 Mon Sep 17 00:00:00 2001\n"
    "From: =?utf-8?q?Jos=C3=A9_Dev?= <jose@example.org>\n"
    "Subject: [PATCH] Match request paths case-sensitively\n"
    "Origin: upstream, https://example.org/minihttp/commit/1f2e3d4c\n"
    "---\n"
    " minihttp/core.py | 2 +-\n"
    " 1 file changed, 1 insertion(+), 1 deletion(-)\n"
    "\n"
    "diff --git a/minihttp/core.py b/minihttp/core.py\n"
    "--- a/minihttp/core.py\n+++ b/minihttp/core.py\n@@ -1 +1 @@\n-a\n+b\n"
)


@pytest.mark.parametrize(
    ("text", "line"),
    [(BACKPORT, 9), ("Description: no git line\n\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n", 3)],
)
def test_a_patch_given_as_the_series_file_is_named_as_such(
    tmp_path: Path, text: str, line: int
) -> None:
    """``init --patches fix.patch`` or ``series = "fix.patch"``: the file is a patch, and the
    error says so at its first file diff, with the way to a series."""
    patch = tmp_path / "fix.patch"
    patch.write_text(text, encoding="utf-8")
    with pytest.raises(PatchFormatError) as caught:
        parse_series(patch)
    assert (caught.value.path, caught.value.line, caught.value.message, caught.value.hint) == (
        patch,
        line,
        "this is a patch, not a series file (a series file lists patch names, one a line): "
        "its file diff starts here",
        "write a series file beside it that names it (fix.patch on a line) and give that "
        "file instead ('series' in the configuration, or init's --patches)",
    )


def test_a_series_naming_diff_like_files_is_a_series(tmp_path: Path) -> None:
    series = tmp_path / "series"
    series.write_text("# diff --git a/x b/x\n# --- a/x\n# +++ b/x\ndiff-git.patch\n+++.patch\n")
    assert [e.name for e in parse_series(series).entries] == ["diff-git.patch", "+++.patch"]


def test_split_lines_only_on_newline() -> None:
    assert split_lines(b"a\rb\x0cc\r\nd") == [b"a\rb\x0cc\r\n", b"d"]


@pytest.mark.parametrize(
    ("data", "line", "message"),
    [
        (
            b"",
            1,
            "the patch is empty: no '--- a/FILE' / '+++ b/FILE' or 'diff --git' header "
            "with hunks was found",
        ),
        (
            b"Just some prose.\nNo diff here.\n",
            1,
            "the patch holds no diff: no '--- a/FILE' / '+++ b/FILE' or 'diff --git' header with "
            "hunks was found",
        ),
        (b"Subject: x\n\n--- a/f.py\n+++ b/f.py\n", 3, "the file header for f.py has no hunk"),
    ],
)
def test_a_patch_that_changes_nothing_is_refused(data: bytes, line: int, message: str) -> None:
    with pytest.raises(PatchFormatError) as caught:
        parse(data)
    assert (caught.value.line, caught.value.message) == (line, message)


def test_a_series_entry_listed_twice_is_refused(tmp_path: Path) -> None:
    from patchkeeper.series.parse import load_patches

    (tmp_path / "a.patch").write_bytes(b"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n")
    series = tmp_path / "series"
    series.write_text("a.patch\n# note\na.patch\n")
    with pytest.raises(PatchFormatError) as caught:
        load_patches(parse_series(series), 1)
    assert (caught.value.path, caught.value.line, caught.value.message) == (
        series,
        3,
        "a.patch is listed twice (first on line 1)",
    )


def test_git_hunkless_changes_are_changes() -> None:
    data = (
        b"diff --git a/empty.txt b/empty.txt\nnew file mode 100644\nindex 0000000..e69de29\n"
        b"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
    )
    assert [f.kind for f in parse(data).files] == ["create", "mode"]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b" a\n+b\n+c\n d\n", True),  # one run of insertions between two context lines
        (b"+b\n d\n", False),  # nothing above it: it names only one side
        (b" a\n+b\n", False),  # nothing below it
        (b" a\n+b\n x\n+c\n d\n", False),  # two runs
        (b" a\n-x\n+b\n d\n", False),  # a replacement, not an insertion
        (b" a\n-x\n d\n", False),  # a removal
    ],
)
def test_a_hunk_is_an_insertion_when_it_only_adds_one_run_between_context(
    body: bytes, expected: bool
) -> None:
    old = body.count(b"\n ") + body.startswith(b" ") + body.count(b"\n-") + body.startswith(b"-")
    new = body.count(b"\n ") + body.startswith(b" ") + body.count(b"\n+") + body.startswith(b"+")
    data = b"--- a/f\n+++ b/f\n@@ -1,%d +1,%d @@\n" % (old, new) + body
    (hunk,) = parse(data).files[0].hunks
    assert hunk.is_insertion is expected
