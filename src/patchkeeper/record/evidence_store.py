"""The evidence store: the last result of every evidence-producing command, in the downstream.

The audit record (docs/audit-record.md) is built from what patchkeeper measured, so each of
``audit``, ``port``, ``runtime inventory``, ``runtime audit``, ``runtime check`` and ``verify``
can save its JSON
result (:func:`patchkeeper.jsonable.to_jsonable`) at ``<downstream>/.patchkeeper/evidence/
<command>.json`` (``runtime audit`` -> ``runtime-audit.json``), with the argv it ran with,
patchkeeper's version and its exit code. A later run of the same command replaces the file.
``patchkeeper record -- CMD...`` adds the validation commands a person runs
(``recorded.json``), and ``report`` adds the measured environment (``environment.json``).

One line of each file holds a time, ``"recorded": "2026-11-30T09:52:42Z"`` (UTC, seconds):
the record says when the evidence was taken; nothing else in the store depends on the clock.
Commit the directory with the record: ``report --check`` in CI reads it. Saving is off by
default (a command that reads writes nothing): it is on for one run with ``--save-evidence``,
and for every run with ``evidence = true`` in ``[tool.patchkeeper.report]`` (:func:`enabled`)
but one given ``--no-save-evidence`` (as the MCP server's read-only tools are).

A sample ``audit.json``::

    {
      "format": 1,
      "command": "audit",
      "argv": ["audit", "--to", "urllib3==1.26.20"],
      "cwd": "/home/me/python-urllib3",
      "patchkeeper": "0.2.0",
      "exit_code": 1,
      "recorded": "2026-11-30T09:52:42Z",
      "result": {"series": "...", "verdicts": [...]}
    }
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from patchkeeper.config import Config
from patchkeeper.constants import STATE_DIR
from patchkeeper.errors import PatchkeeperError
from patchkeeper.system.atomic import write_atomic
from patchkeeper.system.refusals import refusal_hint

#: The evidence directory, relative to the downstream root.
EVIDENCE_DIR = f"{STATE_DIR}/evidence"

#: The commands whose results are evidence (the names ``main.emit(record_as=...)`` uses).
EVIDENCE_COMMANDS = (
    "audit",
    "port",
    "runtime inventory",
    "runtime audit",
    "runtime check",
    "verify",
)

#: Stores that are not a command's result.
RECORDED = "recorded"
#: What to do with a ``recorded.json`` that cannot be read: ``record`` reads it before it
#: adds a run, so running it again cannot rewrite the file.
RECORDED_HINT = "delete it and record the commands again (patchkeeper record -- CMD...)"
ENVIRONMENT = "environment"

#: Version of the file layout; a file of another format is reported, not guessed at.
FORMAT = 1

#: Set it (seconds since the epoch) to make ``recorded`` fixed, as reproducible builds do.
SOURCE_DATE_EPOCH = "SOURCE_DATE_EPOCH"


class EvidenceError(PatchkeeperError):
    """The evidence store cannot be read or written."""


@dataclass(frozen=True)
class StoredEvidence:
    """One saved result.

    Attributes:
        command: the command name (``"runtime audit"``).
        argv: the arguments patchkeeper ran with (without the program name).
        cwd: the directory it ran in (relative paths in ``argv`` start there).
        version: patchkeeper's version then.
        exit_code: the command's exit code.
        recorded: when, ``YYYY-MM-DDTHH:MM:SSZ`` (UTC).
        result: the JSON form of the result (dicts and lists).
        path: the file it was read from.
        decoded: the result read as its typed result, once
            (:mod:`patchkeeper.record.stored_results`); filled when first asked for.
    """

    command: str
    argv: tuple[str, ...]
    cwd: str
    version: str
    exit_code: int
    recorded: str
    result: Any
    path: Path
    decoded: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def option(self, *names: str) -> str | None:
        """The value of the first of ``names`` (``"--to"``) in :attr:`argv`, or ``None``.

        >>> stored = StoredEvidence("audit", ("audit", "--to=x==1"), "", "", 0, "", {}, Path())
        >>> stored.option("--to")
        'x==1'
        """
        for index, arg in enumerate(self.argv):
            for name in names:
                if arg == name and index + 1 < len(self.argv):
                    return self.argv[index + 1]
                if arg.startswith(name + "="):
                    return arg[len(name) + 1 :]
        return None


def enabled(config: Config) -> bool:
    """Whether the downstream keeps evidence by configuration: ``evidence = true`` in
    ``[tool.patchkeeper.report]``; off by default (a command that reads writes nothing)."""
    return (config.sections.get("report") or {}).get("evidence") is True


#: What to do to get evidence, for messages that find none.
HOW_TO_SAVE = (
    "run audit, port, verify or the runtime commands with --save-evidence, or set "
    "evidence = true in [tool.patchkeeper.report] to keep every run's result"
)


def evidence_dir(config: Config) -> Path:
    """``<downstream root>/.patchkeeper/evidence``."""
    return config.root / EVIDENCE_DIR


def file_name(command_name: str) -> str:
    """The store's file name of a command: ``"runtime audit"`` -> ``"runtime-audit.json"``."""
    return "-".join(command_name.split()) + ".json"


