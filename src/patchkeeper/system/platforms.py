"""The platforms patchkeeper runs on: Linux and macOS.

It locks a target with ``fcntl.flock`` and writes files with POSIX modes and atomic renames
(:mod:`patchkeeper.trees.transaction`); Windows has neither ``fcntl`` nor those semantics. Rather
than fail with an ``ImportError`` traceback part way, the command line says so at start-up
(exit 2). The same list is declared in ``pyproject.toml``'s classifiers.
"""

from __future__ import annotations

#: ``sys.platform`` prefixes of the supported platforms, with their names.
SUPPORTED = {"linux": "Linux", "darwin": "macOS"}


def unsupported(platform: str) -> str | None:
    """The message for a ``sys.platform`` patchkeeper does not run on, or ``None``.

    >>> unsupported("linux"), unsupported("darwin")
    (None, None)
    >>> print(unsupported("win32"))
    patchkeeper runs on Linux and macOS only (it locks files with fcntl), not on win32
      hint: on Windows, run it in WSL (Windows Subsystem for Linux) or a Linux container
    """
    if platform.startswith(tuple(SUPPORTED)):
        return None
    names = " and ".join(SUPPORTED.values())
    text = f"patchkeeper runs on {names} only (it locks files with fcntl), not on {platform}"
    if platform in ("win32", "cygwin", "msys"):
        text += (
            "\n  hint: on Windows, run it in WSL (Windows Subsystem for Linux) or a Linux container"
        )
    return text
