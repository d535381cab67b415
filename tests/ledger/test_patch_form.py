"""The form rules of ``export`` (ledger/patch_form.py) on patches parsed in memory."""

from __future__ import annotations

import subprocess
from pathlib import Path

from patchkeeper.ledger.patch_form import Sides, render_in_form
from patchkeeper.series.parse import parse_patch

A_BEFORE = b"def alpha():\n    return 1\n"
A_AFTER = b"def alpha():\n    return 2\n"
B_BEFORE = b"x = 1\n"
D_BEFORE = b"class VeryLongClassNameForTheHunkHeaderText:\n    a = 1\n    b = 2\n    c = 3\n"

QUILT = (
    b"Description: two files\n"
    b"\n"
    b"Index: pkg-1.0/a.py\n"
    b"===================================================================\n"
    b"--- pkg-1.0.orig/a.py\t2024-01-01 00:00:00.000000000 +0000\n"
    b"+++ pkg-1.0/a.py\t2024-01-02 00:00:00.000000000 +0000\n"
    b"@@ -1,2 +1,2 @@\n"
    b" def alpha():\n"
    b"-    return 1\n"
    b"+    return 2\n"
    b"Index: pkg-1.0/b.py\n"
    b"===================================================================\n"
    b"--- pkg-1.0.orig/b.py\t2024-01-01 00:00:00.000000000 +0000\n"
    b"+++ pkg-1.0/b.py\t2024-01-02 00:00:00.000000000 +0000\n"
    b"@@ -1 +1 @@\n"
    b"-x = 1\n"
    b"+x = 2\n"
)


def _patch(data: bytes):
    return parse_patch(data, name="p.patch", path=Path("p.patch"), strip=1)


def _sides(before: dict[str, bytes], after: dict[str, bytes]) -> Sides:
    return Sides(before=before.get, after=after.get)


def test_kept_section_dropped_section_and_a_new_file_in_the_first_sections_form() -> None:
    git = _patch(
        b"diff --git a/a.py b/a.py\n"
        b"index 1111111..2222222 100644\n"
        b"--- a/a.py\n+++ b/a.py\n"
        b"@@ -1,2 +1,2 @@ def alpha():\n"
        b" def alpha():\n-    return 1\n+    return 2\n"
        b"diff --git a/c.py b/c.py\n"
        b"new file mode 100644\n"
        b"index 0000000..3333333\n"
        b"--- /dev/null\n+++ b/c.py\n"
        b"@@ -0,0 +1 @@\n+y = 3\n"
    )
    sides = _sides(
        {"a.py": A_BEFORE, "b.py": B_BEFORE},
        {"a.py": A_AFTER, "b.py": B_BEFORE, "c.py": b"y = 3\n"},
    )
    out = render_in_form(_patch(QUILT), b"Description: two files\n\n", git, sides)
    assert (
        out
        == (
            QUILT[: QUILT.index(b"Index: pkg-1.0/b.py")]  # a.py kept, b.py no longer changed
            + b"Index: pkg-1.0/c.py\n"
            b"===================================================================\n"
            b"--- /dev/null\n"
            b"+++ pkg-1.0/c.py\n"
            b"@@ -0,0 +1 @@\n"
            b"+y = 3\n"
        )
    )


def test_a_deleted_file_gets_dev_null_and_no_hunk_text_without_diff_p() -> None:
    reference = _patch(
        b"Index: pkg-1.0/d.py\n"
        b"===================================================================\n"
        b"--- pkg-1.0.orig/d.py\t2024-01-01 00:00:00.000000000 +0000\n"
        b"+++ pkg-1.0/d.py\t2024-01-02 00:00:00.000000000 +0000\n"
        b"@@ -1,4 +1,4 @@\n"
        b" class VeryLongClassNameForTheHunkHeaderText:\n"
        b"-    a = 1\n"
        b"+    a = 0\n"
        b"     b = 2\n"
        b"     c = 3\n"
    )
    git = _patch(
        b"diff --git a/d.py b/d.py\n"
        b"deleted file mode 100644\n"
        b"index 4444444..0000000\n"
        b"--- a/d.py\n+++ /dev/null\n"
        b"@@ -1,4 +0,0 @@\n"
        b"-class VeryLongClassNameForTheHunkHeaderText:\n"
        b"-    a = 1\n-    b = 2\n-    c = 3\n"
    )
    out = render_in_form(reference, b"", git, _sides({"d.py": D_BEFORE}, {}))
    assert out == (
        b"Index: pkg-1.0/d.py\n"
        b"===================================================================\n"
        b"--- pkg-1.0.orig/d.py\n"
        b"+++ /dev/null\n"
        b"@@ -1,4 +0,0 @@\n"
        b"-class VeryLongClassNameForTheHunkHeaderText:\n"
        b"-    a = 1\n-    b = 2\n-    c = 3\n"
    )