def patchkeeper_version() -> str:
    """patchkeeper's version (``"0.2.0"``): :data:`patchkeeper.__version__`, which the build
    writes from the git tag (``[tool.setuptools_scm]`` in ``pyproject.toml``)."""
    from patchkeeper import __version__

    return __version__


def now_utc() -> str:
    """The time to record: ``$SOURCE_DATE_EPOCH`` when set, else now; ISO 8601 UTC seconds."""
    from datetime import datetime, timezone

    epoch = os.environ.get(SOURCE_DATE_EPOCH)
    moment = (
        datetime.fromtimestamp(int(epoch), timezone.utc)
        if epoch and epoch.isdigit()
        else datetime.now(timezone.utc)
    )
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8, ``\n`` line endings) atomically: a temporary file renamed.

    A byte kept by ``surrogateescape`` (a Latin-1 patch header) is written as that byte.

    Raises:
        EvidenceError: the directory cannot be created or written; its hint is the one for
            the machine's refusal (a file system mounted read-only, a full disk: no change of
            the directory's permissions helps there), else to make the directory writable.
    """
    try:
        write_atomic(path, text.encode("utf-8", "surrogateescape"), parents=True)
    except OSError as exc:
        raise EvidenceError(
            f"cannot write: {exc.strerror}",
            path=path,
            hint=refusal_hint(exc, path) or "make the downstream directory writable",
        ) from None


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` as indented UTF-8 JSON, atomically (see :func:`write_text`); a byte
    kept by ``surrogateescape`` is written as its ``\\udcXX`` escape, so the file stays UTF-8
    and reads back as the same string (:func:`patchkeeper.jsonable.json_text`)."""
    from patchkeeper.jsonable import json_text

    write_text(path, json_text(data) + "\n")


