"""git's own ``git apply`` tests, as a fuzz-0 applier sees them.

The scenarios of git's ``t/t41NN-apply-*.sh`` (nonl, boundary, multifrag, reverse, empty,
removal, filenames, weird filenames, escape, typechange, criss-cross, samemode, ...) are
written here again as plain trees and patches. Each runs through the real ``git apply`` (in a
directory outside any repository) and through ``patchkeeper apply`` side by side:

- ``AGREE``: both succeed with the same files, bytes and executable bits, or both refuse;
  and whatever patchkeeper applies, ``verify`` calls applied and ``unapply`` undoes exactly;
- a design difference (docs/reliability.md, Limits) pins both tools' exit codes and patchkeeper's
  message, so that the difference cannot change unnoticed.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from engine_support import make_downstream, run, tree_state

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

AGREE = "agree"

L = [f"{c}\n".encode() for c in "cdefghijklmnopqrstuvwx"]
VICTIM = b"b\n" + b"".join(L) + b"y\n"  # t4104's file


@dataclass(frozen=True)
class Scenario:
    """One case: the tree, the patch, how git is run, and what is expected.

    Attributes:
        files: the tree before (path -> bytes); ``modes`` gives executable files.
        patch: the patch (strip 1).
        expect: :data:`AGREE`, or ``(git_exit, patchkeeper_exit, message_part)`` for a
            documented design difference.
        git_args: extra ``git apply`` options (``--unidiff-zero`` for ``diff -U0`` patches,
            which patchkeeper places by their line numbers as git does with that option).
        executable: paths made executable (0o755) before applying.
    """

    files: dict[str, bytes]
    patch: bytes
    expect: object = AGREE
    git_args: tuple[str, ...] = ()
    executable: tuple[str, ...] = ()
    symlinks: dict[str, str] = field(default_factory=dict)


def u(old: bytes, new: bytes, name: str = "f", context: int = 3) -> bytes:
    """A git-style diff of one file made by ``git diff --no-index`` (real git output)."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        a, b = Path(scratch, "a"), Path(scratch, "b")
        a.write_bytes(old)
        b.write_bytes(new)
        done = subprocess.run(
            ["git", "diff", "--no-index", f"-U{context}", "a", "b"],
            cwd=scratch,
            capture_output=True,
            check=False,
        )
    body = done.stdout.split(b"\n", 2)[2]  # drop "diff --git" and "index" lines
    body = body.replace(b"--- a/a\n", f"--- a/{name}\n".encode(), 1)
    body = body.replace(b"+++ b/b\n", f"+++ b/{name}\n".encode(), 1)
    return f"diff --git a/{name} b/{name}\n".encode() + body


def head(lines: list[bytes]) -> bytes:
    return b"".join(lines)


def _rename(source: str, dest: str) -> bytes:
    """A pure rename, as ``git diff -M`` writes it."""
    return (
        f"diff --git a/{source} b/{dest}\nsimilarity index 100%\nrename from {source}\n"
        f"rename to {dest}\n"
    ).encode()


_RENAMED_A = b"".join(b"a%d\n" % n for n in range(10))
_RENAMED_C = b"".join(b"c%d\n" % n for n in range(10))
_MODIFY_A_FROM_C = b"diff --git a/A b/A\n--- a/A\n+++ b/A\n@@ -1,3 +1,3 @@\n c0\n-c1\n+C1\n c2\n"
_MODIFY_A_FROM_A = b"diff --git a/A b/A\n--- a/A\n+++ b/A\n@@ -1,3 +1,3 @@\n a0\n-a1\n+A1\n a2\n"

#: t4132-apply-removal: GNU diff's creations and removals, the epoch in three time zones.
_EPOCHS = {
    "west": ("1969-12-31 16:00:00.000000000 -0800", "1982-09-16 07:00:00.000000000 -0800"),
    "gmt": ("1970-01-01 00:00:00.000000000 +0000", "1982-09-16 15:00:00.000000000 +0000"),
    "east": ("1970-01-01 09:00:00.000000000 +0900", "1982-09-17 00:00:00.000000000 +0900"),
}


def _gnu(old_stamp: str, new_stamp: str, body: bytes) -> bytes:
    """A ``diff -ruN`` file diff of ``file`` with the given header timestamps."""
    return (
        f"diff -ruN a/file b/file\n--- a/file\t{old_stamp}\n+++ b/file\t{new_stamp}\n"
    ).encode() + body


_CREATE_BODY = b"@@ -0,0 +1 @@\n+something\n"
_REMOVE_BODY = b"@@ -1 +0,0 @@\n-something\n"


