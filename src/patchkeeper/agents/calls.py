"""A tool call: its arguments checked, then the command line it runs.

Before anything runs, a call is refused (:class:`CallRefused`) when its arguments do not fit
the tool's input schema, when it is a writing tool's and does not say ``write: true``, or when
one of its paths leads outside the server's root. Paths are read as the command reads them:
relative to the ``-C`` directory (itself relative to the root), ``~`` expanded, symbolic links
followed, so that ``..``, an absolute path or a link leading out are all refused. A release
option (``--to``, ``--from``, ``--pristine``, ``--at``) is a path when it names an existing
file or directory or starts with ``.``, ``/`` or ``~`` (as the command line decides), else a
requirement (``urllib3==1.26.20``), which is not a path; a direct reference
(``NAME @ URL``) is refused, since its URL may name a file outside the root.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path, PurePath
from typing import Any

import click

from patchkeeper.agents.tools import (
    WRITE,
    PathRule,
    ToolSpec,
    fixed_options,
    input_schema,
    path_rule,
    read_only_refusal,
    tool_parameters,
)
from patchkeeper.constants import OPTION_JSON
from patchkeeper.errors import PatchkeeperError
from patchkeeper.system.option_values import blank, refuses_blank, refuses_empty


class CallRefused(PatchkeeperError):
    """A tool call refused before it ran: bad arguments, a write without ``write: true``, a
    path outside the root. ``path`` names the offending path when there is one."""


def check_arguments(tool: ToolSpec, group: click.Group, arguments: Mapping[str, Any]) -> None:
    """Refuse arguments that do not fit the tool's input schema; a read-only tool's call
    that asks for a file to be written (``save_evidence``, ``markdown``) is refused saying
    so (:func:`patchkeeper.agents.tools.read_only_refusal`).

    Raises:
        CallRefused: naming the first argument that does not fit and why.
    """
    from jsonschema import Draft202012Validator

    to = arguments.get("to")
    for key in arguments:
        refusal = read_only_refusal(tool, group, key, to if isinstance(to, str) else None)
        if refusal is not None:
            raise CallRefused(refusal[0], hint=refusal[1])
    validator = Draft202012Validator(input_schema(tool, group))
    errors = sorted(validator.iter_errors(dict(arguments)), key=lambda e: list(e.path))
    if errors:
        error = errors[0]
        where = "/".join(str(part) for part in error.absolute_path)
        raise CallRefused(
            f"{tool.name}: {where + ': ' if where else ''}{error.message}",
            hint="call it with the arguments its input schema lists (tools/list)",
        )
    _refuse_empty(tool, group, arguments)


def _refuse_empty(tool: ToolSpec, group: click.Group, arguments: Mapping[str, Any]) -> None:
    """Refuse an empty text argument (``python: ""``, ``to: " "``) that the command line
    refuses as "needs a value" (:func:`patchkeeper.system.option_values.refuses_empty`),
    before the checks that would read it as something else: an empty ``python`` is no bare
    name, and no ``python`` at all to the check of a writing tool's target; a blank
    positional argument (``name: " "``, ``left: ""``) is refused, naming it, as the command
    line refuses it (:func:`patchkeeper.system.option_values.refuses_blank`). ``directory``
    has its own refusal (:func:`check_paths`), which says where it is read from.

    Raises:
        CallRefused: ``--python needs a value``, said with the argument's name.
    """
    for key, param, _ in tool_parameters(tool, group):
        value = arguments.get(key)
        if isinstance(param, click.Argument):
            if refuses_blank(param) and isinstance(value, str) and blank(value):
                needed = param.required or key in tool.requires
                raise CallRefused(
                    f"{key} needs a value",
                    hint=f"give {key} a value{'' if needed else ', or leave it out'} (tools/list "
                    "describes it)",
                )
            continue
        values = value if isinstance(value, list) else [value]
        if key == "directory" or not isinstance(param, click.Option) or not refuses_empty(param):
            continue
        if any(isinstance(one, str) and blank(one) for one in values):
            option = next(opt for opt in param.opts if opt.startswith("--"))
            needed = param.required or key in tool.requires
            raise CallRefused(
                f"{option} needs a value",
                hint=f"give {key} a value{'' if needed else ', or leave it out'} (tools/list "
                "describes it)",
            )


def check_write(tool: ToolSpec, arguments: Mapping[str, Any]) -> None:
    """Refuse a writing tool's call that does not say ``write: true``.

    Raises:
        CallRefused: the tool writes and ``write`` is not ``true``.
    """
    if tool.writes and arguments.get(WRITE) is not True:
        raise CallRefused(
            f"{tool.name} writes files and the call did not say write: true",
            hint=f"call {tool.name} again with write: true once the change is wanted; the "
            "read-only tools (audit, verify, status, ...) show what it would do",
        )


def _inside(path: Path, root: Path, option: str, value: str) -> Path:
    """``path`` (absolute) resolved, or :class:`CallRefused` when it leads outside ``root``;
    ``option`` and ``value`` are what the message names (the argument ``to``, the path as
    given: the call gave arguments, not the command line's options)."""
    try:
        resolved = path.resolve()
    except (OSError, ValueError) as exc:  # a NUL byte, a loop of symbolic links
        raise CallRefused(
            f"{option} is not a usable path: {exc}", hint="pass a plain path"
        ) from None
    if resolved != root and root not in resolved.parents:
        raise CallRefused(
            f"{option} leads outside the server's root {root}",
            path=value,
            hint="pass a path inside the root, or start the server with a --root that holds it",
        )
    return resolved


def _check_value(rule: PathRule, option: str, value: str, base: Path, root: Path) -> None:
    """Check one value of the argument ``option`` (``to``) by its ``rule``, relative paths
    read from ``base`` (the command's directory).

    Raises:
        CallRefused: the value leads outside ``root``, or is a direct reference.
    """
    if rule is PathRule.PLAIN:
        return
    if rule is PathRule.INSIDE:
        parts = PurePath(value).parts
        if PurePath(value).is_absolute() or ".." in parts or value.startswith("~"):
            raise CallRefused(
                f"{option} must be a relative path inside its directory, without '..'",
                path=value,
                hint="give it relative to the directory it lives in",
            )
        return
    text = value
    if rule is PathRule.NAMED_PATH:
        text = value.partition("=")[2] if "=" in value else value
    path = base / Path(text).expanduser()
    if rule is PathRule.RELEASE and not (os.path.exists(path) or text.startswith((".", "/", "~"))):
        if "@" in text or "://" in text:
            raise CallRefused(
                f"{option} {value!r} is a direct reference (NAME @ URL), which may name a "
                "file outside the server's root",
                hint="pass a directory inside the root, or NAME==VERSION",
            )
        return  # a requirement: fetched into the cache, not a path
    if rule is PathRule.INTERPRETER:
        if os.sep not in value and not (os.altsep and os.altsep in value):
            raise CallRefused(
                f"{option} is a bare name, which the command looks up on PATH, "
                "outside the server's root",
                path=value,
                hint=f"give the interpreter's path relative to directory: ./{value} for the "
                "file there, .venv/bin/python for a virtual environment's",
            )
        _inside(path.parent, root, option, value)
        return
    _inside(path, root, option, value)


def check_paths(
    tool: ToolSpec, group: click.Group, arguments: Mapping[str, Any], root: Path
) -> None:
    """Refuse a call with a path outside ``root`` (absolute and resolved).

    Raises:
        CallRefused: naming the argument and the path.
    """
    base = root
    directory = arguments.get("directory")
    if isinstance(directory, str) and not directory.strip():
        raise CallRefused(
            "directory is empty",
            hint=f"directory is relative to the server's root {root}: pass the "
            "downstream's directory (the one holding patchkeeper.toml), or leave it out "
            "for the root itself",
        )
    if isinstance(directory, str):
        base = _inside(root / Path(directory).expanduser(), root, "directory", directory)
        if not base.is_dir():
            from patchkeeper.system.regular import file_kind

            # what is there (a file, a named pipe), or nothing
            there = "nothing there"
            if base.exists():
                there = f"{file_kind(base.stat().st_mode)} there, not a directory"
            raise CallRefused(
                f"directory names {there} ({base})",
                path=directory,
                hint=f"directory is relative to the server's root {root}: pass the "
                "downstream's directory (the one holding patchkeeper.toml), or leave it out "
                "for the root itself",
            )
    for key, param, _ in tool_parameters(tool, group):
        value = arguments.get(key)
        if value is None or key == "directory" or isinstance(value, bool):
            continue
        values = value if isinstance(value, list) else [value]
        rule = path_rule(key, param)
        for one in values:
            _check_value(rule, key, str(one), base, root)


def check_installed_target(
    tool: ToolSpec, group: click.Group, arguments: Mapping[str, Any], root: Path
) -> Path | None:
    """Refuse a writing tool's call that names neither ``target`` nor ``python`` when its
    command takes them: the command then writes to the upstream installed in the server's own
    environment, which is outside the root (``write_apply`` without a target patched the
    site-packages of the interpreter running the server). With ``python``, the directories
    that interpreter installs into (its ``purelib`` and ``platlib``) must be inside the
    root: ``python`` itself may be a link leading out, as a virtual environment's is, so a
    link to a system interpreter placed in the root is refused by :func:`check_environment`.

    Returns:
        The interpreter whose install directories are to be checked (``python`` as the
        command reads it), or ``None``. Running it is the caller's: the server runs it as a
        process of its own (:data:`ENVIRONMENT_PROBE`), so that a slow interpreter holds up
        neither the server's other requests nor a cancellation or Ctrl-C.

    Raises:
        CallRefused: naming the tool and what to pass instead.
    """
    if not tool.writes or arguments.get("target") is not None:
        return None
    keys = {key for key, _, _ in tool_parameters(tool, group)}
    if "target" not in keys:
        return None
    python = arguments.get("python")
    if python:
        return root / str(arguments.get("directory") or ".") / str(python)
    raise CallRefused(
        f"{tool.name} without target writes to the upstream installed in the server's "
        "own environment, outside the root",
        hint="pass target (a tree inside the root, such as a copy of the release) or "
        "python (the interpreter of an environment inside the root)",
    )


#: The arguments after the interpreter that print the two directories it installs into
#: (``purelib`` then ``platlib``, one a line), for :func:`check_environment`.
ENVIRONMENT_PROBE = (
    "-I",
    "-c",
    "import sysconfig; p = sysconfig.get_paths(); print(p['purelib']); print(p['platlib'])",
)


def check_environment(tool: ToolSpec, python: Path, answer: str, root: Path) -> None:
    """Refuse ``python`` when a directory it installs into lies outside ``root``;
    ``answer`` is what :data:`ENVIRONMENT_PROBE` printed in it. An interpreter that does not
    answer is left to the command, which names the problem.

    Raises:
        CallRefused: naming the directory outside the root.
    """
    real_root = root.resolve()
    for line in answer.splitlines():
        where = Path(line).resolve()
        if not where.is_relative_to(real_root):
            raise CallRefused(
                f"{tool.name}: --python installs into {where}, outside the server's root "
                f"{real_root}",
                path=python,
                hint="pass the interpreter of a virtual environment inside the root, or target "
                "(a tree inside the root)",
            )


def check_configured_places(tool: ToolSpec, arguments: Mapping[str, Any], root: Path) -> None:
    """Refuse a writing tool's call when the downstream's configuration puts a place the
    command writes outside ``root``: the downstream itself (a configuration found in a
    directory above the root), the series, the ledger, the port's work directory, the
    decisions file, the audit record, the plugin. A call names only paths inside the root,
    but the configuration, a file inside it an agent can edit, could name
    ``series = "../../elsewhere/series"`` and have ``port --continue`` write there. A
    configuration that does not load is left to the command, which names the error.

    Raises:
        CallRefused: naming the place, the setting that puts it there, and its path.
    """
    if not tool.writes:
        return
    from patchkeeper.config import load_config
    from patchkeeper.upgrade.run import has_runtime, has_series, write_places

    real_root = root.resolve()
    base = root / str(arguments.get("directory") or ".")
    config_file = arguments.get("config")
    try:
        config = load_config(base / str(config_file) if config_file else None, start=base)
        places = [("the downstream (its configuration's directory)", config.root)]
        places += write_places(config, has_series(config), has_runtime(config))
    except PatchkeeperError:
        return
    for what, path in places:
        where = Path(os.path.abspath(base / path)).resolve()
        if not where.is_relative_to(real_root):
            raise CallRefused(
                f"{tool.name}: {what} is outside the server's root {real_root}",
                path=where,
                hint="set it to a path inside the root in the downstream's configuration, or "
                "start the server with a --root that holds it",
            )


def _words(param: click.Parameter, value: Any) -> list[str]:
    """The command-line words that give ``param`` the value ``value``: ``--to=VALUE`` (one
    word, so that a value starting with ``-`` is not read as an option), ``-C VALUE``, a
    flag alone (false: its ``--no-...`` form when it has one, as ``--no-save-evidence``,
    else nothing), an argument's values as they are."""
    if not isinstance(param, click.Option):
        return [str(one) for one in (value if isinstance(value, list) else [value])]
    long = [opt for opt in param.opts if opt.startswith("--")]
    if param.is_flag:
        if not value:
            return list(param.secondary_opts[:1])
        return [(long or param.opts)[0]]
    words: list[str] = []
    for one in value if isinstance(value, list) else [value]:
        words += [f"{long[0]}={one}"] if long else [param.opts[0], str(one)]
    return words


def command_line(tool: ToolSpec, group: click.Group, arguments: Mapping[str, Any]) -> list[str]:
    """The arguments of ``patchkeeper`` that run the call (without the program, with
    ``--json``): the group's options, the command, its fixed options, the call's options,
    then its positional arguments after ``--``.

    >>> from patchkeeper.main import cli
    >>> from patchkeeper.agents.tools import find_tool
    >>> tool = find_tool("audit")
    >>> command_line(tool, cli, {"directory": "down", "to": "minihttp==1.1", "write": True})
    ['-C', 'down', 'audit', '--no-save-evidence', '--to=minihttp==1.1', '--json']
    """
    before: list[str] = []
    after: list[str] = []
    positional: list[str] = []
    for key, param, first in tool_parameters(tool, group):
        if key not in arguments or arguments[key] is None:
            continue
        words = _words(param, arguments[key])
        if isinstance(param, click.Argument):
            positional += words
        else:
            (before if first else after).extend(words)
    tail = ["--", *positional] if positional else []
    return [*before, *tool.path, *fixed_options(tool, group), *after, OPTION_JSON, *tail]
