"""File names this Python cannot write: a name read from a file (a series line, a diff's
``+++ b/ü.py``) is text decoded as UTF-8, and the operating system is handed it encoded in the
interpreter's file name encoding. Under the C locale with Python's UTF-8 mode off
(``LC_ALL=C PYTHONUTF8=0``) that encoding is ASCII, and a name such as ``fix-ü.patch`` cannot
be written at all: every file operation on it raises ``UnicodeEncodeError``, which is the
locale's to fix, not a bug.
"""

from __future__ import annotations

import codecs
import os
import sys

from patchkeeper.errors import PatchkeeperError

#: What to do when the file name encoding cannot write a name (PEP 540's UTF-8 mode, or a
#: UTF-8 locale, makes it UTF-8).
HINT = (
    "run patchkeeper with a UTF-8 locale (LC_ALL=C.UTF-8) or with PYTHONUTF8=1; this "
    "Python's file name encoding is {encoding}"
)


def name_problem(name: str) -> str | None:
    """What keeps ``name`` from being handed to the operating system, in words, or
    ``None`` when the file name encoding writes it.

    >>> name_problem("retry.patch") is None
    True
    """
    try:
        os.fsencode(name)
    except UnicodeEncodeError as exc:
        return (
            f"holds {exc.object[exc.start : exc.end]!r}, which this Python's file name "
            f"encoding ({sys.getfilesystemencoding()}) cannot write"
        )
    return None


def name_hint() -> str:
    """:data:`HINT` for this interpreter."""
    return HINT.format(encoding=sys.getfilesystemencoding())


def encoding_refused(exc: BaseException) -> PatchkeeperError | None:
    """An error (exit 2) for a ``UnicodeEncodeError`` of the file name encoding on a name
    no check before it caught, else ``None`` (every other exception is a bug).

    A lone surrogate (a byte of a name read with ``surrogateescape``) that cannot be encoded
    is no matter of the locale: the operating system is handed names with
    ``surrogateescape``, which writes it back as its byte under any encoding, so text that
    failed so was encoded strictly by mistake (a git path in a command's input): a bug, not
    the locale to fix.

    >>> encoding_refused(ValueError("a bug")) is None
    True
    >>> encoding_refused(UnicodeEncodeError("utf-8", "caf\\udce9", 3, 4, "surrogates")) is None
    True
    """
    if not isinstance(exc, UnicodeEncodeError) or not isinstance(exc.object, str):
        return None
    failed = exc.object[exc.start : exc.end]
    if failed and all("\udc80" <= char <= "\udcff" for char in failed):
        return None
    try:
        same = codecs.lookup(exc.encoding).name == codecs.lookup(sys.getfilesystemencoding()).name
    except LookupError:
        return None
    if not same:
        return None
    return PatchkeeperError(
        f"this file name holds {exc.object[exc.start : exc.end]!r}, which this Python's file "
        f"name encoding ({sys.getfilesystemencoding()}) cannot write; patchkeeper stopped here",
        path=exc.object,
        hint=name_hint(),
    )
