"""The one shape of every command's ``--json`` output (docs/json.md).

Every output is one JSON object: the envelope (``command``, ``patchkeeper_version``,
``exit_code``, and for a command with a target tree ``target`` as an object with the old
one-line label kept as ``target_label``), then the command's result under its own keys. An
error is the envelope with ``error`` (``message``, ``file``, ``line``, ``hint``) instead of a
result. A key means one thing in every command: :data:`RENAMED` and :data:`DROPPED` say where a
result's field is given under another name or left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from patchkeeper import __version__
from patchkeeper.errors import PatchkeeperError
from patchkeeper.jsonable import JsonReady, joined_json, to_jsonable
from patchkeeper.trees.target_label import TargetLabel

#: Result fields given under another key, per command, so that a key has one JSON type in
#: every command: ``patches``, ``entries`` and ``files`` are lists (apply's patch names,
#: runtime's entries and files), so lint's and check-branch's counts are ``patch_count``,
#: ``entry_count`` and ``file_count``; ``written`` says whether ledger wrote its file, so the
#: files report wrote are ``written_files``.
RENAMED: dict[str, dict[str, str]] = {
    "lint": {"patches": "patch_count", "entries": "entry_count"},
    "check-branch": {"files": "file_count"},
    "report": {"written": "written_files"},
    # the command ``record`` ran: its field ``command`` would collide with the envelope's
    # ``command`` (the name of patchkeeper's command) and be lost
    "record": {"command": "run"},
}

#: Result fields left out, per command: lint's ``output_format`` and ``cwd`` are how the
#: command line asked to print (``--format``) and where it ran, not part of the result.
DROPPED: dict[str, tuple[str, ...]] = {"lint": ("output_format", "cwd")}


def target_object(target: Any, version: Any = None) -> dict[str, Any] | None:
    """The envelope's ``target`` object for a result's ``target`` field.

    ``target`` is a :class:`TargetLabel` (every tree patchkeeper opens has one); a plain
    label (a result read back from saved evidence) gives ``kind``, ``path`` and ``name``
    ``None`` and the result's ``target_version`` as ``version``; ``None`` stays ``None``.
    """
    if target is None:
        return None
    if isinstance(target, TargetLabel):
        return target.as_object()
    return {"kind": None, "path": None, "name": None, "version": version}


def envelope(command: str, result: Any, warnings: Sequence[str] = ()) -> dict[str, Any]:
    """``result`` (a result dataclass) as the JSON envelope of ``command`` (its name as typed:
    ``"audit"``, ``"runtime audit"``), with ``exit_code`` from the result (0 if it has none)
    and, when the command warned, ``warnings`` (each warning's sentence, in order: what
    standard error says after ``patchkeeper: warning:`` in text mode)."""
    body = to_jsonable(result)
    if not isinstance(body, dict):
        body = {"result": body}
    for key in DROPPED.get(command, ()):
        body.pop(key, None)
    for old, new in RENAMED.get(command, {}).items():
        if old in body:
            body[new] = body.pop(old)
    head: dict[str, Any] = {
        "command": command,
        "patchkeeper_version": __version__,
        "exit_code": int(getattr(result, "exit_code", 0)),
    }
    if warnings:
        head["warnings"] = list(warnings)
    body.pop("command", None)  # verify's and status's own name: the envelope's
    if "target" in body and (body["target"] is None or isinstance(body["target"], str)):
        raw = getattr(result, "target", body["target"])
        head["target"] = target_object(raw, getattr(result, "target_version", None))
        head["target_label"] = body.pop("target")
    elif hasattr(result, "envelope_target"):  # a target that is no one tree (the horizon)
        head["target"] = result.envelope_target
        head["target_label"] = getattr(result, "requirement", None)
    return head | body


def usage_hint(error: BaseException) -> str | None:
    """What to do about a usage error (click's, exit code 2): read the help of the command it
    came from, as the text output's ``Try 'patchkeeper COMMAND --help' for help.`` says, so
    that the JSON envelope (and a coding agent's tool error) says it too; ``None`` for an
    error that names no command.

    >>> import click
    >>> ctx = click.Context(click.Command("lint"), info_name="patchkeeper lint")
    >>> usage_hint(click.UsageError("No such option '--bogus'.", ctx))
    "run 'patchkeeper lint --help' to see how to call it"
    """
    import click

    ctx = getattr(error, "ctx", None)
    if not isinstance(error, click.UsageError) or ctx is None:
        return None
    return f"run '{ctx.command_path} --help' to see how to call it"


def error_envelope(command: str | None, error: BaseException, exit_code: int) -> dict[str, Any]:
    """The envelope of a failed command: ``error`` with ``message``, ``file`` and ``line``
    (where the problem is, ``None`` when unknown) and ``hint`` (what to do, or ``None``).

    A usage error's message is the sentence click prints after ``Error:`` in the text output
    (``Missing option '--at'.``, its :meth:`click.ClickException.format_message`), not its
    ``str()`` (``Missing parameter: at``), so that both outputs say the same; its hint is
    :func:`usage_hint`."""
    import click

    detail: dict[str, Any]
    if isinstance(error, click.ClickException):
        hint = usage_hint(error)
        detail = {"message": error.format_message(), "file": None, "line": None, "hint": hint}
    elif isinstance(error, PatchkeeperError):
        detail = {
            "message": error.message,
            "file": str(error.path) if error.path is not None else None,
            "line": error.line,
            "hint": error.hint,
        }
    else:
        detail = {"message": str(error), "file": None, "line": None, "hint": None}
    return {
        "command": command,
        "patchkeeper_version": __version__,
        "exit_code": exit_code,
        "error": detail,
    }


def envelope_text(command: str, ready: JsonReady, warnings: Sequence[str] = ()) -> str | None:
    """The envelope of a result whose JSON is ready (:class:`JsonReady`), as JSON text
    (:func:`patchkeeper.jsonable.raw_json`, undecodable bytes not yet written), without
    decoding it: the text :func:`envelope` gives; ``None`` when the envelope needs the
    result object (a ``target`` or ``command`` key, or fields renamed or dropped)."""
    if not ready.plain or command in DROPPED or command in RENAMED:
        return None
    head: dict[str, Any] = {
        "command": command,
        "patchkeeper_version": __version__,
        "exit_code": ready.exit_code,
    }
    if warnings:
        head["warnings"] = list(warnings)
    return joined_json(head, ready.body)
