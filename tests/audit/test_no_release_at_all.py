"""A range audit whose ``--releases`` directory holds no release of the project at all (the
wrong directory, another project's downloads): the hint said "releases found: none; widen
the range", which no range can help. It now says what the directory must hold. A range that
admits none of the releases found still lists them (tests/audit/test_horizon.py)."""

from __future__ import annotations

from pathlib import Path

from helpers import Example


def test_a_releases_directory_with_no_release_says_what_it_must_hold(
    cli, example: Example, tmp_path: Path
) -> None:
    empty = tmp_path / "downloads"
    empty.mkdir()
    (empty / "requests-2.31.0.tar.gz").write_bytes(b"")  # another project's, not minihttp's
    run = cli("audit", "--to", "minihttp>=1.0", "--releases", str(empty), cwd=example.downstream)
    assert (run.code, run.out, run.err.splitlines()) == (
        2,
        "",
        [
            f"patchkeeper: error: no release of minihttp in {empty} matches minihttp>=1.0",
            f"  hint: {empty} holds no release of minihttp: pass --releases a directory holding "
            "minihttp-VERSION subdirectories, or the sdist or wheel files of the releases",
        ],
    )