def _removal_scenarios() -> dict[str, Scenario]:
    """t4132's cases in each time zone: a creation (epoch on the old side) makes the file and
    refuses an existing one; an addition (no epoch) patches an empty file; a removal with the
    epoch on the new side deletes the file, one without it leaves it empty."""
    out = {}
    for zone, (epoch, time) in _EPOCHS.items():
        create = _gnu(epoch, time, _CREATE_BODY)
        out[f"removal-create-{zone}"] = Scenario({"g": b"x\n"}, create)
        out[f"removal-create-{zone}-over-file"] = Scenario({"file": b"other\n"}, create)
        # GNU patch fills an existing empty file; git says "already exists"
        out[f"design-removal-create-{zone}-over-empty-file"] = Scenario(
            {"file": b""}, create, expect=(1, 0, "")
        )
        # the side with the epoch names no file: its name is not used, however short
        out[f"removal-create-{zone}-bare-old-name"] = Scenario(
            {"g": b"x\n"}, create.replace(b"--- a/file", b"--- file")
        )
        out[f"removal-remove-{zone}-bare-new-name"] = Scenario(
            {"file": b"something\n", "g": b"x\n"},
            _gnu(time, epoch, _REMOVE_BODY).replace(b"+++ b/file", b"+++ file"),
        )
        out[f"removal-add-{zone}"] = Scenario({"file": b""}, _gnu(time, time, _CREATE_BODY))
        out[f"removal-empty-{zone}"] = Scenario(
            {"file": b"something\n"}, _gnu(time, time, _REMOVE_BODY)
        )
        out[f"removal-remove-{zone}"] = Scenario(
            {"file": b"something\n", "g": b"x\n"}, _gnu(time, epoch, _REMOVE_BODY)
        )
    return out


