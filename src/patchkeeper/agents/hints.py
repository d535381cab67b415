"""The advice of a tool's result, said in tools and arguments rather than command lines.

A command's hints and next steps are written for a person at a terminal: "run 'patchkeeper
upgrade --continue'", "pass --force". An agent calling the server runs tools, not command
lines, so the server says each of them in tools before it answers
(:func:`translate_envelope`), read from :data:`patchkeeper.agents.tools.TOOLS` and the click
commands, so that a new tool or option is said without a second list to keep:

* a command line ``patchkeeper COMMAND OPTIONS`` becomes the tool that runs that command with
  those options (its fixed options, as ``--continue``, among them; every other option one of
  its parameters, the group's ``-C DIR`` and ``--config FILE`` before the command its
  ``directory`` and ``config``) and its arguments: ``write_upgrade_continue (write: true)``; with
  ``--help``, the description and input schema of the command's tools. A command line no
  tool runs stays, followed by ``(a command line: no tool runs it)``;
* an option alone (``--force``) becomes the argument of the tool that was called
  (`` `force: true` `` for a flag, `` `to` `` for an option whose value follows), when
  that tool has it (``-C`` alone: `` `directory` ``); ``--help``, the tool's description
  and input schema (tools/list). Any other option (``git stash -u``, ``git -C PLACE``, the
  server's ``--root``) stays.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

import click

from patchkeeper.agents.tools import (
    TOOLS,
    WRITE,
    ToolSpec,
    find_command,
    fixed_options,
    tool_parameters,
)

#: What is appended to a command line no tool runs.
NO_TOOL = "(a command line: no tool runs it)"
#: What ``--help`` becomes.
HELP = "the tool's description and input schema (tools/list)"
#: What ``patchkeeper --help`` (no command) becomes.
HELP_ALL = "the tools' descriptions and input schemas (tools/list)"

#: A command line in running text: ``patchkeeper`` and its words, up to a quote, a
#: backquote, ``&&``, ``;``, ``,``, ``#``, ``(`` or ``)``; with the ``run`` before it.
_COMMAND_LINE = re.compile(r"(?:\brun )?(['`]?)\bpatchkeeper((?: +[^\s'`;,#()&]+)+)\1")
#: An option alone: ``--force``, ``--no-save-evidence``, ``--to=VALUE``; in single quotes
#: too, as click names one in its errors (``Invalid value for '--plugin'``), the quotes then
#: part of the match.
_OPTION = re.compile(r"(?<![\w-])(')?--([a-z][a-z0-9-]*)(?:=((?:(?(1)[^\s']|\S))+))?(?(1)')")
#: A short option alone: ``-C`` (``pass -C DIR``).
_SHORT = re.compile(r"(?<![\w-])-([A-Za-z])(?![\w-])")
#: Another program's command line up to the end of the text: its short options are its own
#: (``git -C PLACE switch``, ``tar -xf FILE -C DIR``), until a clause ends.
_FOREIGN = re.compile(r"\b(?:git|tar|pip|pipx|python3?|uv|quilt|patch)\b[^,;()]*$")


def _leading(group: click.Group, words: list[str]) -> int:
    """How many of ``words`` are the group's options before the command, with their values
    (``-C DIR``, ``--config=FILE``): ``patchkeeper -C patches-2.0 apply`` runs ``apply``."""
    options: dict[str, click.Option] = {}
    for param in group.params:
        if isinstance(param, click.Option) and param.expose_value:
            for name in (*param.opts, *param.secondary_opts):
                options[name] = param
    taken = 0
    while taken < len(words):
        name, equals, _ = words[taken].partition("=")
        option = options.get(name)
        if option is None:
            break
        taken += 1 if option.is_flag or equals else 2
    return min(taken, len(words))


def _command_path(group: click.Group, words: list[str]) -> tuple[str, ...]:
    """The longest run of ``words`` from the start, after the group's options
    (:func:`_leading`), that names a command under ``group``."""
    path: tuple[str, ...] = ()
    for word in words[_leading(group, words) :]:
        if word.startswith("-"):
            break
        try:
            find_command(group, (*path, word))
        except LookupError:
            break
        path = (*path, word)
    return path


def _extent(group: click.Group, words: list[str]) -> int:
    """How many of ``words`` (the words after ``patchkeeper`` of an unquoted command line)
    the command line takes: its command, then each option with its value and each argument
    the command has room for. The words after go on with the sentence (``patchkeeper init
    --upstream NAME==VERSION writes them``: ``writes them`` is no part of the command)."""
    path = _command_path(group, words)
    if not path:
        return len(words)
    command = find_command(group, path)
    options: dict[str, click.Option] = {}
    room = 0
    for param in command.params:
        if isinstance(param, click.Option):
            for name in (*param.opts, *param.secondary_opts):
                options[name] = param
        elif isinstance(param, click.Argument):
            room += param.nargs if param.nargs > 0 else len(words)
    taken = _leading(group, words) + len(path)
    while taken < len(words):
        word = words[taken]
        taken += 1
        if word.startswith("-"):
            name, equals, _ = word.partition("=")
            option = options.get(name)
            if option is not None and not (option.is_flag or option.count or equals):
                taken += 1  # its value
        elif room > 0:
            room -= 1
        else:
            return taken - 1
    return min(taken, len(words))


def _options(params: list[tuple[str, click.Parameter]], words: list[str]) -> dict[str, Any]:
    """The arguments ``words`` (a command line's options, without its command) give the
    parameters ``params`` (``(key, click parameter)``).

    Raises:
        KeyError: a word no parameter takes.
    """
    arguments: dict[str, Any] = {}
    rest = list(words)
    while rest:
        word = rest.pop(0)
        name, _, value = word.partition("=")
        found = None
        for key, param in params:
            if isinstance(param, click.Option) and name in (*param.opts, *param.secondary_opts):
                found = key, param
                break
        if found is None:
            raise KeyError(word)
        key, param = found
        assert isinstance(param, click.Option)
        if param.is_flag:
            arguments[key] = name not in param.secondary_opts
            continue
        if not value:
            if not rest:
                raise KeyError(word)
            value = rest.pop(0)
        several = param.multiple and key != "directory"  # a tool's -C is one directory
        arguments[key] = [*arguments.get(key, []), value] if several else value
    return arguments


def _said(tool: ToolSpec, arguments: dict[str, Any]) -> str:
    """``tool (key: value, ...)`` with ``write: true`` for a writing tool."""
    if tool.writes:
        arguments = {**arguments, WRITE: True}
    if not arguments:
        return tool.name
    listed = ", ".join(f"{key}: {json.dumps(value)}" for key, value in arguments.items())
    return f"{tool.name} ({listed})"


def tool_of_command_line(group: click.Group, words: list[str]) -> str | None:
    """The tool and arguments that do what ``patchkeeper WORDS`` does, or ``None`` when no
    tool does: the first tool of :data:`TOOLS` whose command is the words' and whose fixed
    options and parameters take every option given.

    >>> from patchkeeper.main import cli
    >>> tool_of_command_line(cli, ["upgrade", "--continue"])
    'write_upgrade_continue (write: true)'
    >>> tool_of_command_line(cli, ["apply", "--target", "COPY"])
    'write_apply (target: "COPY", write: true)'
    >>> tool_of_command_line(cli, ["unapply", "--force"]) is None
    True
    """
    path = _command_path(group, words)
    if not path:
        return None
    leading = _leading(group, words)
    options = words[:leading] + words[leading + len(path) :]
    for tool in TOOLS:
        if tool.path != path:
            continue
        fixed = fixed_options(tool, group)
        given = [word for word in options if word not in fixed]
        if any(word not in options for word in tool.fixed):
            continue
        params = [(key, param) for key, param, _ in tool_parameters(tool, group)]
        try:
            return _said(tool, _options(params, given))
        except KeyError:
            continue
    return None


def translate(
    text: str, tool: ToolSpec | None, group: click.Group, given: Iterable[str] = ()
) -> str:
    """``text`` (a hint, a next step) with its command lines and options said as tools and
    arguments; ``tool``: the tool that was called, whose arguments a lone option names.
    ``given``: the call's own argument values, which a message quotes as they were given
    (a ``to`` of ``--help`` is the call's value, not the command line's option) and are
    left as they are.

    >>> from patchkeeper.main import cli
    >>> translate("`to` has no value: --help is an option", None, cli, ["--help"])
    '`to` has no value: --help is an option'
    >>> translate("run 'patchkeeper --help' to see how to call it", None, cli)
    "read the tools' descriptions and input schemas (tools/list) to see how to call it"
    """
    # a value an option could be read in, hidden under a word no pattern takes
    kept = sorted({value for value in given if _OPTION.search(value)}, key=len, reverse=True)
    masks = {f"GIVENVALUE{number}X": value for number, value in enumerate(kept)}

    def command_line(match: re.Match[str]) -> str:
        words = match.group(2).split()
        if not _command_path(group, words):  # "the patchkeeper that started it": no command
            if words == ["--help"]:
                return f"{'read ' if match.group(0).startswith('run ') else ''}{HELP_ALL}"
            return _OPTION.sub(option, match.group(0))
        verb = match.group(0).startswith("run ")
        if "--help" in words:
            path = _command_path(group, words)
            helped = [spec.name for spec in TOOLS if path and spec.path == path]
            if helped:
                listed = ", ".join(helped)
                return (
                    f"{'read ' if verb else ''}the description and input schema of {listed} "
                    "(tools/list)"
                )
        said = tool_of_command_line(group, words)
        if said is None:
            return f"{match.group(0)} {NO_TOOL}"
        return f"{'call ' if verb else ''}{said}"

    keys: dict[str, tuple[str, click.Parameter]] = {}
    if tool is not None:
        for key, param, _ in tool_parameters(tool, group):
            if isinstance(param, click.Option):
                for opt in (*param.opts, *param.secondary_opts):
                    keys[opt] = key, param

    def short(match: re.Match[str]) -> str:
        name = f"-{match.group(1)}"
        if name not in keys or _FOREIGN.search(match.string, 0, match.start()):
            return match.group(0)
        return f"`{keys[name][0]}`"

    def option(match: re.Match[str]) -> str:
        name = f"--{match.group(2)}"
        if name == "--help":
            return HELP
        if name not in keys:
            return match.group(0)
        key, param = keys[name]
        assert isinstance(param, click.Option)
        if param.is_flag:
            return f"`{key}: {json.dumps(name not in param.secondary_opts)}`"
        value = match.group(3)
        return f"`{key}: {json.dumps(value)}`" if value else f"`{key}`"

    def prose(part: str) -> str:
        """The options of text outside a command line, the call's own values kept."""
        for mask, value in masks.items():
            part = part.replace(value, mask)
        part = _SHORT.sub(short, _OPTION.sub(option, part))
        for mask, value in masks.items():
            part = part.replace(mask, value)
        return part

    parts = []
    last = 0
    for match in _COMMAND_LINE.finditer(text):
        parts.append(prose(text[last : match.start()]))
        end = match.end()
        if not match.group(1):  # unquoted: the sentence may go on after the command
            words = list(re.finditer(r"\S+", match.group(2)))
            taken = _extent(group, [word.group(0) for word in words])
            if 0 < taken < len(words):
                end = match.start(2) + words[taken - 1].end()
                head = _COMMAND_LINE.fullmatch(text, match.start(), end)
                assert head is not None  # a shorter run of the same words
                match = head
        parts.append(command_line(match))
        last = end
    parts.append(prose(text[last:]))
    return "".join(parts)


def translate_envelope(
    envelope: dict[str, Any], tool: ToolSpec | None, group: click.Group, given: Iterable[str] = ()
) -> dict[str, Any]:
    """``envelope`` with its advice translated (:func:`translate`), in place: the error's
    message (``--from nowhere: no directory``, which names the option the call gave as an
    argument) and hint, the envelope's ``hint`` and ``warnings``, and the next steps of
    ``upgrade`` (each conflict's hint, ``verify``) and of ``port`` (``todo``); ``given``:
    the call's argument values, quoted as given. Returns the envelope."""
    kept = tuple(given)
    say: Callable[[str], str] = lambda text: translate(text, tool, group, kept)  # noqa: E731
    error = envelope.get("error")
    for key in ("message", "hint"):
        if isinstance(error, dict) and isinstance(error.get(key), str):
            error[key] = say(error[key])
    if isinstance(envelope.get("hint"), str):
        envelope["hint"] = say(envelope["hint"])
    for conflict in envelope.get("conflicts") or []:
        if isinstance(conflict, dict) and isinstance(conflict.get("hint"), str):
            conflict["hint"] = say(conflict["hint"])
    for key in ("verify", "todo", "warnings"):
        steps = envelope.get(key)
        if isinstance(steps, list):
            envelope[key] = [say(step) if isinstance(step, str) else step for step in steps]
    return envelope
