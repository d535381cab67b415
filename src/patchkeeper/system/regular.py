"""Read a file without hanging on one that is not a regular file.

A tree patchkeeper reads (a target, a pristine release, a plugin) may hold a FIFO, a socket
or a device under a name like any other (``pipe.py``), and a path a setting names (the
series, a patch, the ledger) may be one: ``open`` of a FIFO blocks until a writer comes, so a
plain read would hang the command for ever. :func:`read_regular` opens without blocking and
reads only a regular file (a symbolic link to one included).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


def read_regular(path: Path | str) -> bytes:
    """The bytes of the regular file ``path`` (a symbolic link to one is followed), as
    ``Path.read_bytes`` reads them, except that a FIFO, a socket or a device there is refused
    instead of read: the file is opened without blocking, as ``open`` of a named pipe blocks
    until a writer comes and would hang the command for ever. Used for every file a tree walk
    finds (a target, a pristine release, a plugin) and every file a setting or a convention
    names (the series, a patch, the ledger, the decisions file, a configuration file).

    Raises:
        OSError: it cannot be opened or read, as ``Path.read_bytes`` (a missing file raises
            ``FileNotFoundError``, a directory ``IsADirectoryError``, so that callers still
            tell them apart); for a special file ``EINVAL``, its strerror saying what it is
            (``"a named pipe, not a regular file"``).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as scratch:
    ...     fifo = os.path.join(scratch, "series")
    ...     os.mkfifo(fifo)
    ...     try:
    ...         read_regular(fifo)
    ...     except OSError as exc:
    ...         print(exc.strerror)
    a named pipe, not a regular file
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, f"{file_kind(info.st_mode)}, not a regular file", str(path))
        chunks = []
        while True:
            chunk = os.read(fd, max(info.st_size, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def is_special(path: Path | str) -> bool:
    """Whether ``path`` is there (following a symbolic link) and is no regular file nor a
    directory: a FIFO, a socket or a device, which a walk listing files must leave out. A
    path that cannot be looked at (a dangling link) is not special: reading it reports it.

    >>> is_special("/dev/null"), is_special("/no/such/file")
    (True, False)
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def file_kind(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, with its article (``"a named pipe"``).

    >>> file_kind(os.stat("/dev/null").st_mode), file_kind(os.stat("/").st_mode)
    ('a device', 'a directory')
    """
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def not_a_directory(path: Path | str) -> str | None:
    """What is at ``path`` when something is there but no directory, in words that follow
    the path's role (``"is a named pipe, not a directory"``); ``None`` when nothing is there
    (nor a symbolic link), so that a caller says "does not exist" only then, and a user is
    not sent looking for a path they can list.

    Meant for a path that is no directory (``Path.is_dir`` is false).

    >>> not_a_directory("/dev/null"), not_a_directory("/no/such/dir")
    ('is a device, not a directory', None)
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be looked at: {exc.strerror or exc}"
    if stat.S_ISLNK(info.st_mode):
        try:
            info = os.stat(path)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return "is a symbolic link that loops back on itself"
            return f"is a symbolic link to a missing file ({os.readlink(path)})"
    return f"is {file_kind(info.st_mode)}, not a directory"
