"""``[port] work-dir`` naming a directory that holds other files (the series directory, the
downstream itself): starting a port emptied the work directory first, so it deleted the
series and then failed with an internal error. Such a directory is refused, nothing
changes; a port's own leftovers are still cleared."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helpers import Example


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.mark.parametrize(
    ("work_dir", "first"), [("patches", "client-describe-version.patch"), (".", ".git")]
)
def test_a_work_dir_holding_other_files_is_refused(
    cli, example: Example, work_dir: str, first: str
) -> None:
    down = example.downstream
    config = down / "patchkeeper.toml"
    config.write_text(config.read_text() + f'\n[port]\nwork-dir = "{work_dir}"\n')
    _git(down, "init", "-q")
    _git(down, "add", "-A")
    _git(down, "commit", "-qm", "i")
    run = cli("port", "--to", "../upstream/minihttp-1.1", cwd=down)
    where = down / "patches" if work_dir == "patches" else down
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {where}: the port's work directory holds files a port did not "
        f"write ({first}, ...); starting a port would delete them\n"
        '  hint: set [port] work-dir to a directory of its own (default ".patchkeeper-port"), '
        "or remove the directory\n"
    )
    assert _git(down, "status", "--porcelain", "--ignored") == ""


def test_a_work_dir_that_is_a_file_is_refused(cli, example: Example) -> None:
    """A file where the work directory goes: the hint names it, to move it away, or says to
    configure another work directory; the file is left as it was."""
    down = example.downstream
    work = down / ".patchkeeper-port"
    work.write_text("notes\n")
    run = cli("port", "--to", "../upstream/minihttp-1.1", cwd=down)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {work}: the port's work directory is a file\n"
        f"  hint: move the file {work} away (a port keeps its state in a directory there), "
        "or set [port] work-dir to a directory of its own\n"
    )
    assert work.read_text() == "notes\n"


@pytest.mark.parametrize("action", ["--continue", "--abort"])
def test_continue_or_abort_on_a_file_names_it(cli, example: Example, action: str) -> None:
    """``--continue`` and ``--abort`` where a file stands in the work directory's place: no
    port can be in progress there; the error names the file and both ways on."""
    down = example.downstream
    work = down / ".patchkeeper-port"
    work.write_text("notes\n")
    run = cli("port", action, cwd=down)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {work}: the port's work directory is a file, so no port is in "
        "progress there\n"
        "  hint: a port keeps its state in a directory: if one was started with another [port] "
        f"work-dir, set it back and run this again; else move the file {work} away and start "
        "a port with 'patchkeeper port --to NEWPIN'\n"
    )
    assert work.read_text() == "notes\n"


@pytest.mark.parametrize("action", ["--continue", "--abort", "--to"])
def test_a_work_dir_inside_a_file_is_refused(cli, example: Example, action: str) -> None:
    """A configured work directory below a file: each action names that file (the port that
    would finish without stopping wrote its journal there and failed with an internal
    error); nothing changes."""
    down = example.downstream
    notes = down / "notes"
    notes.write_text("notes\n")
    config = down / "patchkeeper.toml"
    config.write_text(config.read_text() + '\n[port]\nwork-dir = "notes/port"\n')
    series = (down / "patches" / "series").read_bytes()
    args = ["--to", "../upstream/minihttp-1.0", "--in-place"] if action == "--to" else [action]
    run = cli("port", *args, cwd=down)
    assert (run.code, run.out) == (2, "")
    words = f"the port's work directory {notes / 'port'} would be inside this file"
    hint = (
        f"move the file {notes} away (a port keeps its state in a directory there), or set "
        "[port] work-dir to a directory of its own"
        if action == "--to"
        else "a port keeps its state in a directory: if one was started with another [port] "
        f"work-dir, set it back and run this again; else move the file {notes} away and start "
        "a port with 'patchkeeper port --to NEWPIN'"
    )
    then = "" if action == "--to" else ", so no port is in progress there"
    assert run.err == f"patchkeeper: error: {notes}: {words}{then}\n  hint: {hint}\n"
    assert notes.read_text() == "notes\n"
    assert (down / "patches" / "series").read_bytes() == series


def test_a_killed_ports_leftovers_are_cleared(cli, example: Example) -> None:
    """A run killed after it made ``original/`` and before ``state.json``: the next port
    starts over it."""
    down = example.downstream
    leftover = down / ".patchkeeper-port" / "original"
    leftover.mkdir(parents=True)
    (leftover / "series").write_text("old\n")
    run = cli("port", "--to", "../upstream/minihttp-1.1", cwd=down)
    assert run.code == 1  # stopped at the example's conflict
    assert (leftover / "series").read_bytes() == (down / "patches" / "series").read_bytes()
