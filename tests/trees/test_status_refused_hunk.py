"""``status`` and ``verify`` on a hunk whose lines all match but that GNU patch's rules on
cut context refuse there (fewer trailing than leading context lines: only at the end of the
file): the patch is in *conflict*, and the output says why, as ``apply``'s evidence does,
where it named the hunk "not applied" alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FILE = "a\nb\nc\nd\ne\nf\ng\n"
# three leading context lines and no trailing one, at line 2 of a seven-line file
PATCH = "--- a/f.txt\n+++ b/f.txt\n@@ -2,4 +2,4 @@\n b\n c\n d\n-e\n+E\n"
NOTE = (
    "f.txt hunk #1 at line 2: every line matches there, but the hunk has fewer trailing "
    "than leading context lines, so it may only apply at the end of the file"
)


def _downstream(root: Path) -> tuple[Path, Path]:
    for tree in ("up", "target"):
        (root / tree).mkdir()
        (root / tree / "f.txt").write_text(FILE)
    down = root / "down"
    (down / "patches").mkdir(parents=True)
    (down / "patches" / "cut.patch").write_text(PATCH)
    (down / "patches" / "series").write_text("cut.patch\n")
    (down / "patchkeeper.toml").write_text('upstream = "pkg"\npin = "1.0"\npristine = "../up"\n')
    return down, root / "target"


@pytest.mark.parametrize("command", ["status", "verify"])
def test_refused_hunk_says_why(cli, tmp_path: Path, command: str) -> None:
    down, target = _downstream(tmp_path)
    run = cli(command, "--target", str(target), cwd=down)
    assert (run.code, run.out.splitlines()) == (
        1,
        [
            f"{command}: directory {target} against directory {tmp_path / 'up'}",
            "  conflict  cut.patch",
            "    cut.patch: f.txt hunk #1 not applied",
            f"    cut.patch: {NOTE}",
            "not ok: 0 of 1 patches applied, 0 files drifted",
        ],
    )
    run = cli(command, "--target", str(target), "--json", cwd=down)
    assert json.loads(run.out)["state"]["patches"][0]["problems"] == [NOTE]


def test_refused_hunk_leaves_nothing_to_undo(cli, tmp_path: Path) -> None:
    """The note is about the hunk, not the file: the tree is pristine, nothing to undo."""
    down, target = _downstream(tmp_path)
    run = cli("unapply", "--target", str(target), cwd=down)
    assert (run.code, run.out.splitlines()[0]) == (
        0,
        f"unapply: the series is already pristine on directory {target}",
    )
    assert (target / "f.txt").read_text() == FILE
