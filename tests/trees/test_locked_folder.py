"""The lock an upgrade outside git takes on ``.patchkeeper/``, a folder made for the lock and
removed again by the run that made it, held by real processes. A process that waited on the
folder while its maker finished held, before, a lock on a removed directory: a third run made
the folder anew, locked that one too, and two upgrades ran at once. The lock now counts only
on the folder still at the path, and the maker removes it before letting go."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from patchkeeper.trees.transaction import locked_folder

#: A process that holds the folder's lock until a file named ``leave`` exists, and writes
#: ``NAME in`` and ``NAME out`` to a log; a lock it cannot take prints the error's message.
HOLDER = """
import sys, time
from pathlib import Path
from patchkeeper.errors import LockError
from patchkeeper.trees.transaction import locked_folder
folder, timeout, log, leave, name = sys.argv[1:]
try:
    with locked_folder(Path(folder), float(timeout), "the test's folder"):
        with open(log, "a") as out:
            out.write(name + " in\\n")
        while not Path(leave).exists():
            time.sleep(0.02)
        with open(log, "a") as out:
            out.write(name + " out\\n")
except LockError as error:
    print(error.message)
    sys.exit(2)
"""


def _start(folder: Path, timeout: float, work: Path, name: str) -> subprocess.Popen[str]:
    args = [str(folder), str(timeout), str(work / "log"), str(work / f"leave-{name}"), name]
    return subprocess.Popen(
        [sys.executable, "-c", HOLDER, *args], stdout=subprocess.PIPE, text=True
    )


def _wait(predicate, seconds: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _has_open(pid: int, folder: Path) -> bool:
    """Whether the process ``pid`` has ``folder`` open (it waits on its lock)."""
    fds = Path(f"/proc/{pid}/fd")
    for fd in fds.iterdir():
        try:
            if os.readlink(fd) == str(folder):
                return True
        except OSError:
            continue
    return False


def test_a_waiter_on_a_removed_folder_takes_the_new_one(tmp_path: Path) -> None:
    folder = tmp_path / ".patchkeeper"
    log = tmp_path / "log"
    with locked_folder(folder, 1.0, "the test's folder"):  # this process made it
        waiter = _start(folder, 30.0, tmp_path, "waiter")
        _wait(lambda: _has_open(waiter.pid, folder))
    # Let go and removed; the waiter, which had the old folder open, holds the new one.
    _wait(lambda: log.exists() and log.read_text() == "waiter in\n")
    assert folder.is_dir()
    late = _start(folder, 0.3, tmp_path, "late")
    out, _ = late.communicate(timeout=30)
    assert (late.returncode, out) == (
        2,
        "another patchkeeper process is working on the test's folder; waited 0.3 s\n",
    )
    (tmp_path / "leave-waiter").touch()
    assert waiter.wait(timeout=30) == 0
    assert log.read_text() == "waiter in\nwaiter out\n"
    assert not folder.exists()  # the waiter made the folder it held: removed


def test_two_processes_at_once_hold_it_in_turn(tmp_path: Path) -> None:
    folder = tmp_path / ".patchkeeper"
    (tmp_path / "leave-first").touch()
    (tmp_path / "leave-second").touch()
    runs = [_start(folder, 30.0, tmp_path, name) for name in ("first", "second")]
    assert [run.wait(timeout=30) for run in runs] == [0, 0]
    lines = (tmp_path / "log").read_text().splitlines()
    assert sorted(lines) == ["first in", "first out", "second in", "second out"]
    assert [line.split()[1] for line in lines] == ["in", "out", "in", "out"]
    assert not folder.exists()
