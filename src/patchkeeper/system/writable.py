"""Whether the machine lets this user write a file, or into a directory: the write is tried.

A check before a write (a ``--markdown`` report, the files a commit changes) that asked
``os.access`` got a no that does not say why: a missing permission and a file system mounted
read-only alike, and the refusal gave the wrong hint ("run as a user who can write" where no
user can). :func:`try_write` tries the write instead and leaves everything as it was, so a
refusal is the machine's own ``OSError``, whose ``errno`` (``EROFS``, ``EACCES``, ``EPERM``)
:func:`~patchkeeper.system.refusals.refusal_hint` turns into what to do.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

#: The name of the empty file :func:`try_write` makes in a directory and removes again; the
#: process id (and a number, should that name be taken) keeps two processes apart.
PROBE_NAME = ".patchkeeper-try-write-{pid}-{number}"

#: Opened write-only, not blocking: a FIFO without a reader must not hang the check.
_FLAGS = os.O_WRONLY | os.O_NONBLOCK


def try_write(path: Path) -> None:
    """Try to write ``path`` as a write will, and leave it as it was: an existing file is
    opened to append (nothing written, nothing truncated); in a directory an empty file
    (:data:`PROBE_NAME`) is made and removed; a new file is made and removed again. What it
    makes is removed, whether the try succeeds or fails.

    Raises:
        OSError: the machine's refusal, with its own ``errno`` (``EROFS``, ``EACCES``,
            ``EPERM``...) and file name.
    """
    if path.is_dir():
        _make_and_remove_in(path)
    elif path.exists():
        os.close(os.open(path, _FLAGS | os.O_APPEND))
    else:
        _make_and_remove(path)


def _make_and_remove_in(directory: Path) -> None:
    """Make an empty file of a name not taken yet in ``directory``, and remove it."""
    for number in range(100):
        probe = directory / PROBE_NAME.format(pid=os.getpid(), number=number)
        try:
            _make_and_remove(probe)
        except FileExistsError:
            continue
        except OSError as exc:
            exc.filename = str(directory)  # the directory refused, not a file of ours
            raise
        return
    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(directory))


def _make_and_remove(path: Path) -> None:
    """Make ``path`` (which must not exist) and remove it again, also when closing it fails
    or a Ctrl-C comes in between."""
    fd = os.open(path, _FLAGS | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.close(fd)
    finally:
        os.unlink(path)
