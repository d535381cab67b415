"""The result's output written whole, even when Ctrl-C comes while it is written.

A command's result is printed last, after its work is done. A large ``--json`` envelope
(a horizon of thirty releases is over 64 KiB, more than a pipe holds) is written while the
reader drains the pipe; a Ctrl-C then raised ``KeyboardInterrupt`` in the middle of the write,
and the interrupted run's own envelope followed the cut one: standard output held two JSON
documents, the first cut short, which no script can parse.

:func:`writing_result` defers the first Ctrl-C until the write is done: the output is the
whole result, and the command ends with the result's exit code (its work was done before the
Ctrl-C came). A second Ctrl-C ends the write at once, as a stalled reader must not keep the
command from ending; :data:`STARTED` then says that part of the result is out, so no other
envelope is printed after it.

:func:`write_whole` writes the bytes itself: CPython's buffered writer, its write to a pipe
cut by a signal's handler after part of it was written, drops the rest (the deferred Ctrl-C
left 64 KiB of the envelope and exit code 0).
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from patchkeeper.system.deferred import interrupt_deferred

#: Set once the result's output has begun: an envelope printed after it would make standard
#: output two documents (:func:`patchkeeper.main._json_error` prints none then).
STARTED: list[bool] = []


@contextmanager
def writing_result() -> Iterator[None]:
    """Write the result's output in the ``with`` block: a first SIGINT is noted, not raised,
    until the block ends; a second one raises ``KeyboardInterrupt`` at once. Marks
    :data:`STARTED`. Outside the main thread (no signal handler can be set there), or when
    SIGINT is not Python's default handler (ignored, or the caller's own), it only marks."""
    STARTED[:] = [True]
    with interrupt_deferred(raise_after=False):
        yield


def write_whole(data: bytes, stream: TextIO) -> None:
    """Write ``data`` to ``stream`` (standard output or error), every byte: ``os.write`` on
    its file descriptor until all is written, as a write a signal cuts short returns how much
    it wrote. A stream without a file descriptor (a test's capture) is written through its
    binary buffer, else as text (``surrogateescape``)."""
    stream.flush()
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            buffer.write(data)
            buffer.flush()
        else:
            encoding = getattr(stream, "encoding", None) or "utf-8"
            stream.write(data.decode(encoding, "surrogateescape"))
        stream.flush()
        return
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
