"""``--python ./NAME`` names the file NAME in the current directory, as in a shell.

``Path("./python")`` is ``python``, a bare name, which the interpreter launcher looks up on
``PATH``: ``verify --python ./python`` and ``apply --python ./python`` (the fast start that
reads its options without click) said "No such file or directory" with the file right
there. A bare name is still looked up on ``PATH``; when a file of that name is in the current
directory, the hint says how to name it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers import write_files

SILENT = "#!/bin/sh\nexit 1\n"


def downstream(tmp_path: Path) -> Path:
    root = tmp_path / "downstream"
    write_files(root, {"patches/series": "", "patchkeeper.toml": 'upstream = "app"\npin = "1.0"\n'})
    for name in ("python", "py-here-only"):
        (root / name).write_text(SILENT)
        (root / name).chmod(0o755)
    return root.resolve()


def test_dot_slash_names_the_file_here(cli, tmp_path: Path) -> None:
    root = downstream(tmp_path)
    run = cli("verify", "--python", "./python", cwd=root)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {root}/python: the interpreter failed to locate app (exit 1) "
        "and wrote nothing on standard error",
    )
    run = cli("-C", "downstream", "verify", "--python", "./python", cwd=tmp_path)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {root}/python: the interpreter failed to locate app (exit 1) "
        "and wrote nothing on standard error",
    )


def test_apply_started_without_click_reads_it_the_same(tmp_path: Path) -> None:
    root = downstream(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "patchkeeper", "apply", "--python", "./python"],
        cwd=root,
        env=dict(os.environ),
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stderr.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {root}/python: the interpreter failed to locate app (exit 1) "
        "and wrote nothing on standard error",
    )


def test_a_bare_name_is_looked_up_on_path_and_the_hint_says_so(cli, tmp_path: Path) -> None:
    root = downstream(tmp_path)
    run = cli("verify", "--python", "py-here-only", cwd=root)
    assert (run.code, run.err.splitlines()) == (
        2,
        [
            "patchkeeper: error: py-here-only: cannot run the interpreter: No such file or "
            "directory",
            "  hint: pass --python the path of a Python executable; py-here-only is looked up "
            "on PATH; for the file in this directory, give ./py-here-only",
        ],
    )


def test_a_relative_path_read_from_c_says_where_it_was_looked_for(cli, tmp_path: Path) -> None:
    """``-C downstream status --python venv/bin/python``, the environment beside the
    downstream: the path is read from -C's directory, as git -C reads it, where there is no
    such file. The hint says where relative paths start and which file was looked for (it
    said only "No such file or directory", which reads as the environment being broken)."""
    root = downstream(tmp_path)
    venv = write_files(tmp_path / "venv", {"bin/python": SILENT})
    (venv / "bin/python").chmod(0o755)
    for command in ("status", "verify", "apply"):
        run = cli("-C", "downstream", command, "--python", "venv/bin/python", cwd=tmp_path)
        assert (run.code, run.err.splitlines()) == (
            2,
            [
                "patchkeeper: error: venv/bin/python: cannot run the interpreter: No such "
                "file or directory",
                "  hint: pass --python the path of a Python executable; relative paths start "
                f"at {root} (-C DIR's, when given), and there is no file "
                f"{root}/venv/bin/python",
            ],
        ), command
