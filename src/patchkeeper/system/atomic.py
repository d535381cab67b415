"""The one atomic file write: a temporary file beside the path, renamed over it.

``os.replace`` within one directory is atomic on POSIX (rename(2)), so a reader (another
patchkeeper process, a crash, a Ctrl-C) sees the old file or the whole new one, never a torn
one. Every file patchkeeper writes whole goes through :func:`write_atomic`: the ledger, the
evidence store, the fetch cache and its downloads, the runtime cache, the port's work
directory and the transaction's files and journal.

``tempfile.mkstemp`` creates its file 0600 and ``tempfile.mkdtemp`` its directory 0700
(Python's documentation: "readable and writable only by the creating user"), which suits a
secret, not a report: a file written through one and renamed into place would keep those bits.
So a write sets the bits ``open()`` would have given a new file (``0o666 & ~umask``, and
``0o777 & ~umask`` for a directory; POSIX ``open(2)``/``mkdir(2)``), or keeps the bits of the
file it replaces.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, TypeVar

T = TypeVar("T")


def write_atomic(
    path: Path,
    data: bytes | Callable[[BinaryIO], T],
    *,
    mode: int | None = None,
    parents: bool = False,
    temporary: Path | None = None,
    before_replace: Callable[[], None] | None = None,
) -> T | None:
    """Write ``data`` to ``path`` through a temporary file in the same directory.

    Args:
        path: the file to write (replaced if it exists).
        data: the bytes, or a function that writes into the open binary file and returns a
            value (a download that checks its digest: raising stops the write).
        mode: the permission bits of the new file; default: those of the file it replaces,
            else a new file's bits under the umask (:func:`new_file_mode`).
        parents: create ``path``'s missing parent directories first.
        temporary: a fixed temporary path (a journal that must find it after a crash);
            default: a unique ``.NAME.XXXX.part`` beside ``path``.
        before_replace: called after the temporary file is complete, right before the
            rename (the crash tests' fault injection).

    Returns:
        What ``data`` returned when it is a function, else ``None``.

    Raises:
        OSError: the directory or the file cannot be written; the temporary file is removed
            (as on any exception, including a Ctrl-C) and ``path`` is as it was.
    """
    if parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    if temporary is None:
        import tempfile  # only for a unique name: random is slow to import

        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
        tmp, handle = Path(name), os.fdopen(fd, "wb")
    else:
        tmp, handle = temporary, open(temporary, "wb")  # noqa: SIM115 (closed below)
    try:
        with handle:
            result = data(handle) if callable(data) else None
            if not callable(data):
                handle.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            settle_file(tmp, path)
        if before_replace is not None:
            before_replace()
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return result


def write_output(path: Path, data: bytes, *, temporary: Path | None = None) -> None:
    """Write a file the user names for a command's output (``runtime port --output``,
    ``runtime lock --output``, ``export -o``): atomically (:func:`write_atomic`), except
    where the path is a device, a named pipe or a socket (``/dev/stdout``, a shell's
    ``>(...)``), which is opened and written as a shell's redirection does. A file renamed
    over such a path replaces it: ``--output /dev/stdout`` run as root took the device out
    of ``/dev`` and left a regular file in its place. A symbolic link is written through,
    as a shell's ``>`` and ``--markdown`` do: the file it leads to gets the data (created
    when missing) and the link stays (:func:`output_path`). ``temporary`` is as
    :func:`write_atomic`'s, beside the file written.

    Raises:
        OSError: the file cannot be written (a full device: ``ENOSPC``; a loop of symbolic
            links: ``ELOOP``); a regular file is then as it was.
    """
    from patchkeeper.system.regular import is_special

    real = output_path(path)
    if is_special(real):
        with open(real, "wb") as handle:
            handle.write(data)
        return
    if temporary is not None and real != path:
        temporary = real.with_name(real.name + temporary.name.removeprefix(path.name))
    write_atomic(real, data, temporary=temporary)


def output_path(path: Path) -> Path:
    """The file an output ``path`` names: the one a symbolic link leads to (through every
    link, relative ones from the link's directory), else ``path`` itself.

    Raises:
        OSError: ``ELOOP`` for a loop of symbolic links.
    """
    if not os.path.islink(path):
        return path
    real = Path(os.path.realpath(path))
    if os.path.islink(real):
        import errno

        raise OSError(errno.ELOOP, "a loop of symbolic links", str(path))
    return real


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
