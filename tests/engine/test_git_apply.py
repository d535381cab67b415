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
    # t4129-apply-samemode
    "samemode-index-mode-keeps-executable": Scenario(
        {"file": b"original\n"},
        u(b"original\n", b"modified\n", "file").replace(
            b"--- a/file", b"index 4f4c1b3..2e0996000 100644\n--- a/file", 1
        ),
        executable=("file",),
    ),
    "samemode-mode-update": Scenario(
        {"file": b"original\n"},
        b"diff --git a/file b/file\nold mode 100644\nnew mode 100755\n"
        + u(b"original\n", b"modified\n", "file").split(b"\n", 1)[1],
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