SCENARIOS: dict[str, Scenario] = {
    # t4101-apply-nonl: the final newline added, removed, kept missing
    "nonl-add-newline": Scenario({"f": b"a\nb"}, u(b"a\nb", b"a\nb\n")),
    "nonl-remove-newline": Scenario({"f": b"a\nb\n"}, u(b"a\nb\n", b"a\nb")),
    "nonl-change-last-line": Scenario({"f": b"a\nb"}, u(b"a\nb", b"a\nc")),
    "nonl-add-after-last": Scenario({"f": b"a\nb"}, u(b"a\nb", b"a\nb\nc")),
    "nonl-on-file-with-newline": Scenario({"f": b"a\nb\n"}, u(b"a\nb", b"a\nc")),
    # t4104-apply-boundary: add, change, remove at the head and at the tail, with context
    "boundary-add-a": Scenario({"f": VICTIM}, u(VICTIM, b"a\n" + VICTIM)),
    "boundary-mod-a": Scenario({"f": VICTIM}, u(VICTIM, b"a\n" + VICTIM[2:])),
    "boundary-del-a": Scenario({"f": VICTIM}, u(VICTIM, VICTIM[2:])),
    "boundary-add-z": Scenario({"f": VICTIM}, u(VICTIM, VICTIM + b"z\n")),
    "boundary-mod-z": Scenario({"f": VICTIM}, u(VICTIM, VICTIM[:-2] + b"z\n")),
    "boundary-del-z": Scenario({"f": VICTIM}, u(VICTIM, VICTIM[:-2])),
    # ... and without context (git needs --unidiff-zero; patchkeeper places such hunks by
    # their line numbers)
    "boundary-add-a-U0": Scenario(
        {"f": VICTIM}, u(VICTIM, b"a\n" + VICTIM, context=0), git_args=("--unidiff-zero",)
    ),
    "boundary-mod-a-U0": Scenario(
        {"f": VICTIM}, u(VICTIM, b"a\n" + VICTIM[2:], context=0), git_args=("--unidiff-zero",)
    ),
    "boundary-del-a-U0": Scenario(
        {"f": VICTIM}, u(VICTIM, VICTIM[2:], context=0), git_args=("--unidiff-zero",)
    ),
    "boundary-add-z-U0": Scenario(
        {"f": VICTIM}, u(VICTIM, VICTIM + b"z\n", context=0), git_args=("--unidiff-zero",)
    ),
    "boundary-mod-z-U0": Scenario(
        {"f": VICTIM}, u(VICTIM, VICTIM[:-2] + b"z\n", context=0), git_args=("--unidiff-zero",)
    ),
    "boundary-del-z-U0": Scenario(
        {"f": VICTIM}, u(VICTIM, VICTIM[:-2], context=0), git_args=("--unidiff-zero",)
    ),
    # t4104 "two lines": a hunk made against an empty file (index e69de29) on a file that
    # now holds a line
    "boundary-two-lines": Scenario(
        {"f": b"bbb\n"},
        b"diff --git a/f b/f\nindex e69de29..72943a1 100644\n--- a/f\n+++ b/f\n"
        b"@@ -0,0 +1 @@\n+aaa\n",
    ),
    # t4109-apply-multifrag: several hunks in one file; the same file in two file diffs
    "multifrag-three-hunks": Scenario(
        {"f": VICTIM},
        u(VICTIM, VICTIM.replace(b"c\n", b"C\n").replace(b"m\n", b"M\n").replace(b"x\n", b"")),
    ),
    "multifrag-same-file-twice": Scenario(
        {"f": VICTIM},
        u(VICTIM, VICTIM.replace(b"c\n", b"C\n"))
        + u(VICTIM.replace(b"c\n", b"C\n"), VICTIM.replace(b"c\n", b"C\n").replace(b"w\n", b"W\n")),
    ),
    "multifrag-at-an-offset": Scenario(
        {"f": b"new1\nnew2\n" + VICTIM}, u(VICTIM, VICTIM.replace(b"m\n", b"M\n"))
    ),
    # t4116-apply-reverse: what apply does, unapply undoes (checked for every AGREE case);
    # a patch whose context is gone fails in both
    "reverse-context-changed": Scenario(
        {"f": VICTIM.replace(b"l\n", b"L\n")}, u(VICTIM, VICTIM.replace(b"m\n", b"M\n"))
    ),
    # t4105-apply-fuzz: neither tool fuzzes without being asked
    "fuzz-one-context-line-differs": Scenario(
        {"f": VICTIM.replace(b"k\n", b"K\n")}, u(VICTIM, VICTIM.replace(b"m\n", b"M\n"))
    ),
    # t4123/t4124-apply-empty, removal, creation
    "create-file": Scenario(
        {"g": b"x\n"},
        b"diff --git a/f b/f\nnew file mode 100644\nindex 0000000..d00491f\n--- /dev/null\n"
        b"+++ b/f\n@@ -0,0 +1 @@\n+1\n",
    ),
    "create-executable": Scenario(
        {"g": b"x\n"},
        b"diff --git a/f b/f\nnew file mode 100755\nindex 0000000..d00491f\n--- /dev/null\n"
        b"+++ b/f\n@@ -0,0 +1 @@\n+1\n",
    ),
    "create-in-new-directory": Scenario(
        {"g": b"x\n"},
        b"diff --git a/d/e/f b/d/e/f\nnew file mode 100644\nindex 0000000..d00491f\n"
        b"--- /dev/null\n+++ b/d/e/f\n@@ -0,0 +1 @@\n+1\n",
    ),
    "create-empty-file": Scenario(
        {"g": b"x\n"}, b"diff --git a/f b/f\nnew file mode 100644\nindex 0000000..e69de29\n"
    ),
    "create-over-existing-file": Scenario(
        {"f": b"other\n"},
        b"diff --git a/f b/f\nnew file mode 100644\nindex 0000000..d00491f\n--- /dev/null\n"
        b"+++ b/f\n@@ -0,0 +1 @@\n+1\n",
    ),
    "delete-file": Scenario(
        {"f": b"1\n2\n", "g": b"x\n"},
        b"diff --git a/f b/f\ndeleted file mode 100644\nindex 1191247..0000000\n--- a/f\n"
        b"+++ /dev/null\n@@ -1,2 +0,0 @@\n-1\n-2\n",
    ),
    "delete-empty-file": Scenario(
        {"f": b"", "g": b"x\n"},
        b"diff --git a/f b/f\ndeleted file mode 100644\nindex e69de29..0000000\n",
    ),
    "delete-file-with-other-content": Scenario(
        {"f": b"1\n2\n3\n", "g": b"x\n"},
        b"diff --git a/f b/f\ndeleted file mode 100644\nindex 1191247..0000000\n--- a/f\n"
        b"+++ /dev/null\n@@ -1,2 +0,0 @@\n-1\n-2\n",
    ),
    "modify-missing-file": Scenario({"g": b"x\n"}, u(b"a\n", b"b\n")),
    "design-delete-missing-file": Scenario(
        {"g": b"x\n"},
        b"diff --git a/f b/f\ndeleted file mode 100644\nindex 1191247..0000000\n--- a/f\n"
        b"+++ /dev/null\n@@ -1,2 +0,0 @@\n-1\n-2\n",
        expect=(1, 0, "the series is already applied"),
    ),
    # t4102-apply-rename
    "rename-with-change": Scenario(
        {"f": VICTIM},
        b"diff --git a/f b/g\nsimilarity index 90%\nrename from f\nrename to g\n"
        + u(VICTIM, VICTIM.replace(b"m\n", b"M\n"))
        .split(b"\n", 1)[1]
        .replace(b"+++ b/f", b"+++ b/g"),
    ),
    "rename-pure": Scenario(
        {"f": VICTIM}, b"diff --git a/f b/g\nsimilarity index 100%\nrename from f\nrename to g\n"
    ),
    "rename-onto-existing-file": Scenario(
        {"f": VICTIM, "g": b"other\n"},
        b"diff --git a/f b/g\nsimilarity index 100%\nrename from f\nrename to g\n",
    ),
    # t4130-apply-criss-cross-rename: git diff -M -B after swapping two (three) files
    "criss-cross-two": Scenario(
        {"file1": b"some content\n" * 20, "file2": b"other content\n" * 20},
        b"diff --git a/file1 b/file2\nsimilarity index 100%\nrename from file1\nrename to file2\n"
        b"diff --git a/file2 b/file1\nsimilarity index 100%\nrename from file2\nrename to file1\n",
    ),
    "criss-cross-three": Scenario(
        {"f1": b"one\n" * 20, "f2": b"two\n" * 20, "f3": b"three\n" * 20},
        b"diff --git a/f1 b/f3\nsimilarity index 100%\nrename from f1\nrename to f3\n"
        b"diff --git a/f2 b/f1\nsimilarity index 100%\nrename from f2\nrename to f1\n"
        b"diff --git a/f3 b/f2\nsimilarity index 100%\nrename from f3\nrename to f2\n",
    ),
    # ... and a file diff after the renames that names a renamed path: git reads it as the
    # renames left it (A->B, C->A, then A changed: the hunk is on what was C)
    "criss-cross-rename-then-modify": Scenario(
        {"A": _RENAMED_A, "C": _RENAMED_C},
        _rename("A", "B") + _rename("C", "A") + _MODIFY_A_FROM_C,
    ),
    "criss-cross-modify-on-the-old-content": Scenario(
        {"A": _RENAMED_A, "C": _RENAMED_C},
        _rename("A", "B") + _rename("C", "A") + _MODIFY_A_FROM_A,
    ),
    # t4129-apply-samemode
    "samemode-index-mode-keeps-executable": Scenario(
        {"file": b"original\n"},
        u(b"original\n", b"modified\n", "file").replace(
            b"--- a/file", b"index 4f4c1b3..2e0996000 100644\n--- a/file", 1
        ),
        executable=("file",),
    ),
    # an index line's mode that the file does not have: git warns, neither tool changes it
    "samemode-index-mode-differs": Scenario(
        {"file": b"original\n"},
        u(b"original\n", b"modified\n", "file").replace(
            b"--- a/file", b"index 4f4c1b3..2e09960 100755\n--- a/file", 1
        ),
    ),
    "samemode-mode-update": Scenario(
        {"file": b"original\n"},
        b"diff --git a/file b/file\nold mode 100644\nnew mode 100755\n"
        + u(b"original\n", b"modified\n", "file").split(b"\n", 1)[1],
    ),
    # the executable bit taken away with a change of content; undone, it comes back
    "samemode-mode-update-to-regular": Scenario(
        {"file": b"original\n"},
        b"diff --git a/file b/file\nold mode 100755\nnew mode 100644\n"
        + u(b"original\n", b"modified\n", "file").split(b"\n", 1)[1],
        executable=("file",),
    ),
    "samemode-mode-only": Scenario(
        {"file": b"original\n"}, b"diff --git a/file b/file\nold mode 100644\nnew mode 100755\n"
    ),
    "samemode-empty-mode": Scenario(
        {"file": b"original\n"},
        b"diff --git a/file b/file\nold mode 100644\nnew mode \n"
        + u(b"original\n", b"modified\n", "file").split(b"\n", 1)[1],
    ),
    "samemode-bogus-mode": Scenario(
        {"file": b"original\n"},
        b"diff --git a/file b/file\nold mode 100644\nnew mode garbage\n"
        + u(b"original\n", b"modified\n", "file").split(b"\n", 1)[1],
    ),
    # t4133-apply-filenames
    "filenames-inconsistent-new": Scenario(
        {"g": b"x\n"},
        b"diff --git a/f b/f\nnew file mode 100644\nindex 0000000..d00491f\n--- /dev/null\n"
        b"+++ b/f-blah\n@@ -0,0 +1 @@\n+1\n",
    ),
    "filenames-inconsistent-old": Scenario(
        {"f": b"1\n"},
        b"diff --git a/f b/f\ndeleted file mode 100644\nindex d00491f..0000000\n--- b/f-blah\n"
        b"+++ /dev/null\n@@ -1 +0,0 @@\n-1\n",
    ),
    "filenames-missing-new-line": Scenario(
        {"f": b"1\n"}, b"diff --git a/f b/f\n--- a/f\n@@ -1 +1 @@\n-1\n+2\n"
    ),
    "filenames-missing-old-line": Scenario(
        {"f": b"1\n"}, b"diff --git a/f b/f\n+++ b/f\n@@ -1 +1 @@\n-1\n+2\n"
    ),
    # t4135-apply-weird-filenames
    "weird-with-spaces-git": Scenario(
        {"g": b"x\n"},
        b"diff --git a/post image.txt b/post image.txt\nnew file mode 100644\n"
        b"index 0000000..eaa3b9b\n--- /dev/null\n+++ b/post image.txt\n@@ -0,0 +1 @@\n"
        b"+postimage\n",
    ),
    "weird-with-spaces-traditional": Scenario(
        {"post image.txt": b"preimage\n"},
        b"--- a/post image.txt\t2010-08-18 20:13:31.000000000 -0500\n"
        b"+++ b/post image.txt\t2010-08-18 20:13:31.000000000 -0500\n"
        b"@@ -1 +1 @@\n-preimage\n+postimage\n",
    ),
    "weird-traditional-creation": Scenario(
        {"g": b"x\n"},
        b"--- /dev/null\t1969-12-31 19:00:00.000000000 -0500\n"
        b"+++ b/postimage.txt\t2010-08-18 20:13:31.000000000 -0500\n"
        b"@@ -0,0 +1 @@\n+postimage\n",
    ),
    # ... and over a file that is there: both refuse ("already exists"), nothing written
    "weird-traditional-creation-over-file": Scenario(
        {"postimage.txt": b"other\n"},
        b"--- /dev/null\t1969-12-31 19:00:00.000000000 -0500\n"
        b"+++ b/postimage.txt\t2010-08-18 20:13:31.000000000 -0500\n"
        b"@@ -0,0 +1 @@\n+postimage\n",
    ),
    "weird-whitespace-damaged": Scenario(
        {"g": b"x\n"},
        b"--- /dev/null   1969-12-31 19:00:00 -0500\n"
        b"+++ b/postimage.txt   2010-08-18 20:13:31 -0500\n@@ -0,0 +1 @@\n+postimage\n",
    ),
    "weird-colon-in-timezone": Scenario(
        {"g": b"x\n"},
        b"--- /dev/null\t1969-12-31 19:00:00.000000000 -05:00\n"
        b"+++ b/post image.txt\t2010-08-18 20:13:31.000000000 -05:00\n"
        b"@@ -0,0 +1 @@\n+postimage\n",
    ),
    "weird-damaged-colon-in-timezone": Scenario(
        {"g": b"x\n"},
        b"--- /dev/null   1969-12-31 19:00:00 -05:00\n"
        b"+++ b/post image.txt   2010-08-18 20:13:31 -05:00\n@@ -0,0 +1 @@\n+postimage\n",
    ),
    "weird-with-quote": Scenario(
        {"g": b"x\n"},
        b'diff --git "a/\\"postimage\\".txt" "b/\\"postimage\\".txt"\nnew file mode 100644\n'
        b'index 0000000..eaa3b9b\n--- /dev/null\n+++ "b/\\"postimage\\".txt"\n'
        b"@@ -0,0 +1 @@\n+postimage\n",
    ),
    "weird-unquoted-tab-ends-the-name": Scenario(
        {"g": b"x\n"}, b"--- /dev/null\n+++ b/post\timage.txt\n@@ -0,0 +1 @@\n+postimage\n"
    ),
    # t4135 "with tab": GNU diff writes the name unquoted, then a tab and the timestamp; git
    # reads 'post<TAB>image.txt', GNU patch 'post': refused by name
    "design-traditional-creation-tab-in-name": Scenario(
        {"g": b"x\n"},
        b"diff -pruN a/post\timage.txt b/post\timage.txt\n"
        b"--- a/post\timage.txt\t1969-12-31 18:00:00.000000000 -0600\n"
        b"+++ b/post\timage.txt\t2010-08-18 20:13:31.628002255 -0500\n"
        b"@@ -0,0 +1 @@\n+postimage\n",
        expect=(0, 2, "the file name 'a/post\\timage.txt' holds a tab"),
    ),
    "design-traditional-tab-in-name": Scenario(
        {"post\timage.txt": b"preimage\n"},
        b"--- a/post\timage.txt.orig\t2010-08-18 20:13:31.616002255 -0500\n"
        b"+++ b/post\timage.txt\t2010-08-18 20:13:31.616002255 -0500\n"
        b"@@ -1 +1 @@\n-preimage\n+postimage\n",
        expect=(0, 2, "git apply reads 'a/post\\timage.txt.orig', GNU patch 'a/post'"),
    ),
    # a git creation whose '+++' name holds a tab before a timestamp, as GNU diff writes it
    # (the 'diff --git' line quotes the tab): both refuse; patchkeeper names the file
    "git-creation-tab-in-plus-name": Scenario(
        {"g": b"x\n"},
        b'diff --git "a/post\\timage.txt" "b/post\\timage.txt"\nnew file mode 100644\n'
        b"--- /dev/null\n+++ b/post\timage.txt\t2010-08-18 20:13:31.628002255 -0500\n"
        b"@@ -0,0 +1 @@\n+postimage\n",
        expect=(128, 2, "the file name 'b/post\\timage.txt' holds a tab"),
    ),
    # an unquoted tab in a 'diff --git' line (git quotes such names): both refuse
    "git-unquoted-tab-in-name": Scenario(
        {"g": b"x\n"},
        b"diff --git a/post\tanother b/post\tanother\nnew file mode 100644\n"
        b"index 0000000..eff0c54\n--- /dev/null\n+++ b/post\tanother\n@@ -0,0 +1 @@\n"
        b"+postimage\n",
        expect=(128, 2, "the 'diff --git' line names a file with an unquoted tab"),
    ),
    # t4139-apply-escape: paths out of the tree
    "escape-dotdot": Scenario(
        {"g": b"x\n"},
        b"diff --git a/../escaped b/../escaped\nnew file mode 100644\nindex 0000000..d00491f\n"
        b"--- /dev/null\n+++ b/../escaped\n@@ -0,0 +1 @@\n+1\n",
    ),
    "escape-absolute": Scenario(
        {"g": b"x\n"},
        b"--- /dev/null\n+++ /escaped\n@@ -0,0 +1 @@\n+1\n",
        expect=(0, 0, ""),  # -p1 turns /escaped into escaped inside the tree, as GNU patch
    ),
    # CRLF files and patches
    "crlf-file-crlf-patch": Scenario(
        {"f": b"a\r\nb\r\nc\r\n"}, u(b"a\r\nb\r\nc\r\n", b"a\r\nB\r\nc\r\n")
    ),
    "crlf-file-lf-patch": Scenario(
        {"f": b"a\r\nb\r\nc\r\n"},
        u(b"a\nb\nc\n", b"a\nB\nc\n"),
        expect=(1, 1, "different line endings: the file's lines end in CRLF, the patch's in LF"),
    ),
    # documented differences (docs/reliability.md, Limits)
    "design-already-applied": Scenario(
        {"f": VICTIM.replace(b"m\n", b"M\n")},
        u(VICTIM, VICTIM.replace(b"m\n", b"M\n")),
        expect=(1, 0, "the series is already applied"),
    ),
    "design-create-over-empty-file": Scenario(
        {"f": b""},
        b"diff --git a/f b/f\nnew file mode 100644\nindex 0000000..d00491f\n--- /dev/null\n"
        b"+++ b/f\n@@ -0,0 +1 @@\n+1\n",
        expect=(1, 0, ""),
    ),
    "design-U0-without-unidiff-zero": Scenario(
        {"f": VICTIM},
        u(VICTIM, VICTIM.replace(b"m\n", b"M\n"), context=0),
        expect=(1, 0, ""),
    ),
    "design-symlink-creation": Scenario(
        {"g": b"x\n"},
        b"diff --git a/link b/link\nnew file mode 120000\nindex 0000000..1de5659\n"
        b"--- /dev/null\n+++ b/link\n@@ -0,0 +1 @@\n+g\n\\ No newline at end of file\n",
        expect=(0, 2, "has mode 120000 (a symbolic link): patchkeeper patches regular files only"),
    ),
    "design-typechange-file-to-symlink": Scenario(
        {"f": b"content\n"},
        b"diff --git a/f b/f\ndeleted file mode 100644\nindex d95f3ad..0000000\n--- a/f\n"
        b"+++ /dev/null\n@@ -1 +0,0 @@\n-content\n"
        b"diff --git a/f b/f\nnew file mode 120000\nindex 0000000..1de5659\n--- /dev/null\n"
        b"+++ b/f\n@@ -0,0 +1 @@\n+g\n\\ No newline at end of file\n",
        expect=(0, 2, "has mode 120000 (a symbolic link)"),
    ),
    "design-typechange-symlink-to-file": Scenario(
        {"bar": b"hi planet\n"},
        b"diff --git a/foo b/foo\ndeleted file mode 120000\nindex ba0e162..0000000\n--- a/foo\n"
        b"+++ /dev/null\n@@ -1 +0,0 @@\n-bar\n\\ No newline at end of file\n"
        b"diff --git a/foo b/foo\nnew file mode 100644\nindex 0000000..c3c8a5c\n--- /dev/null\n"
        b"+++ b/foo\n@@ -0,0 +1 @@\n+how far is the sun?\n",
        symlinks={"foo": "bar"},
        expect=(0, 2, "the diff for foo has mode 120000 (a symbolic link)"),
    ),
    # t4115-apply-symlink: a link pointed elsewhere
    "design-symlink-retargeted": Scenario(
        {"path1/path2/path3/path4/path5": b"x\n", "htap6": b"y\n"},
        b"diff --git a/link1 b/link1\nindex 1a2b3c4..5d6e7f8 120000\n--- a/link1\n"
        b"+++ b/link1\n@@ -1 +1 @@\n-path1/path2/path3/path4/path5\n"
        b"\\ No newline at end of file\n+htap6\n\\ No newline at end of file\n",
        symlinks={"link1": "path1/path2/path3/path4/path5"},
        expect=(0, 2, "the diff for link1 has mode 120000 (a symbolic link)"),
    ),
    # a diff without modes whose file is a symlink in the target
    "design-plain-diff-of-a-symlink": Scenario(
        {"bar": b"a\nb\nc\n"},
        u(b"a\nb\nc\n", b"a\nB\nc\n", "foo"),
        symlinks={"foo": "bar"},
        expect=(1, 2, "the patch path 'foo' is a symbolic link in the target"),
    ),
    # t4114-apply-typechange: a file turned into a directory and back
    "design-typechange-file-to-directory": Scenario(
        {"foo": b"hello world\n", "bar": b"hi planet\n"},
        b"diff --git a/foo b/foo/baz\nsimilarity index 100%\nrename from foo\nrename to foo/baz\n",
        expect=(0, 2, "one of its parent directories is a file in the target"),
    ),
    "design-typechange-directory-to-file": Scenario(
        {"foo/baz": b"if only I knew\n", "bar": b"hi planet\n"},
        b"diff --git a/foo b/foo\nnew file mode 100644\nindex 0000000..3b18e51\n--- /dev/null\n"
        b"+++ b/foo\n@@ -0,0 +1 @@\n+hello world\n"
        b"diff --git a/foo/baz b/foo/baz\ndeleted file mode 100644\nindex 9e4b5a5..0000000\n"
        b"--- a/foo/baz\n+++ /dev/null\n@@ -1 +0,0 @@\n-if only I knew\n",
        expect=(0, 2, "a patch names this path as a file, but it is a directory"),
    ),
    # hunk header line numbers: one far past the end is an offset for both tools; more than
    # 12 digits is refused as a corrupt header (GNU patch: "line number is too large")
    "huge-line-number": Scenario(
        {"f": b"a\nb\nc\n"},
        b"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -4294967296,3 +4294967296,3 @@\n a\n-b\n"
        b"+B\n c\n",
    ),
    "design-huge-line-number": Scenario(
        {"f": b"a\nb\nc\n"},
        b"diff --git a/f b/f\n--- a/f\n+++ b/f\n"
        b"@@ -18446744073709551616,3 +18446744073709551616,3 @@\n a\n-b\n+B\n c\n",
        expect=(0, 2, "a hunk header holds a number of 20 digits (at most 12 are taken)"),
    ),
    # a second hunk whose header lost its closing "@@" (t4100's "corrupt patch"): git and
    # GNU patch refuse it; read as text, the hunk would be left out and the first applied
    "corrupt-hunk-header": Scenario(
        {"f": VICTIM},
        u(VICTIM, VICTIM.replace(b"d\n", b"D\n").replace(b"v\n", b"V\n")).replace(
            b"@@ -18,7 +18,7 @@", b"@@ -18,7 +18,7"
        ),
    ),
    # the same header with its first space lost: git passes over it as text and applies the
    # first hunk alone; patchkeeper refuses it as corrupt
    "design-hunk-header-without-its-space": Scenario(
        {"f": VICTIM},
        u(VICTIM, VICTIM.replace(b"d\n", b"D\n").replace(b"v\n", b"V\n")).replace(
            b"@@ -18,7 +18,7 @@", b"@@-18,7 +18,7 @@"
        ),
        expect=(0, 2, "malformed hunk header '@@-18,7 +18,7 @@ r'"),
    ),
    "design-escape-through-symlink": Scenario(
        {"g": b"x\n"},
        b"diff --git a/link/f b/link/f\nnew file mode 100644\nindex 0000000..d00491f\n"
        b"--- /dev/null\n+++ b/link/f\n@@ -0,0 +1 @@\n+1\n",
        symlinks={"link": "/tmp"},
        expect=(1, 2, "leads outside the target through a symlink"),
    ),
    "design-mode-change-already-made": Scenario(
        {"file": b"original\n"},
        b"diff --git a/file b/file\nold mode 100644\nnew mode 100755\n",
        executable=("file",),
        expect=(0, 0, "the series is already applied"),
    ),
    # a mode change from a mode the file does not have: git warns and applies; patchkeeper
    # refuses, since undoing it would give the file a mode it never had
    "design-wrong-old-mode-with-content": Scenario(
        {"file": b"original\n"},
        b"diff --git a/file b/file\nold mode 100755\nnew mode 100644\n"
        + u(b"original\n", b"modified\n", "file").split(b"\n", 1)[1],
        expect=(0, 1, "the file's executable bit is not the one the patch's mode change starts"),
    ),
    "design-binary": Scenario(
        {"f": b"\x00\x01"},
        b"diff --git a/f b/f\nindex 1..2 100644\nBinary files a/f and b/f differ\n",
        expect=(1, 2, "binary diff for f: patchkeeper applies text diffs only"),
    ),
    "design-copy": Scenario(
        {"f": VICTIM},
        b"diff --git a/f b/g\nsimilarity index 100%\ncopy from f\ncopy to g\n",
        expect=(0, 2, "git copy diff (copy from f) is not supported"),
    ),
    "design-quoted-tab-name": Scenario(
        {"g": b"x\n"},
        b'diff --git "a/post\\timage.txt" "b/post\\timage.txt"\nnew file mode 100644\n'
        b'index 0000000..eaa3b9b\n--- /dev/null\n+++ "b/post\\timage.txt"\n'
        b"@@ -0,0 +1 @@\n+postimage\n",
        expect=(0, 2, "holds the control character '\\t'"),
    ),
}
SCENARIOS.update(_removal_scenarios())


