"""A directory removed while Ctrl-C comes is removed whole, and the Ctrl-C is raised after
it as ``KeyboardInterrupt`` (never the ``OSError`` of a walk cut short)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from patchkeeper.system.removal import remove_tree


def _work_dir(root: Path) -> Path:
    """A port's work directory in its shape: conflict files and the original series, many."""
    work = root / ".patchkeeper-port"
    for n in range(300):
        part = work / "conflict" / "files" / f"pkg{n}"
        part.mkdir(parents=True)
        for m in range(20):
            (part / f"mod{m}.py").write_text("x = 1\n")
    (work / "original").mkdir()
    (work / "original" / "series").write_text("a.patch\n")
    return work


#: Removes the tree at argv[1] with :func:`remove_tree`, a Ctrl-C pressed the moment the
#: removal holds SIGINT (sent from the call that installs its handler, so it always comes
#: while held); prints what was raised, whether the tree is gone and whether Python's own
#: handler is back. In a process of its own, SIGINT's handler Python's own: nothing another
#: test or the shell that started the tests left (a handler, a blocked or ignored signal, a
#: thread) reaches it.
CTRL_C_WHILE_REMOVING = """
import os, signal, sys
from patchkeeper.system.removal import remove_tree

# Ctrl-C as a terminal delivers it: a process started in the background by a shell without
# job control (a CI runner's `cmd &`) inherits SIGINT ignored, and Python then leaves it so
signal.signal(signal.SIGINT, signal.default_int_handler)
install = signal.signal

def press_ctrl_c_once_held(signum, handler):
    previous = install(signum, handler)
    if signum == signal.SIGINT and handler is not signal.default_int_handler:
        os.kill(os.getpid(), signal.SIGINT)
    return previous

signal.signal = press_ctrl_c_once_held
try:
    remove_tree(sys.argv[1])
    raised = "nothing"
except KeyboardInterrupt:
    raised = "KeyboardInterrupt"
signal.signal = install
back = signal.getsignal(signal.SIGINT) is signal.default_int_handler
print(raised, os.path.exists(sys.argv[1]), back)
"""


def test_a_ctrl_c_while_removing_is_raised_after_the_tree_is_gone(tmp_path: Path) -> None:
    work = _work_dir(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C_WHILE_REMOVING, str(work)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "KeyboardInterrupt False True\n", "")


def test_without_ctrl_c_it_removes_and_returns(tmp_path: Path) -> None:
    work = _work_dir(tmp_path)
    remove_tree(work)
    remove_tree(work, ignore_errors=True)  # gone already: nothing to do
    assert not work.exists()
    with pytest.raises(FileNotFoundError):
        remove_tree(work)
