"""The problems patchkeeper reports: the one exception tree, and the one finding.

Every failure a user can meet is a :class:`PatchkeeperError` (or a subclass). It carries where
it happened (a file and a 1-based line, when known) and what to do next, so that ``main`` can
print ``FILE:LINE: message`` plus a hint and exit with code 2, never a traceback. The shape
follows pre-commit's ``error_handler.py``: expected failures become messages; only ``main``
decides the exit code.

A problem the evidence shows, which the command reports and goes on (exit code 1), is a
:class:`Finding`: the same place and hint, with the code of the rule that found it. Every
check that reports such problems (``lint``, ``runtime inventory``, ``runtime audit``,
``report``) gives them in this one shape, and its JSON form is the same in every command
(``code``, ``path``, ``line``, ``message``, ``hint``; docs/json.md).
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path

from patchkeeper.jsonable import FILE_NAME, NOT_IN_JSON
from patchkeeper.system.names import shown_name


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
        """Return ``path:line`` (or ``path``, or ``""``) for the start of a message, the
        path as every output shows a file name (:func:`patchkeeper.system.names.shown_name`)."""
        if self.path is None:
            return ""
        path = shown_name(str(self.path))
        if self.line is None:
            return path
        return f"{path}:{self.line}"

    def located(self) -> str:
        """Return ``path:line: message`` (the message alone without a path): the error in
        one line, without its hint, for a clause of another message."""
        where = self.where()
        return f"{where}: {self.message}" if where else self.message

    def __str__(self) -> str:
        text = self.located()
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


class NoSuchRelease(FetchError):
    """The package indexes have the project but no release the requirement matches (the
    hint lists the versions they have): a typo in a pin, or a release not published yet."""


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


@dataclass(frozen=True)
class Finding:
    """One problem at one place.

    Attributes:
        code: which rule found it, stable across versions (a lint code ``PK101``, a runtime
            check ``header-missing``, a record rule ``no-decision``): what a CI
            configuration or a script selects on.
        path: the file it is in (POSIX separators; relative to the downstream or plugin
            root when inside it), ``""`` for a finding about no one file.
        line: the 1-based line in ``path``, ``None`` for the whole file (or no file).
        message: what is wrong, one sentence.
        hint: what to do about it, one sentence; ``""`` when the message says it all.
        named_files: the other files the message names, as it names them (relative to the
            root as ``path`` is): the text form names them from ``cwd`` as it does ``path``
            (:meth:`text`); not in the JSON form (:data:`~patchkeeper.jsonable.NOT_IN_JSON`),
            which keeps the message as it is.
    """

    code: str
    path: str = field(metadata=FILE_NAME)
    line: int | None
    message: str
    hint: str = ""
    named_files: tuple[str, ...] = field(
        default=(), compare=False, repr=False, metadata=NOT_IN_JSON
    )

    def where(self, cwd: str = "") -> str:
        """``path:line``, ``path`` without a line, ``""`` without a path; ``cwd``: the
        directory the path is named from, relative to the root the path is relative to
        (``""``: that root; an absolute path is named as it is).

        >>> Finding("PK101", "a/p.patch", 3, "x").where("a"), Finding("c", "", None, "x").where()
        ('p.patch:3', '')
        """
        if not self.path:
            return ""
        path = self.path
        if cwd and not posixpath.isabs(path):
            path = posixpath.relpath(path, cwd)
        path = shown_name(path)
        return f"{path}:{self.line}" if self.line is not None else path

    def sentence(self) -> str:
        """The message and the hint as one sentence: ``message: hint`` (the message alone
        without a hint).

        >>> Finding("c", "", None, "no recorded environment", "run patchkeeper report").sentence()
        'no recorded environment: run patchkeeper report'
        """
        return f"{self.message}: {self.hint}" if self.hint else self.message

    def text(self, cwd: str = "") -> str:
        """``file:line: code message`` (``file: code message`` without a line, ``code
        message`` without a file), the hint after a colon; ``cwd`` as in :meth:`where`."""
        where = self.where(cwd)
        sentence = self.sentence()
        for name in self.named_files if cwd else ():
            if not posixpath.isabs(name):
                sentence = sentence.replace(name, posixpath.relpath(name, cwd))
        body = f"{self.code} {sentence}"
        return f"{where}: {body}" if where else body

    def github(self) -> str:
        """A GitHub Actions annotation: ``::error file=F,line=N,title=CODE::message``
        (GitHub's workflow-command syntax; the hint after a colon)."""
        props = [f"file={_escape_property(shown_name(self.path))}"] if self.path else []
        if self.line is not None:
            props.append(f"line={self.line}")
        props.append(f"title={self.code}")
        return f"::error {','.join(props)}::{_escape_data(self.sentence())}"


def _escape_data(text: str) -> str:
    # GitHub's workflow-command escaping (actions/toolkit, command.ts: escapeData).
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    # actions/toolkit, command.ts: escapeProperty.
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")
