"""``export REV -o FILE`` of a commit whose subject is no ``[TAG] <topic>``: the subject says
what the change is, so it leads the patch as its DEP-3 ``Description`` and the body follows,
as ``gbp pq export`` writes a commit; a topic commit's subject stays out of its file."""

from __future__ import annotations

from pathlib import Path

from helpers import git

DIFF = (
    "diff --git a/pkg/x.py b/pkg/x.py\n"
    "index de980441c3ab03a8c07dda1ad27b8a11f39deb1e..7be73ce3c1b1cdaea86e8168dfee8575175953bf"
    " 100644\n"
    "--- a/pkg/x.py\n+++ b/pkg/x.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
)


def _downstream(tmp_path: Path, message: str) -> tuple[Path, str]:
    """A checkout whose last commit has ``message``, and a downstream exporting from it."""
    up = tmp_path / "up"
    (up / "pkg").mkdir(parents=True)
    (up / "pkg" / "x.py").write_text("a\nb\nc\n")
    git(up, "init", "-q")
    git(up, "add", "-A")
    git(up, "commit", "-qm", "base")
    (up / "pkg" / "x.py").write_text("a\nB\nc\n")
    git(up, "commit", "-qam", message)
    down = tmp_path / "down"
    (down / "patches").mkdir(parents=True)
    (down / "patches" / "series").write_text("cap.patch\n")
    (down / "patchkeeper.toml").write_text(
        'upstream = "pkg"\npin = "1.0"\nseries = "patches/series"\n\n'
        f'[git]\ncheckout = "{up}"\ntag = "ours"\n\n[headers]\nschema = "dep3"\n'
    )
    return down, git(up, "rev-parse", "HEAD")


def test_a_plain_subject_becomes_the_description(cli, tmp_path: Path) -> None:
    down, commit = _downstream(
        tmp_path, "Capitalise b in x\n\nThe lower-case b confused readers.\nSecond line."
    )
    run = cli("export", "HEAD", "-o", "patches/cap.patch", cwd=down)
    assert (run.code, run.err) == (0, "")
    assert (down / "patches" / "cap.patch").read_text() == (
        "Description: Capitalise b in x\n\n"
        "The lower-case b confused readers.\nSecond line.\n"
        f"--- exported from {commit}\n{DIFF}"
    )
    # lint's re-export writes the same bytes: no PK302
    lint = cli("lint", "--checkout", "../up", cwd=down)
    assert (lint.code, lint.out, lint.err) == (0, "no problems in 1 patch\n", "")


def test_a_subject_alone_is_the_description(cli, tmp_path: Path) -> None:
    down, commit = _downstream(tmp_path, "Capitalise b in x")
    assert cli("export", "HEAD", "-o", "patches/cap.patch", cwd=down).code == 0
    assert (down / "patches" / "cap.patch").read_text() == (
        f"Description: Capitalise b in x\n--- exported from {commit}\n{DIFF}"
    )


def test_a_body_with_its_own_description_is_kept(cli, tmp_path: Path) -> None:
    down, commit = _downstream(tmp_path, "wip\n\nDescription: Capitalise b\nOrigin: vendor")
    assert cli("export", "HEAD", "-o", "patches/cap.patch", cwd=down).code == 0
    assert (down / "patches" / "cap.patch").read_text() == (
        f"Description: Capitalise b\nOrigin: vendor\n--- exported from {commit}\n{DIFF}"
    )


def test_a_topic_subject_stays_out(cli, tmp_path: Path) -> None:
    down, commit = _downstream(tmp_path, "[ours] cap\n\nKind: fix")
    run = cli("export", "HEAD", cwd=down)
    assert (run.code, run.err) == (0, "")
    assert (down / "patches" / "cap.patch").read_text() == (
        f"Kind: fix\n--- exported from {commit}\n{DIFF}"
    )
