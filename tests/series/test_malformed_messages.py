"""A malformed patch is named in the project's words with the patch file and the line, never
unidiff's raw text with its trailing newline (user report: ``Target without source: +++
metrics.py`` followed by a blank line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import tree_bytes, write_files

HINT = "  hint: regenerate the patch; do not edit hunks by hand\n"
HUNK = "@@ -1 +1 @@\n-x = 1\n+x = 2\n"
HEADER = "--- a/metrics.py\n+++ b/metrics.py\n"


def _downstream(root: Path, series: str, patch: str) -> None:
    """A downstream in ``root`` whose series file is ``series``, naming ``m.patch``
    (``patch``), with a target ``root/target`` holding ``pkg/metrics.py``."""
    write_files(
        root,
        {
            "target/pkg/metrics.py": "x = 1\n",
            "patchkeeper.toml": 'upstream = "pkg"\npin = "1.0"\ndirectory = "pkg"\n',
            "patches/series": series,
            "patches/m.patch": patch,
        },
    )


@pytest.mark.parametrize(
    ("patch", "line", "message"),
    [
        (
            HEADER + HUNK + "+++ metrics.py\n" + HUNK,
            6,
            "a '+++' file header without the '---' line before it: '+++ metrics.py'",
        ),
        (
            HEADER + HUNK + "new file mode 100644\n",
            6,
            "a 'new file mode' line outside a git file header (a 'diff --git' line and no hunk "
            "yet): 'new file mode 100644'",
        ),
        (
            HEADER + HUNK + "deleted file mode 100644\n",
            6,
            "a 'deleted file mode' line outside a git file header (a 'diff --git' line and no "
            "hunk yet): 'deleted file mode 100644'",
        ),
        (
            HEADER + "\\ No newline at end of file\n" + HUNK,
            3,
            "a '\\ No newline at end of file' marker outside a hunk",
        ),
    ],
)
def test_a_malformed_patch_is_named_in_our_words(
    cli, tmp_path: Path, patch: str, line: int, message: str
) -> None:
    _downstream(tmp_path, "m.patch\n", patch)
    before = tree_bytes(tmp_path / "target")
    run = cli("apply", "--target", "target", cwd=tmp_path)
    assert (run.code, run.out) == (2, "")
    assert (
        run.err == f"patchkeeper: error: {tmp_path / 'patches/m.patch'}:{line}: {message}\n" + HINT
    )
    assert tree_bytes(tmp_path / "target") == before


@pytest.mark.parametrize(
    ("encoding", "named"),
    [("utf-16", "UTF-16"), ("utf-16-le", "UTF-16"), ("utf-16-be", "UTF-16"), ("utf-32", "UTF-32")],
)
@pytest.mark.parametrize("wide", ["series", "m.patch"])
def test_a_series_or_patch_saved_as_utf16_names_its_encoding(
    cli, tmp_path: Path, encoding: str, named: str, wide: str
) -> None:
    # An editor's "Unicode" (or PowerShell's '>') writes UTF-16: every character of it is
    # followed by a NUL, and the message was about a control character or no diff at all.
    _downstream(tmp_path, "# ours\nm.patch\n", "Subject: bump x\n\n" + HEADER + HUNK)
    path = tmp_path / "patches" / wide
    path.write_bytes(path.read_text().encode(encoding))
    before = tree_bytes(tmp_path / "target")
    what = "the series file" if wide == "series" else "the patch"
    expected = (
        f"patchkeeper: error: {path}:1: {what} is {named} text; patchkeeper reads UTF-8 (or "
        "plain bytes)\n"
        f"  hint: save it as UTF-8: iconv -f {named} -t UTF-8 {path} > {wide}.utf8, then move "
        f"{wide}.utf8 over it\n"
    )
    run = cli("apply", "--target", "target", cwd=tmp_path)
    assert (run.code, run.out, run.err) == (2, "", expected)
    assert tree_bytes(tmp_path / "target") == before
    run = cli("lint", cwd=tmp_path)
    assert run.code == (2 if wide == "series" else 1)
    if wide == "m.patch":  # lint names it, once: no header finding besides
        assert run.out.splitlines()[:2] == [
            f"patches/m.patch:1: PK304 the patch is {named} text; patchkeeper reads UTF-8 (or "
            f"plain bytes): save it as UTF-8: iconv -f {named} -t UTF-8 {path} > {wide}.utf8, "
            f"then move {wide}.utf8 over it",
            "1 problem in 1 patch",
        ]


CONTEXT_DIFF = """Description: bump x, as diff -c writes it

*** a/metrics.py	2024-01-01 00:00:00.000000000 +0000
--- b/metrics.py	2024-01-01 00:00:01.000000000 +0000
***************
*** 1 ****
! x = 1
--- 1 ----
! x = 2
"""


@pytest.mark.parametrize(
    ("patch", "line", "message", "hint"),
    [
        (
            CONTEXT_DIFF,
            3,
            "the patch holds a context diff (diff -c), which patchkeeper does not read: it "
            "reads unified diffs ('--- a/FILE', '+++ b/FILE', '@@' hunks)",
            "regenerate it as a unified diff (diff -u, git diff, git format-patch), or convert "
            "it: filterdiff --format=unified (patchutils)",
        ),
        (
            "1c1\n< x = 1\n---\n> x = 2\n",
            1,
            "the patch holds a normal diff (diff without -u), which patchkeeper does not read: "
            "it has no context lines, so where it applies cannot be checked",
            "regenerate it as a unified diff (diff -u, git diff, git format-patch)",
        ),
        (
            "1c\nx = 2\n.\n",
            1,
            "the patch holds an ed script (diff -e), which patchkeeper does not read: it has no "
            "context lines, so where it applies cannot be checked",
            "regenerate it as a unified diff (diff -u, git diff, git format-patch)",
        ),
    ],
)
def test_a_diff_in_another_format_is_named(
    cli, tmp_path: Path, patch: str, line: int, message: str, hint: str
) -> None:
    # GNU patch reads these three formats too; "the patch holds no diff" sent the user
    # looking for a diff that was there.
    _downstream(tmp_path, "m.patch\n", patch)
    before = tree_bytes(tmp_path / "target")
    run = cli("apply", "--target", "target", cwd=tmp_path)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {tmp_path / 'patches/m.patch'}:{line}: {message}\n  hint: {hint}\n",
    )
    assert tree_bytes(tmp_path / "target") == before
