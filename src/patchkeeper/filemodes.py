"""The permission bits of the files and directories patchkeeper creates: the user's umask.

``tempfile.mkstemp`` creates its file 0600 and ``tempfile.mkdtemp`` its directory 0700
(Python's documentation: "readable and writable only by the creating user"), which suits a
secret, not a report. A file written through one and renamed into place would keep those
bits, so ``AUDIT.md`` came out 0600 and ``patches-NEWPIN/`` 0700 whatever the umask. An atomic
write therefore sets the bits ``open()`` would have given a new file (``0o666 & ~umask``,
``0o777 & ~umask`` for a directory; POSIX ``open(2)``/``mkdir(2)``), or keeps the bits of the
file it replaces.
"""

from __future__ import annotations

import os
from pathlib import Path


def current_umask() -> int:
    """The process's umask (read by setting it and putting it back, as pip does).

    >>> old = os.umask(0o027); mask = current_umask(); _ = os.umask(old); oct(mask)
    '0o27'
    """
    mask = os.umask(0)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The bits a new file gets from ``open()``: ``0o666`` less the umask."""
    return 0o666 & ~current_umask()


def new_dir_mode() -> int:
    """The bits a new directory gets from ``mkdir()``: ``0o777`` less the umask."""
    return 0o777 & ~current_umask()


def settle_file(temporary: Path | str, destination: Path | str) -> None:
    """Give ``temporary`` (about to be renamed to ``destination``) the bits of the file it
    replaces, or a new file's bits when there is none.

    Raises:
        OSError: as ``os.chmod``.
    """
    try:
        mode = os.stat(destination).st_mode & 0o7777
    except FileNotFoundError:
        mode = new_file_mode()
    os.chmod(temporary, mode)


def settle_dir(temporary: Path | str) -> None:
    """Give a directory made by ``tempfile.mkdtemp`` a new directory's bits.

    Raises:
        OSError: as ``os.chmod``.
    """
    os.chmod(temporary, new_dir_mode())
