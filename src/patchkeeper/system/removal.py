"""Directories removed whole, even when Ctrl-C comes while they are removed.

``shutil.rmtree`` keeps a file descriptor open for every directory it walks and closes it in
a ``finally``: a Ctrl-C raised in the middle of the walk made that close fail (``OSError:
[Errno 9] Bad file descriptor``), and the ``OSError`` replaced the ``KeyboardInterrupt``: a
command cut short while it dropped a port's work directory (``upgrade --abort``) ended as an
internal error (exit 3) instead of an interruption (exit 130), its work directory half gone.

:func:`remove_tree` defers Ctrl-C until the removal is done, then raises it: the directory is
gone whole, and the command ends as interrupted.
"""

from __future__ import annotations

import shutil
import signal
import threading
from pathlib import Path
from types import FrameType


def remove_tree(path: Path | str, ignore_errors: bool = False) -> None:
    """``shutil.rmtree(path, ignore_errors)`` with SIGINT held until it is done; a SIGINT
    that came meanwhile is raised after it as ``KeyboardInterrupt``. Outside the main thread,
    or when SIGINT is not Python's default handler (ignored, or the caller's own), it only
    removes.

    Raises:
        OSError: as ``shutil.rmtree`` (not with ``ignore_errors``).
        KeyboardInterrupt: a SIGINT came while the directory was removed.
    """
    if threading.current_thread() is not threading.main_thread():
        shutil.rmtree(path, ignore_errors=ignore_errors)
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.default_int_handler:
        shutil.rmtree(path, ignore_errors=ignore_errors)
        return
    noted: list[int] = []

    def defer(signum: int, frame: FrameType | None) -> None:
        noted.append(signum)

    signal.signal(signal.SIGINT, defer)
    try:
        shutil.rmtree(path, ignore_errors=ignore_errors)
    except OSError:
        if noted:
            raise KeyboardInterrupt from None
        raise
    finally:
        signal.signal(signal.SIGINT, previous)
    if noted:
        raise KeyboardInterrupt