def _prepare(root: Path, scenario: Scenario) -> None:
    for name in scenario.executable:
        (root / name).chmod(0o755)
    for name, dest in scenario.symlinks.items():
        (root / name).symlink_to(dest)


def _git_apply(tree: Path, patch: Path, args: tuple[str, ...]) -> int:
    done = subprocess.run(
        ["git", "apply", *args, str(patch)], cwd=tree, capture_output=True, check=False
    )
    return done.returncode


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_git_apply_scenario(tmp_path, name) -> None:
    scenario = SCENARIOS[name]
    ds = make_downstream(tmp_path, scenario.files, {"p.patch": scenario.patch})
    for tree in (ds.target, ds.pristine):
        _prepare(tree, scenario)
    git_tree = tmp_path / "git"
    shutil.copytree(ds.pristine, git_tree, symlinks=True)
    git_code = _git_apply(git_tree, ds.patches / "p.patch", scenario.git_args)
    pristine = tree_state(ds.target)
    outcome = run(ds, "apply")
    if scenario.expect == AGREE:
        assert (outcome.code == 0) == (git_code == 0), (git_code, outcome.out)
        assert outcome.code in (0, 1, 2)
        if git_code != 0:
            assert tree_state(ds.target) == pristine
            return
        assert tree_state(ds.target) == tree_state(git_tree), outcome.out
    else:
        git_expected, ours_expected, words = scenario.expect  # type: ignore[misc]
        assert (git_code, outcome.code) == (git_expected, ours_expected), outcome.out
        assert words in outcome.out
        if outcome.code != 0:
            assert tree_state(ds.target) == pristine
            return
    if tree_state(ds.target) == pristine:
        return  # already applied: nothing to undo
    verify = run(ds, "verify")
    assert verify.code == 0, verify.out
    assert run(ds, "unapply").code == 0
    assert tree_state(ds.target) == pristine


