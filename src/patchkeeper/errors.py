"""The one exception tree of patchkeeper.

Every failure a user can meet is a :class:`PatchkeeperError` (or a subclass). It carries where
it happened (a file and a 1-based line, when known) and what to do next, so that ``main`` can
print ``FILE:LINE: message`` plus a hint and exit with code 2, never a traceback. The shape
follows pre-commit's ``error_handler.py``: expected failures become messages; only ``main``
decides the exit code.
"""

from __future__ import annotations

import os
from pathlib import Path


class PatchkeeperError(Exception):
    """An expected failure, reported to the user as ``where: message`` plus a hint.

    Args:
        message: what happened, one sentence, no trailing period needed.
        path: the file the problem is in, if any.
        line: the 1-based line in ``path``, if known.
        hint: what the user can do next.
    """

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        path: Path | str | None = None,
        line: int | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = Path(path) if path is not None else None
        self.line = line
        self.hint = hint

    def where(self) -> str:
        """Return ``path:line`` (or ``path``, or ``""``) for the start of a message."""
        if self.path is None:
            return ""
        if self.line is None:
            return str(self.path)
        return f"{self.path}:{self.line}"

    def __str__(self) -> str:
        where = self.where()
        text = f"{where}: {self.message}" if where else self.message
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class ConfigError(PatchkeeperError):
    """The configuration (``[tool.patchkeeper]`` or ``patchkeeper.toml``) is missing or wrong."""


class PatchFormatError(PatchkeeperError):
    """A series or patch file cannot be parsed (malformed hunk, truncated, binary, ...)."""


class TargetError(PatchkeeperError):
    """An upstream tree cannot be located, read or written (missing, read-only, unsafe path)."""


class FetchError(PatchkeeperError):
    """A requirement could not be found, downloaded, hash-checked or unpacked."""


class LockError(PatchkeeperError):
    """Another patchkeeper process holds the target's lock past the timeout."""


class GitError(PatchkeeperError):
    """A git command failed; the message holds the command, exit code and output."""


class Interrupted(PatchkeeperError):
    """The user interrupted (Ctrl-C) a change, which was rolled back first (exit 130)."""

    exit_code = 130


def log_bug() -> Path:
    """Append the traceback of the exception being handled to ``crash.log`` in
    ``$XDG_CACHE_HOME/patchkeeper`` (``~/.cache/patchkeeper``; the system's temporary
    directory when that cannot be made) and return the log's path: a bug in patchkeeper
    (exit code 3) is reported by where its traceback is, never by the traceback itself."""
    import tempfile
    import traceback

    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "patchkeeper"
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError:
        base = Path(tempfile.gettempdir())
    log = base / "crash.log"
    with log.open("a", encoding="utf-8") as handle:
        handle.write(traceback.format_exc())
        handle.write("\n")
    return log
