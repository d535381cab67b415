"""The errors of file operations the machine refuses: the user's to fix, not bugs.

A command that meets an ``OSError`` no check before it caught (a read-only downstream, a
full disk, a name longer than the file system allows) stops with an error that names the
file and what to do (exit 2); the command line (:mod:`patchkeeper.main`) and the MCP server
(:mod:`patchkeeper.agents.server`) say it alike.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from patchkeeper.constants import CACHE_ENV
from patchkeeper.errors import PatchkeeperError
from patchkeeper.system.cachedir import cache_root

#: What to do when the machine refuses a file operation, by ``errno``: no permission, a
#: file system mounted read-only, no space left, a name longer than the file system allows.
#: These are the user's to fix, not bugs.
REFUSALS = {
    errno.EACCES: "let this user write it and its directory, or work on a copy",
    errno.EPERM: "let this user write it and its directory, or work on a copy",
    errno.EROFS: "the file system is mounted read-only: work on a copy on a writable one",
    errno.ENOSPC: "free some space on that file system and run the command again",
    errno.EDQUOT: "free some space within your quota and run the command again",
    errno.ENAMETOOLONG: (
        "a name in that path is longer than the file system allows (most allow 255 bytes "
        "a name, 4096 a path): check the option or the configuration key that gives it, "
        "and pass a shorter one"
    ),
}


def machine_refused(exc: BaseException) -> PatchkeeperError | None:
    """An error (exit 2) naming the file, for an ``OSError`` the machine raised on a file that
    no check before it caught (a read-only downstream, a full disk, a name given longer than
    the file system allows), else ``None``: every
    other exception is a bug. The message says that the command stopped there; a command that
    writes through a journal has put its files back before this is reached.

    >>> print(machine_refused(PermissionError(13, "Permission denied", "/d/.patchkeeper-port")))
    /d/.patchkeeper-port: Permission denied; patchkeeper stopped here
      hint: let this user write it and its directory, or work on a copy
    >>> machine_refused(ValueError("a bug")) is None
    True
    """
    if not isinstance(exc, OSError) or exc.errno not in REFUSALS:
        return None
    return PatchkeeperError(
        f"{exc.strerror or os.strerror(exc.errno)}; patchkeeper stopped here",
        path=exc.filename,
        hint=refusal_hint(exc),
    )


def refusal_hint(exc: OSError, path: object = None) -> str | None:
    """What to do about ``exc``, a file operation the machine refused on ``path`` (default:
    the exception's own file name), by its ``errno`` (:data:`REFUSALS`), else ``None``: an
    error of a file the command caught itself says what to do as :func:`machine_refused`
    does.

    >>> refusal_hint(OSError(30, "Read-only file system"), "/d/.patchkeeper")
    'the file system is mounted read-only: work on a copy on a writable one'
    >>> refusal_hint(OSError(5, "Input/output error")) is None
    True
    """
    if exc.errno not in REFUSALS:
        return None
    filename = exc.filename if path is None else str(path)
    hint = REFUSALS[exc.errno]
    if exc.errno in (errno.EACCES, errno.EPERM) and _unreadable_file(filename):
        hint = "let this user read it, or work on a copy"
    if exc.errno not in (errno.ENOSPC, errno.EDQUOT, errno.ENAMETOOLONG) and _in_cache(filename):
        hint = (
            f"the cache of downloaded releases is {cache_root()}: set {CACHE_ENV} to a "
            "directory this user can write"
        )
    return hint


def _unreadable_file(filename: object) -> bool:
    """Whether ``filename`` is a file that exists and this user may not read: the refused
    operation was a read (a read-only command meets it too), so the hint asks for read
    access, not for write access to it and its directory."""
    if not isinstance(filename, str) or not filename:
        return False
    return os.path.isfile(filename) and not os.access(filename, os.R_OK)


def _in_cache(filename: object) -> bool:
    """Whether ``filename`` is the cache directory (:func:`cache_root`), a file in it, or a
    folder on its way that making it needed (``~/.cache`` under a read-only home)."""
    if not isinstance(filename, str) or not filename:
        return False
    path, cache = Path(os.path.abspath(filename)), Path(os.path.abspath(cache_root()))
    return (
        path == cache
        or path.is_relative_to(cache)
        or (cache.is_relative_to(path) and not path.exists())
    )
