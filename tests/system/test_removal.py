"""A directory removed while Ctrl-C comes is removed whole, and the Ctrl-C is raised after
it as ``KeyboardInterrupt`` (never the ``OSError`` of a walk cut short)."""

from __future__ import annotations

import os
import signal
import threading
import time
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


def test_a_ctrl_c_while_removing_is_raised_after_the_tree_is_gone(tmp_path: Path) -> None:
    work = _work_dir(tmp_path)

    def ctrl_c_once_held() -> None:
        # wait until the removal holds SIGINT, then press Ctrl-C
        deadline = time.monotonic() + 10
        while signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            if time.monotonic() > deadline:
                return
            time.sleep(0.0005)
        os.kill(os.getpid(), signal.SIGINT)

    thread = threading.Thread(target=ctrl_c_once_held)
    thread.start()
    with pytest.raises(KeyboardInterrupt):
        remove_tree(work)
        time.sleep(5)  # a Ctrl-C that came just after the removal lands here
    thread.join()
    assert (work.exists(), signal.getsignal(signal.SIGINT)) == (
        False,
        signal.default_int_handler,
    )


def test_without_ctrl_c_it_removes_and_returns(tmp_path: Path) -> None:
    work = _work_dir(tmp_path)
    remove_tree(work)
    remove_tree(work, ignore_errors=True)  # gone already: nothing to do
    assert not work.exists()
    with pytest.raises(FileNotFoundError):
        remove_tree(work)
