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
import shlex
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
    writes_a_file,
)
from patchkeeper.constants import OPTION_ABORT, OPTION_CONTINUE
from patchkeeper.port.instructions import GoOn

#: What is appended to a command line no tool runs.
NO_TOOL = "(a command line: no tool runs it)"
#: What ``--help`` becomes.
HELP = "the tool's description and input schema (tools/list)"
#: What ``patchkeeper --help`` (no command) becomes.
HELP_ALL = "the tools' descriptions and input schemas (tools/list)"

#: A word of a command line as a shell reads it: its characters up to a space, a quote, a
#: backquote, ``&``, ``;``, ``,``, ``#``, ``(`` or ``)``, with a stretch in double quotes
#: and one in single quotes that starts the word, follows an ``=`` or another quoted
#: stretch kept whole (a path with spaces, written with :func:`shlex.quote`: ``'my dir'``,
#: ``--to='my dir'``, ``'it'"'"'s'``); a single quote after other characters ends the word,
#: as the quote that closes ``'patchkeeper port --continue'`` does.
_WORD = r"""(?:"[^"\n]*"|(?<![^\s='"])'[^'\n]*'|[^\s'`;,#()&])+"""
#: A command line in running text: ``patchkeeper`` and its words, up to a quote (one that
#: opens no quoted stretch of a word), a backquote, ``&&``, ``;``, ``,``, ``#``, ``(`` or
#: ``)``; with the ``run`` before it.
_COMMAND_LINE = re.compile(rf"(?:\brun )?(['`]?)\bpatchkeeper((?: +{_WORD})+)\1")
#: An option alone: ``--force``, ``--no-save-evidence``, ``--to=VALUE``; in single quotes
#: too, as click names one in its errors (``Invalid value for '--plugin'``), the quotes then
#: part of the match.
_OPTION = re.compile(r"(?<![\w-])(')?--([a-z][a-z0-9-]*)(?:=((?:(?(1)[^\s']|\S))+))?(?(1)')")
#: A short option alone: ``-C`` (``pass -C DIR``).
_SHORT = re.compile(r"(?<![\w-])-([A-Za-z])(?![\w-])")
#: A command in parentheses without ``patchkeeper`` and with options only: ``(port
#: --continue)``.
_BARE = re.compile(r"\(([a-z][a-z-]*(?: [a-z][a-z-]*)?(?: --[a-z][a-z-]*)+)\)")
#: Another program's command line up to the end of the text: its short options are its own
#: (``git -C PLACE switch``, ``tar -xf FILE -C DIR``), until a clause ends.
_FOREIGN = re.compile(r"\b(?:git|tar|pip|pipx|python3?|uv|quilt|patch)\b[^,;()]*$")


def _words(text: str) -> list[re.Match[str]]:
    """The words of ``text`` (the words after ``patchkeeper`` of a command line), each a
    match of :data:`_WORD` whose quoted stretches are kept whole."""
    return list(re.finditer(_WORD, text))


def _unquoted(word: str) -> str:
    """``word`` as the shell hands it to the command: its quotes taken off (``'my dir'``
    is ``my dir``); as it is when its quotes do not close.

    >>> _unquoted("'my dir'"), _unquoted("--to='a b'"), _unquoted(shlex.quote("it's a"))
    ('my dir', '--to=a b', "it's a")
    >>> _unquoted("it's")
    "it's"
    """
    try:
        return "".join(shlex.split(word)) or word
    except ValueError:
        return word


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
        words = [_unquoted(word.group(0)) for word in _words(match.group(2))]
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
        found = keys.get(name)
        owners = ""
        if found is None:
            if match.group(1) or _FOREIGN.search(match.string, 0, match.start()):
                # click's own error names an option of the command run, in quotes; another
                # program's option (pip download --no-deps) is its own
                return match.group(0)
            found, owners = _other_tools(group, tool, name)
            if found is None:
                return match.group(0)
        key, param = found
        assert isinstance(param, click.Option)
        if param.is_flag:
            said = f"`{key}: {json.dumps(name not in param.secondary_opts)}`"
        else:
            value = match.group(3)
            said = f"`{key}: {json.dumps(value)}`" if value else f"`{key}`"
        return f"{said} (an argument of {owners})" if owners else said

    def prose(part: str) -> str:
        """The options of text outside a command line, the call's own values kept."""
        for mask, value in masks.items():
            part = part.replace(value, mask)
        part = _SHORT.sub(short, _OPTION.sub(option, bare_commands(part, group)))
        for mask, value in masks.items():
            part = part.replace(mask, value)
        return part

    parts = []
    last = 0
    for match in _COMMAND_LINE.finditer(text):
        parts.append(prose(text[last : match.start()]))
        end = match.end()
        if not match.group(1):  # unquoted: the sentence may go on after the command
            words = _words(match.group(2))
            taken = _extent(group, [_unquoted(word.group(0)) for word in words])
            if 0 < taken < len(words):
                end = match.start(2) + words[taken - 1].end()
                head = _COMMAND_LINE.fullmatch(text, match.start(), end)
                assert head is not None  # a shorter run of the same words
                match = head
        parts.append(command_line(match))
        last = end
    parts.append(prose(text[last:]))
    return "".join(parts)