def test_mode_change_from_a_mode_the_file_never_had(tmp_path) -> None:
    """A mode-only change whose file already has the new mode and never had the old one:
    git warns and leaves the file as it is; ``apply`` agrees (already applied), and since
    undoing it would make the file executable where pristine is not, ``verify`` reports the
    mode as drift and ``unapply`` refuses, leaving the mode alone."""
    patch = b"diff --git a/file b/file\nold mode 100755\nnew mode 100644\n"
    ds = make_downstream(tmp_path, {"file": b"original\n"}, {"p.patch": patch})
    git_tree = tmp_path / "git"
    shutil.copytree(ds.pristine, git_tree)
    assert _git_apply(git_tree, ds.patches / "p.patch", ()) == 0
    before = tree_state(ds.target)
    assert tree_state(git_tree) == before
    applied = run(ds, "apply")
    assert (applied.code, tree_state(ds.target)) == (0, before), applied.out
    verify = run(ds, "verify")
    assert verify.code == 1
    assert "drift: file has mode 100755 once the series is undone, pristine 100644" in verify.out
    unapply = run(ds, "unapply")
    assert unapply.code == 1
    assert "changed outside the series: file" in unapply.out
    assert tree_state(ds.target) == before


def test_mode_change_with_hunks_from_a_mode_the_file_does_not_have(tmp_path) -> None:
    """A mode change with a hunk, on a file without its old mode: ``apply`` refuses (git
    warns and applies), and ``verify`` and ``unapply`` name the mode as what keeps the patch
    in conflict; nothing is written."""
    scenario = SCENARIOS["design-wrong-old-mode-with-content"]
    ds = make_downstream(tmp_path, scenario.files, {"p.patch": scenario.patch})
    before = tree_state(ds.target)
    assert run(ds, "apply").code == 1
    mode_line = "    p.patch: file: has mode 100644, the patch changes it from 100755"
    verify = run(ds, "verify")
    assert verify.code == 1
    assert mode_line in verify.out.splitlines()
    unapply = run(ds, "unapply")
    assert unapply.code == 1
    assert mode_line in unapply.out.splitlines()
    assert tree_state(ds.target) == before


def test_executable_bit_of_a_file_no_patch_changes_the_mode_of_is_not_drift(tmp_path) -> None:
    """Only a file whose mode a patch changes has its executable bit compared with pristine:
    a target that lost the bit of a file the series only edits (a copy that kept no modes)
    still verifies."""
    ds = make_downstream(tmp_path, {"f": VICTIM}, {"p.patch": u(VICTIM, VICTIM + b"z\n")})
    (ds.pristine / "f").chmod(0o755)
    assert run(ds, "apply").code == 0
    verify = run(ds, "verify")
    assert verify.code == 0, verify.out
