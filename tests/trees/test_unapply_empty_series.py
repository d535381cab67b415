"""``unapply`` of a series that lists no patches, on a tree with a file changed outside any
series: it said "the series is already pristine" (exit 0) while ``verify`` reported the tree
drifted (exit 1). There is nothing to unapply, and it says so without judging the tree."""

from __future__ import annotations

import json
from pathlib import Path

CORE = "def answer():\n    return 42\n"


def _downstream(root: Path) -> Path:
    """A downstream whose series file lists no patches (only a comment), its pristine ``up``."""
    (root / "up" / "pkg").mkdir(parents=True)
    (root / "up" / "pkg" / "core.py").write_text(CORE)
    down = root / "down"
    (down / "patches").mkdir(parents=True)
    (down / "patches" / "series").write_text("# every patch was retired\n")
    (down / "patchkeeper.toml").write_text('upstream = "pkg"\npin = "1.0"\npristine = "../up"\n')
    return down


def test_unapply_of_an_empty_series_does_not_call_a_drifted_tree_pristine(
    cli, tmp_path: Path
) -> None:
    down = _downstream(tmp_path)
    target = tmp_path / "target"
    (target / "pkg").mkdir(parents=True)
    (target / "pkg" / "core.py").write_text(CORE + "# local\n")

    verify = cli("verify", "--target", str(target), cwd=down)
    assert (verify.code, verify.out.splitlines()[-1]) == (
        1,
        "not ok: 0 of 0 patches applied, 1 file drifted",
    )

    run = cli("unapply", "--target", str(target), cwd=down)
    assert (run.code, run.out.splitlines(), run.err) == (
        0,
        [
            f"unapply: nothing to unapply on directory {target}: the series lists no patches",
            "nothing was changed; 'patchkeeper verify' says whether the tree is pristine",
        ],
        "",
    )
    assert (target / "pkg" / "core.py").read_text() == CORE + "# local\n"

    envelope = json.loads(cli("unapply", "--target", str(target), "--json", cwd=down).out)
    assert {key: envelope[key] for key in ("exit_code", "outcome", "patches", "changed")} == {
        "exit_code": 0,
        "outcome": "no patches",
        "patches": [],
        "changed": [],
    }


def test_unapply_of_an_empty_series_needs_no_pristine_reference(cli, tmp_path: Path) -> None:
    """Nothing is compared, so a pristine reference that is not there is not looked for."""
    down = _downstream(tmp_path)
    (tmp_path / "up" / "pkg" / "core.py").unlink()
    (tmp_path / "up" / "pkg").rmdir()
    (tmp_path / "up").rmdir()
    target = tmp_path / "target"
    (target / "pkg").mkdir(parents=True)
    (target / "pkg" / "core.py").write_text(CORE)

    run = cli("unapply", "--target", str(target), cwd=down)
    assert (run.code, run.out.splitlines()[0]) == (
        0,
        f"unapply: nothing to unapply on directory {target}: the series lists no patches",
    )
