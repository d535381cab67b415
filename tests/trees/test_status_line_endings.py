"""``status`` and ``verify`` on a tree whose files end their lines in CRLF, with a series cut
in LF (an sdist published with CRLF files, a Debian series cut against the LF git tree): each
patch is in *conflict*, and the output says why, as ``apply`` does ("different line
endings"), where it named only the hunks "not applied"."""

from __future__ import annotations

import json
from pathlib import Path

CORE = "def answer():\n    return 41\n\n\ndef other():\n    return 1\n"
PATCH = (
    "Description: answer the right number\n"
    "---\n"
    "--- a/pkg/core.py\n+++ b/pkg/core.py\n"
    "@@ -1,4 +1,4 @@\n def answer():\n-    return 41\n+    return 42\n \n \n"
)


def _downstream(root: Path) -> tuple[Path, Path]:
    """A downstream whose pristine tree and target hold ``pkg/core.py`` in CRLF."""
    crlf = CORE.replace("\n", "\r\n").encode()
    for tree in ("up", "target"):
        (root / tree / "pkg").mkdir(parents=True)
        (root / tree / "pkg" / "core.py").write_bytes(crlf)
    down = root / "down"
    (down / "patches").mkdir(parents=True)
    (down / "patches" / "answer.patch").write_text(PATCH)
    (down / "patches" / "series").write_text("answer.patch\n")
    (down / "patchkeeper.toml").write_text('upstream = "pkg"\npin = "1.0"\npristine = "../up"\n')
    return down, root / "target"


def test_status_names_the_line_endings_of_a_conflict(cli, tmp_path: Path) -> None:
    down, target = _downstream(tmp_path)
    run = cli("status", "--target", str(target), cwd=down)
    assert (run.code, run.out.splitlines()) == (
        1,
        [
            f"status: directory {target} against directory {tmp_path / 'up'}",
            "  conflict  answer.patch",
            "    answer.patch: pkg/core.py hunk #1 not applied",
            "    answer.patch: pkg/core.py: different line endings: the file's lines end in "
            "CRLF, the patch's in LF",
            "not ok: 0 of 1 patches applied, 0 files drifted",
        ],
    )
    run = cli("status", "--target", str(target), "--json", cwd=down)
    assert json.loads(run.out)["state"]["patches"][0]["problems"] == [
        "pkg/core.py: different line endings: the file's lines end in CRLF, the patch's in LF"
    ]
    # the tree is still pristine: unapply has nothing to undo
    run = cli("unapply", "--target", str(target), cwd=down)
    assert (run.code, run.out.splitlines()[0]) == (
        0,
        f"unapply: the series is already pristine on directory {target}",
    )


def test_hunk_notes_are_told_from_file_problems_by_the_engine_data(tmp_path: Path) -> None:
    """A file problem whose path reads like a spacing note ("x: different line endings...")
    stays a file problem: the notes come from the engine's records, not from their words."""
    from patchkeeper.series.engine import FileState, Workspace
    from patchkeeper.series.parse import parse_patch
    from patchkeeper.trees.applied import CONFLICT, series_state

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "core.py").write_bytes(CORE.replace("\n", "\r\n").encode())
    (tmp_path / "pkg" / "space.py").write_bytes(b"a  \nb\nc\n")
    odd = "x: different line endings.txt"
    diff = (
        PATCH
        + f"--- a/{odd}\n+++ b/{odd}\n@@ -1,1 +1,1 @@\n-old\n+new\n"
        + "--- a/pkg/space.py\n+++ b/pkg/space.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
    )
    patch = parse_patch(diff.encode(), name="p.patch", path=Path("p.patch"), strip=1)

    def read(path: str) -> FileState | None:
        file = tmp_path / path
        return FileState.from_bytes(file.read_bytes()) if file.exists() else None

    (state,) = series_state(Workspace(read), [patch], None).patches
    assert state.state == CONFLICT
    assert state.file_problems == (f"{odd}: the file does not exist",)
    assert state.hunk_notes == (
        "pkg/core.py: different line endings: the file's lines end in CRLF, the patch's in LF",
        "pkg/space.py: the lines match but for white space at their ends: at line 1, the "
        "file's line ends in white space the patch's lacks (a mail client or an editor "
        "stripped it); take the patch again from where it came from (its git commit, the "
        "source package), or apply it with 'patch -l' and refresh it",
    )
    assert state.problems == (
        state.hunk_notes[0],
        state.file_problems[0],
        state.hunk_notes[1],
    )
