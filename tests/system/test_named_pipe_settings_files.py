"""A file the downstream names by a setting that is a named pipe: an error, not a hang.

In the shape of a downstream where a tool left a FIFO under the name of the series, the
ledger or the decisions file (``mkfifo patches/series``, a shell's ``<(...)`` kept as a
file): ``open`` of a named pipe waits for a writer, so every command that read the file hung
for ever. Each now stops (exit 2) naming the file, what it is and what to do, and writes
nothing. The commands run in a child process with a time limit, so that a hang fails the
test instead of stopping the run. The downstream is written by the test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import HELLO_PATCH, write_files


def downstream(root: Path) -> Path:
    """A DEP-3 series of one patch, its ledger and the pristine tree beside it."""
    write_files(root / "pristine", {"hello.py": 'print("hello, world")\n'})
    return write_files(
        root / "down",
        {
            "patchkeeper.toml": (
                'upstream = "hello"\npin = "1.0"\nseries = "patches/series"\n'
                'pristine = "../pristine"\n\n[headers]\nschema = "dep3"\n'
            ),
            "patches/series": "short-greeting.patch\n",
            "patches/short-greeting.patch": HELLO_PATCH,
            "PATCHES.md": "# Patches\n\n<!-- table:begin -->\n<!-- table:end -->\n",
        },
    )


def run(cwd: Path, *args: str) -> tuple[int, str, str]:
    """``patchkeeper ARGS`` in ``cwd`` in a child process that may not hang."""
    done = subprocess.run(
        [sys.executable, "-m", "patchkeeper", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    return done.returncode, done.stdout, done.stderr


def files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


@pytest.mark.parametrize(
    ("name", "commands", "message", "hint"),
    [
        (
            "patches/series",
            [("lint",), ("ledger", "--check"), ("audit", "--to", "../pristine")],
            "cannot read the series file: a named pipe, not a regular file",
            "make it a readable file that lists the patches, one a line, or point 'series' at "
            "the top of patchkeeper.toml (before any [table]) to one",
        ),
        (
            "PATCHES.md",
            [("ledger", "--check"), ("ledger",)],
            "cannot read the ledger file: a named pipe, not a regular file",
            "make it a readable Markdown file with the lines <!-- table:begin --> and <!-- "
            "table:end --> ('patchkeeper ledger' writes the table between them, never the "
            "file), or set file in [ledger] to another path",
        ),
        (
            "patchkeeper-decisions.toml",
            [("decide",), ("report",), ("report", "--check")],
            "cannot read: a named pipe, not a regular file",
            "make it a TOML file this user can read (or move it away: decide writes a new one)",
        ),
    ],
)
def test_a_named_pipe_where_a_setting_names_a_file_is_an_error(
    tmp_path: Path, name: str, commands: list[tuple[str, ...]], message: str, hint: str
) -> None:
    down = downstream(tmp_path)
    path = down / name
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    before = files(tmp_path)
    for args in commands:
        assert run(down, *args) == (
            2,
            "",
            f"patchkeeper: error: {path}: {message}\n  hint: {hint}\n",
        ), args
    assert files(tmp_path) == before


def test_a_named_pipe_for_the_record_is_a_missing_record(tmp_path: Path) -> None:
    """``report --check`` compares the record with what ``report`` writes: a named pipe
    under the record's name holds no record, and is said to be missing."""
    down = downstream(tmp_path)
    os.mkfifo(down / "AUDIT.md")
    code, out, err = run(down, "report", "--check")
    assert (code, err, out.splitlines()[0]) == (
        1,
        "",
        f"the record {down}/AUDIT.md does not exist: 3 findings (1 series patch, 0 runtime "
        "entries, 0 decided)",
    )
