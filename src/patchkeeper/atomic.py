"""The one atomic file write: a temporary file beside the path, renamed over it.

``os.replace`` within one directory is atomic on POSIX (rename(2)), so a reader (another
patchkeeper process, a crash, a Ctrl-C) sees the old file or the whole new one, never a torn
one. Every file patchkeeper writes whole goes through :func:`write_atomic`: the ledger, the
evidence store, the fetch cache and its downloads, the runtime cache, the port's work
directory and the transaction's files and journal.
"""

from __future__ import annotations

import os
import tempfile
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
            else what the temporary file got (``0o600`` for a unique name, the umask's for
            ``temporary``).
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
        elif path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        if before_replace is not None:
            before_replace()
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return result
