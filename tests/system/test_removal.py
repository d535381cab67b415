"""A directory removed while Ctrl-C comes is removed whole, and the Ctrl-C is raised after
it as ``KeyboardInterrupt`` (never the ``OSError`` of a walk cut short)."""

from __future__ import annotations

import os
import signal
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


def test_a_ctrl_c_while_removing_is_raised_after_the_tree_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = _work_dir(tmp_path)
    install = signal.signal

    def press_ctrl_c_once_held(signum: int, handler: object) -> object:
        # the moment the removal holds SIGINT, a Ctrl-C comes: the signal is delivered to
        # the process now and handled by the held handler at the removal's next step
        previous = install(signum, handler)  # type: ignore[arg-type]
        if signum == signal.SIGINT and handler is not signal.default_int_handler:
            os.kill(os.getpid(), signal.SIGINT)
        return previous

    monkeypatch.setattr(signal, "signal", press_ctrl_c_once_held)
    with pytest.raises(KeyboardInterrupt):
        remove_tree(work)
    monkeypatch.undo()
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