def test_a_changed_hunk_gets_diff_p_text_cut_at_40_bytes() -> None:
    before = D_BEFORE + b"    d = 4\n    e = 5\n    f = 6\n    g = 7\n"
    reference = _patch(
        b"--- a/d.py\n+++ b/d.py\n"
        b"@@ -1,4 +1,4 @@\n"
        b" class VeryLongClassNameForTheHunkHeaderText:\n"
        b"-    a = 1\n+    a = 0\n"
        b"     b = 2\n     c = 3\n"
    )
    after = before.replace(b"    a = 1\n", b"    a = 0\n").replace(b"g = 7", b"g = 8")
    git = _patch(
        b"diff --git a/d.py b/d.py\n"
        b"index 5555555..6666666 100644\n"
        b"--- a/d.py\n+++ b/d.py\n"
        b"@@ -1,4 +1,4 @@\n"
        b" class VeryLongClassNameForTheHunkHeaderText:\n"
        b"-    a = 1\n+    a = 0\n"
        b"     b = 2\n     c = 3\n"
        b"@@ -5,4 +5,4 @@ class VeryLongClassNameForTheHunkHeaderText:\n"
        b"     d = 4\n     e = 5\n     f = 6\n"
        b"-    g = 7\n+    g = 8\n"
    )
    out = render_in_form(reference, b"", git, _sides({"d.py": before}, {"d.py": after}))
    # The file has no hunk text anywhere: quilt ran diff without -p, so none is added.
    assert out.splitlines()[:3] == [b"--- a/d.py", b"+++ b/d.py", b"@@ -1,4 +1,4 @@"]
    assert b"@@ -5,4 +5,4 @@\n" in out
    with_text = _patch(reference.raw.replace(b"@@ -1,4 +1,4 @@\n", b"@@ -1,4 +1,4 @@ x\n"))
    out = render_in_form(with_text, b"", git, _sides({"d.py": before}, {"d.py": after}))
    assert out.splitlines()[2] == b"@@ -1,4 +1,4 @@ x"  # the same hunk keeps its text
    assert b"@@ -5,4 +5,4 @@ class VeryLongClassNameForTheHunkHeaderT\n" in out


