"""A few statements that a Ctrl-C must not cut in two.

A step of ``upgrade`` ends by committing what it wrote and recording, in the upgrade's
state, that it is done and with which commit. A Ctrl-C between the two left the commit made
and the state saying the step still runs: ``--continue`` ran the step again, found nothing
left to commit, and recorded it without its commit. :func:`interrupt_deferred` notes a first
SIGINT in such a block and raises ``KeyboardInterrupt`` once the block is through, so the
block happens whole; a second SIGINT raises at once (a git that hangs must not keep the
command from ending).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


@contextmanager
def interrupt_deferred(*, raise_after: bool = True) -> Iterator[None]:
    """Run the ``with`` block with a first SIGINT noted, raised as ``KeyboardInterrupt``
    when the block ends (unless the block raised, or ``raise_after`` is false: the caller
    ends with its own result, as :func:`patchkeeper.system.whole_output.writing_result`
    does); a second SIGINT raises at once. Outside the main thread, or when SIGINT is not
    Python's default handler (ignored, or the caller's own), the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.default_int_handler:
        yield
        return
    noted: list[int] = []

    def defer(signum: int, frame: FrameType | None) -> None:
        if noted:
            raise KeyboardInterrupt
        noted.append(signum)

    signal.signal(signal.SIGINT, defer)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if noted and raise_after:
        raise KeyboardInterrupt
