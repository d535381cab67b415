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