def read_json(path: Path, hint: str) -> Any | None:
    """The JSON in ``path``, or ``None`` when the file does not exist; ``hint`` says how
    the user rewrites the file (the command that writes it without reading it first).

    Raises:
        EvidenceError: it exists but cannot be read or is not JSON (with ``hint``).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise EvidenceError(
            f"cannot read: {exc.strerror}",
            path=path,
            hint="make the evidence file readable, or run the command that writes it again",
        ) from None
    import json

    try:
        return json.loads(text)
    except ValueError as exc:
        raise EvidenceError(f"not JSON ({exc})", path=path, hint=hint) from None


def save(config: Config, command_name: str, result: Any, argv: list[str] | tuple[str, ...]) -> Path:
    """Save ``result`` as the latest evidence of ``command_name``; return the file written.

    Args:
        config: the downstream configuration (its ``root`` holds the store).
        command_name: one of :data:`EVIDENCE_COMMANDS`.
        result: the command's result dataclass (its ``exit_code`` is stored too), or one
            whose JSON is ready (:class:`patchkeeper.jsonable.JsonReady`).
        argv: the command line without the program name.

    Raises:
        EvidenceError: the store cannot be written.
    """
    from patchkeeper.jsonable import member_json

    data = {
        "format": FORMAT,
        "command": command_name,
        "argv": list(argv),
        "cwd": os.getcwd(),
        "patchkeeper": patchkeeper_version(),
        "exit_code": int(getattr(result, "exit_code", 0)),
        "recorded": now_utc(),
    }
    path = evidence_dir(config) / file_name(command_name)
    write_text(path, member_json(data, "result", result) + "\n")
    return path


def keep(
    config: Config | None,
    command_name: str,
    result: Any,
    argv: list[str] | tuple[str, ...],
    asked: bool | None = None,
) -> Path | None:
    """Save ``result`` as the evidence of ``command_name`` (:func:`save`) when it is asked for
    (``asked`` true: ``--save-evidence``) or, ``asked`` ``None`` (neither option given),
    configured (:func:`enabled`); ``asked`` false (``--no-save-evidence``, the MCP server's
    read-only tools) keeps nothing. Return the file written, or ``None`` (off, or ``config``
    ``None``: no downstream).

    A store that cannot be written (a read-only checkout) is a warning
    (:func:`patchkeeper.progress.warn`), never an error: the command's own result stands.
    """
    from patchkeeper.progress import warn

    if config is None or asked is False or not (asked or enabled(config)):
        return None
    try:
        return save(config, command_name, result, argv)
    except (PatchkeeperError, OSError) as exc:
        warn(f"the evidence was not saved: {exc}")
        return None


def load(config: Config, command_name: str) -> StoredEvidence | None:
    """The latest saved evidence of ``command_name``, or ``None`` when it never ran.

    Raises:
        EvidenceError: the file is unreadable, not JSON, or of another format.
    """
    path = evidence_dir(config) / file_name(command_name)
    hint = f"run 'patchkeeper {command_name}' with --save-evidence again to rewrite it"
    data = read_json(path, hint)
    if data is None:
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or "result" not in data:
        raise EvidenceError("not an evidence file of this patchkeeper", path=path, hint=hint)
    return StoredEvidence(
        command=str(data.get("command", command_name)),
        argv=tuple(str(a) for a in data.get("argv", ())),
        cwd=str(data.get("cwd", config.root)),
        version=str(data.get("patchkeeper", "")),
        exit_code=int(data.get("exit_code", 0)),
        recorded=str(data.get("recorded", "")),
        result=data["result"],
        path=path,
    )


def load_all(config: Config) -> dict[str, StoredEvidence]:
    """Every saved command result, by command name, in :data:`EVIDENCE_COMMANDS` order."""
    out = {}
    for name in EVIDENCE_COMMANDS:
        found = load(config, name)
        if found is not None:
            out[name] = found
    return out


# --------------------------------------------------------------------------- recorded commands


@dataclass(frozen=True)
class RecordedCommand:
    """A validation command run by ``patchkeeper record -- CMD...``.

    Attributes:
        argv: the command and its arguments.
        cwd: the directory it ran in.
        exit_code: its exit code (127: it could not be started).
        duration: wall time in seconds, rounded to 0.1 s.
        tail: the last lines of its output (standard output and error, interleaved).
        recorded: when it finished (UTC, as :func:`now_utc`).
    """

    argv: tuple[str, ...]
    cwd: str
    exit_code: int
    duration: float
    tail: tuple[str, ...]
    recorded: str


def load_recorded(config: Config) -> list[RecordedCommand]:
    """The recorded validation commands, in the order they were first recorded.

    Raises:
        EvidenceError: ``recorded.json`` is unreadable or malformed.
    """
    path = evidence_dir(config) / file_name(RECORDED)
    data = read_json(path, RECORDED_HINT)
    if data is None:
        return []
    try:
        return [
            RecordedCommand(
                argv=tuple(c["argv"]),
                cwd=str(c["cwd"]),
                exit_code=int(c["exit_code"]),
                duration=float(c["duration"]),
                tail=tuple(c["tail"]),
                recorded=str(c["recorded"]),
            )
            for c in data["commands"]
        ]
    except (KeyError, TypeError, ValueError) as exc:
        raise EvidenceError(
            f"not a record of validation commands ({exc})",
            path=path,
            hint=RECORDED_HINT,
        ) from None


def save_recorded(config: Config, command: RecordedCommand) -> Path:
    """Add ``command`` to ``recorded.json``, replacing an earlier run of the same argv in the
    same directory (it keeps its place); return the file.

    Raises:
        EvidenceError: the store cannot be read or written.
    """
    from patchkeeper.jsonable import to_jsonable

    commands = load_recorded(config)
    same = [i for i, c in enumerate(commands) if (c.argv, c.cwd) == (command.argv, command.cwd)]
    if same:
        commands[same[0]] = command
    else:
        commands.append(command)
    path = evidence_dir(config) / file_name(RECORDED)
    write_json(path, {"format": FORMAT, "commands": to_jsonable(commands)})
    return path