def test_a_plain_section_of_an_executable_file_keeps_its_bytes() -> None:
    """A ``---``/``+++`` diff says nothing of modes: a file that is 100755 before and after
    (Pillow's ``setup.py``) does not make the section differ."""
    reference = _patch(b"--- a/run.py\n+++ b/run.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n")
    git = _patch(
        b"diff --git a/run.py b/run.py\n"
        b"index 1111111..2222222 100755\n"
        b"--- a/run.py\n+++ b/run.py\n"
        b"@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    )
    sides = _sides({"run.py": b"x = 1\n"}, {"run.py": b"x = 2\n"})
    assert render_in_form(reference, b"", git, sides) == reference.raw
    mode_change = _patch(
        b"diff --git a/run.py b/run.py\n"
        b"old mode 100644\nnew mode 100755\n"
        b"index 1111111..2222222\n"
        b"--- a/run.py\n+++ b/run.py\n"
        b"@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    )
    # A mode change cannot be said in this form: the section gets git's header.
    assert render_in_form(reference, b"", mode_change, sides) == mode_change.raw


CLIENT = (
    b"def connect(settings):\n"
    b"    try:\n"
    b'        timeout = settings["connect"]\n'
    b"    except KeyError:\n"
    b"        timeout = 10\n"
    b"    return timeout\n"
    b"\n"
    b"\n"
    b"def read(settings):\n"
    b"    try:\n"
    b'        timeout = settings["read"]\n'
    b"    except KeyError:\n"
    b"        timeout = 5\n"
    b"    return timeout\n"
)

#: Two commits' quilt diffs of ``client.py`` joined, with ``b.py``'s between them: the
#: second diff of ``client.py`` is of the file the first leaves.
TWO_OF_ONE = (
    b"Index: pkg-1.0/client.py\n"
    b"===================================================================\n"
    b"--- pkg-1.0.orig/client.py\t2024-01-01 00:00:00.000000000 +0000\n"
    b"+++ pkg-1.0/client.py\t2024-01-02 00:00:00.000000000 +0000\n"
    b"@@ -4,3 +4,3 @@ def connect(settings):\n"
    b"     except KeyError:\n"
    b"-        timeout = 10\n"
    b"+        timeout = 30\n"
    b"     return timeout\n"
    b"Index: pkg-1.0/b.py\n"
    b"===================================================================\n"
    b"--- pkg-1.0.orig/b.py\t2024-01-01 00:00:00.000000000 +0000\n"
    b"+++ pkg-1.0/b.py\t2024-01-02 00:00:00.000000000 +0000\n"
    b"@@ -1 +1 @@\n"
    b"-x = 1\n"
    b"+x = 2\n"
    b"Index: pkg-1.0/client.py\n"
    b"===================================================================\n"
    b"--- pkg-1.0.orig/client.py\t2024-01-03 00:00:00.000000000 +0000\n"
    b"+++ pkg-1.0/client.py\t2024-01-04 00:00:00.000000000 +0000\n"
    b"@@ -12,3 +12,3 @@ def read(settings):\n"
    b"     except KeyError:\n"
    b"-        timeout = 5\n"
    b"+        timeout = 10\n"
    b"     return timeout\n"
)


def _client_git(second: bytes) -> bytes:
    """git's diff of a commit that makes both changes to ``client.py`` (the second block's
    fallback becomes ``second``) and changes ``b.py``."""
    return (
        b"diff --git a/b.py b/b.py\n"
        b"index 1111111..2222222 100644\n"
        b"--- a/b.py\n+++ b/b.py\n"
        b"@@ -1 +1 @@\n-x = 1\n+x = 2\n"
        b"diff --git a/client.py b/client.py\n"
        b"index 3333333..4444444 100644\n"
        b"--- a/client.py\n+++ b/client.py\n"
        b"@@ -4,3 +4,3 @@ def connect(settings):\n"
        b"     except KeyError:\n-        timeout = 10\n+        timeout = 30\n     return timeout\n"
        b"@@ -12,3 +12,3 @@ def read(settings):\n"
        b"     except KeyError:\n-        timeout = 5\n+        timeout = " + second + b"\n"
        b"     return timeout\n"
    )


def test_two_sections_of_one_file_that_make_the_commits_change_stay_in_their_places(
    tmp_path: Path,
) -> None:
    """GNU patch applies the two sections in order and gives the commit's file: export
    writes the patch file as it was, not one section of ``client.py`` in place of two."""
    after = CLIENT.replace(b"= 10", b"= 30").replace(b"= 5\n", b"= 10\n")
    (tmp_path / "pkg-1.0").mkdir()
    (tmp_path / "pkg-1.0" / "client.py").write_bytes(CLIENT)
    (tmp_path / "pkg-1.0" / "b.py").write_bytes(B_BEFORE)
    subprocess.run(
        ["patch", "-p1", "--fuzz", "0", "-s", "--no-backup-if-mismatch"],
        input=TWO_OF_ONE,
        cwd=tmp_path / "pkg-1.0",
        check=True,
    )
    assert (tmp_path / "pkg-1.0" / "client.py").read_bytes() == after
    reference = _patch(TWO_OF_ONE)
    sides = _sides(
        {"client.py": CLIENT, "b.py": B_BEFORE}, {"client.py": after, "b.py": b"x = 2\n"}
    )
    out = render_in_form(reference, b"", _patch(_client_git(b"10")), sides)
    assert out == TWO_OF_ONE


def test_two_sections_of_one_file_the_commit_changed_become_one_in_the_first_ones_form() -> None:
    """The commit sets the second block's fallback to 20: no split of git's diff of the file
    is known to be the user's, so the file gets one section, in the first one's place and
    form."""
    after = CLIENT.replace(b"= 10", b"= 30").replace(b"= 5\n", b"= 20\n")
    sides = _sides(
        {"client.py": CLIENT, "b.py": B_BEFORE}, {"client.py": after, "b.py": b"x = 2\n"}
    )
    out = render_in_form(_patch(TWO_OF_ONE), b"", _patch(_client_git(b"20")), sides)
    first, rest = TWO_OF_ONE.split(b"Index: pkg-1.0/b.py\n")
    b_section = b"Index: pkg-1.0/b.py\n" + rest.split(b"Index: pkg-1.0/client.py\n")[0]
    assert out == (
        first
        + b"@@ -12,3 +12,3 @@ def read(settings):\n"
        + b"     except KeyError:\n"
        + b"-        timeout = 5\n"
        + b"+        timeout = 20\n"
        + b"     return timeout\n"
        + b_section
    )
