"""Patch paths no tree takes: the path policy ``apply`` enforces on every file a patch names,
shared with the commands that read a series without a tree (``lint``, ``audit``, ``init``,
``export``), so that they report such a path where ``apply`` would stop at it.
"""

from __future__ import annotations

import re
import sys

from patchkeeper.system.names import shown_name


def escapes(relative: str) -> bool:
    """Whether the patch path ``relative`` (POSIX) leaves any tree it is joined to: empty,
    absolute, with a ``..`` component or a NUL byte
    (:func:`patchkeeper.trees.tree.safe_path` refuses it).

    >>> escapes("pkg/mod.py"), escapes("../mod.py"), escapes("/etc/passwd")
    (False, True, True)
    """
    parts = relative.split("/")
    return not relative or relative.startswith("/") or ".." in parts or "\0" in relative


def shown_path(relative: str) -> str:
    """A patch path as a message names it: in quotes, a control character escaped as Python
    writes it (``'x\\x1b[31m'``, so the terminal does not run it), a byte that is not valid
    UTF-8 in git's quoted form (``"caf\\351.txt"``, as the patch and ``git status`` write
    it, :func:`~patchkeeper.system.names.shown_name`), not as the code point Python holds
    it by.

    >>> print(shown_path("pkg/mod.py"), shown_path("caf\\udce9.txt"))
    'pkg/mod.py' "caf\\351.txt"
    """
    if _CONTROL.search(relative) is None and _SURROGATE.search(relative) is not None:
        return shown_name(relative)
    return repr(relative)


def path_refusal(relative: str) -> str:
    """Why :func:`patchkeeper.trees.tree.safe_path` refuses the patch path ``relative`` in
    any tree, or ``""``: it escapes the tree (:func:`escapes`) or names a file it cannot write
    (:func:`name_problem`). A symbolic link of the tree that leads out is the tree's, not
    the path's, and is not judged here. ``lint`` reports such a path, and ``audit`` and ``init``
    take such a patch as unreadable, before ``apply`` refuses it.

    >>> path_refusal("pkg/mod.py")
    ''
    >>> path_refusal("../mod.py")
    'leaves the tree (an absolute path or a .. component)'
    """
    if escapes(relative):
        return "leaves the tree (an absolute path or a .. component)"
    return name_problem(relative)


#: C0 and C1 control characters and DEL.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
#: A byte that is not valid UTF-8, as a name read with ``surrogateescape`` holds it.
_SURROGATE = re.compile("[\udc80-\udcff]")


def name_problem(relative: str) -> str:
    """Why a patch path cannot name a file patchkeeper writes, or ``""``.

    Refused: a control character (C0, DEL, C1: a newline, an escape) and bytes that are not
    valid in the file system's encoding (a name read with ``surrogateescape``); such names
    break messages, the journal and the terminal, and git quotes them for that reason.

    >>> name_problem("pkg/mod.py")
    ''
    >>> print(name_problem("a" + chr(27) + "[31m"))
    holds the control character '\\x1b'
    """
    control = _CONTROL.search(relative)
    if control is not None:
        return f"holds the control character {control.group()!r}"
    encoding = sys.getfilesystemencoding()
    try:
        relative.encode(encoding)
    except UnicodeEncodeError:
        return f"holds bytes that are not valid {encoding} (the file system's encoding)"
    return ""