def _other_tools(
    group: click.Group, called: ToolSpec | None, name: str
) -> tuple[tuple[str, click.Parameter] | None, str]:
    """The parameter the option ``name`` (``--upstream-repo``) is among the tools other than
    ``called`` (``(key, click parameter)``, else ``None``), and those tools' names
    (``write_port_start``): the call's own tool does not take it (a ``--continue`` takes
    none of the options that start a port), so the advice names the tool that does. A
    read-only tool's advice about an option that writes a file is left to the terminal it
    names (:func:`~patchkeeper.agents.tools.read_only_refusal`)."""
    found: tuple[str, click.Parameter] | None = None
    owners: list[str] = []
    for spec in TOOLS:
        if called is not None and spec.name == called.name:
            continue
        for key, param, _ in tool_parameters(spec, group):
            if isinstance(param, click.Option) and name in (*param.opts, *param.secondary_opts):
                if called is not None and not called.writes and writes_a_file(param):
                    return None, ""
                found = found or (key, param)
                owners.append(spec.name)
                break
    listed = ", ".join(owners[:-1]) + " or " + owners[-1] if len(owners) > 1 else "".join(owners)
    return found, listed


def bare_commands(text: str, group: click.Group) -> str:
    """``text`` with each command named in parentheses without ``patchkeeper`` (``resolved
    by hand (port --continue)``) said as the tool that runs it, when a tool runs it alone.

    >>> from patchkeeper.main import cli
    >>> bare_commands("resolved by hand (port --continue) after git's merge", cli)
    "resolved by hand (write_port_continue) after git's merge"
    >>> bare_commands("(port --to NEW)", cli)
    '(port --to NEW)'
    """

    def tool(match: re.Match[str]) -> str:
        words = match.group(1).split()
        path = _command_path(group, words)
        if not path:
            return match.group(0)
        options = words[len(path) :]
        for spec in TOOLS:
            if spec.path == path and list(spec.fixed) == options:
                return f"({spec.name})"
        return match.group(0)

    return _BARE.sub(tool, text)


def translate_envelope(
    envelope: dict[str, Any], tool: ToolSpec | None, group: click.Group, given: Iterable[str] = ()
) -> dict[str, Any]:
    """``envelope`` with its advice translated (:func:`translate`), in place: the error's
    message (``--from nowhere: no directory``, which names the option the call gave as an
    argument) and hint, the envelope's ``hint`` and ``warnings``, and the next steps of
    ``upgrade`` (``verify``) and of ``port`` (``todo``), and every ``hint`` at any depth (an
    upgrade's conflicts', the findings' of ``lint``, ``report --check`` and the runtime
    commands); a port's patches say the command that resolved them as a tool
    (:func:`bare_commands`). ``given``: the call's argument values, quoted as given.
    Returns the envelope."""
    kept = tuple(given)
    say: Callable[[str], str] = lambda text: translate(text, tool, group, kept)  # noqa: E731
    error = envelope.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        error["message"] = say(error["message"])
    _translate_hints(envelope, say)
    for key in ("verify", "todo", "warnings"):
        steps = envelope.get(key)
        if isinstance(steps, list):
            envelope[key] = [say(step) if isinstance(step, str) else step for step in steps]
    if envelope.get("command") == "port":
        for patch in envelope.get("patches") or []:
            if isinstance(patch, dict) and isinstance(patch.get("summary"), str):
                patch["summary"] = bare_commands(patch["summary"], group)
    return envelope


def _translate_hints(value: Any, say: Callable[[str], str]) -> None:
    """Say every text under a ``hint`` key in ``value`` (the envelope, at any depth) in
    tools and arguments, in place."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "hint" and isinstance(item, str):
                value[key] = say(item)
            else:
                _translate_hints(item, say)
    elif isinstance(value, list):
        for item in value:
            _translate_hints(item, say)


def _starting_tool(path: tuple[str, ...]) -> str:
    """The name of the tool that starts what the command ``path`` runs (``write_upgrade``):
    the writing tool of that command with no fixed option."""
    return next(tool.name for tool in TOOLS if tool.path == path and tool.writes and not tool.fixed)


def port_go_on(group: click.Group, argv: list[str]) -> GoOn:
    """How the ``INSTRUCTIONS.md`` of a port stopped in a tool call names the ways on: the
    tools and their arguments (``write_port_continue (directory: "down", write: true)``),
    never a command line, since the agent reading it calls tools. ``argv``: the command
    line the call ran (without the program); its group options before the command (``-C
    DIR``, ``--config=FILE``) are the call's ``directory`` and ``config``, which the ways
    on repeat, so that they reach the same downstream.

    >>> from patchkeeper.main import cli
    >>> port_go_on(cli, ["-C", "down", "port", "--to=minihttp==1.1", "--json"]).resume
    'Call write_port_continue (directory: "down", write: true)'
    """
    leading = argv[: _leading(group, argv)]

    def said(*words: str) -> str:
        text = tool_of_command_line(group, [*leading, *words])
        if text is None:  # a tool of TOOLS runs each of these
            raise LookupError(f"no tool runs patchkeeper {' '.join(words)}")
        return text

    return GoOn(
        resume=f"Call {said('port', OPTION_CONTINUE)}",
        upgrade=_starting_tool(("upgrade",)),
        resume_upgrade=said("upgrade", OPTION_CONTINUE),
        abort=f"call {said('port', OPTION_ABORT)}",
        history=f"start the port with the `upstream_repo` argument of {_starting_tool(('port',))}",
    )
