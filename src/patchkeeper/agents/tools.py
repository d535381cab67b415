"""The tools of ``patchkeeper mcp``: which command each runs, and its input schema.

A tool is a command of the command line (``audit``, ``runtime audit``), sometimes with options
it always gives (``ledger --check``). Its parameters are the command's own, read from the
click command object (and the group's ``-C`` and ``--config``), so an option is written once,
in ``main.py``: a flag is a boolean, an option given several times an array, an integer
option an integer, a choice an enum, anything else a string; the option's help is the
description. Left out everywhere: ``--json`` (a tool always returns the JSON envelope) and
the options that only shape terminal output (``lint --format``). A read-only tool also leaves
out the options that write a file (``--markdown``, ``--save-evidence``), and runs an evidence
command with ``--no-save-evidence`` (:func:`fixed_options`), so that it never writes, even in a
downstream whose configuration keeps every run's evidence (``evidence = true``): a client may
run a read-only tool without asking anyone.

A writing tool's name starts with ``write_``, it carries the MCP annotations
``readOnlyHint: false`` and ``destructiveHint``, and it takes one more parameter, ``write``,
which the call must set to ``true`` (:mod:`patchkeeper.agents.calls`). A new writing command
(``upgrade``) is one more :class:`ToolSpec` in :data:`TOOLS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any

import click

from patchkeeper.constants import (
    OPTION_ABORT,
    OPTION_CHECK,
    OPTION_CONTINUE,
    OPTION_JSON,
    OPTION_WRITE,
)
from patchkeeper.port.request import PortRequest
from patchkeeper.upgrade.request import UpgradeRequest

#: The parameter a writing tool's call must set to ``true``.
WRITE = "write"


class PathRule(Enum):
    """How a parameter's value is checked against the server's root
    (:func:`patchkeeper.agents.calls.check_paths`)."""

    #: Not a path (a package name).
    PLAIN = "plain"
    #: A file or directory, relative to the command's directory (``-C``) or absolute.
    PATH = "path"
    #: An interpreter: its directory must be inside the root; the file itself may be a
    #: symbolic link leading out (a virtual environment's ``bin/python``).
    INTERPRETER = "interpreter"
    #: An upstream release: a directory (a path as above) or a requirement
    #: (``NAME==VERSION``, a range), which is not a path.
    RELEASE = "release"
    #: ``[NAME=]PATH``: the part after ``=`` is a path.
    NAMED_PATH = "named path"
    #: A path inside another directory the command is given (``--patch-dir``, inside the
    #: plugin): relative, without ``..``.
    INSIDE = "inside"


#: The rule of each string parameter that is not a ``click.Path`` (tool parameter name ->
#: rule). A new option of a tool's command must be placed here (:func:`path_rule` refuses an
#: unknown one), so that no path escapes the root check by being typed as text.
_TEXT_RULES = {
    "to": PathRule.RELEASE,
    "from": PathRule.RELEASE,
    "pristine": PathRule.RELEASE,
    "at": PathRule.RELEASE,
    "foreign_checkout": PathRule.NAMED_PATH,
    "patch_dir": PathRule.INSIDE,
    "package": PathRule.PLAIN,
    "branch": PathRule.PLAIN,
}
#: The parameters that name an interpreter (``click.Path`` typed).
_INTERPRETERS = frozenset({"python"})

#: Click parameter names left out of every tool: ``--json`` is always given; ``--format``
#: only shapes the terminal's text.
_NEVER = frozenset({"as_json", "output_format"})
#: Click parameter names a read-only tool leaves out: they write a file (``--output``:
#: ``runtime port``'s diff, which the read-only tool returns in its envelope instead).
_WRITING_OPTIONS = frozenset({"markdown", "save_evidence", "output"})
#: The click parameter of ``--save-evidence/--no-save-evidence``.
_SAVE_EVIDENCE = "save_evidence"
#: The parameters of ``--continue`` and ``--abort`` themselves.
_RESUME = frozenset({"resume", "abort"})
#: The options ``port --continue`` and ``port --abort`` refuse (the port in progress keeps
#: the options it was started with), with the two actions themselves.
_PORT_START = frozenset(PortRequest.starting()) | _RESUME
#: The same for ``upgrade --continue`` and ``upgrade --abort``, with ``--markdown``.
_UPGRADE_START = frozenset(UpgradeRequest.starting()) | _RESUME | {"markdown"}


@dataclass(frozen=True)
class ToolSpec:
    """One tool: the command it runs and how.

    Attributes:
        name: the tool's name (``runtime_audit``; ``write_...`` for a writing tool).
        path: the command as typed after ``patchkeeper`` (``("runtime", "audit")``).
        fixed: options always given, after the command (``("--check",)``).
        omit: click parameter names left out besides :data:`_NEVER` (and, for a read-only
            tool, :data:`_WRITING_OPTIONS`); a fixed option's own parameter among them.
        writes: whether the tool writes files (a ``write_`` name and the ``write`` rule).
        destructive: for a writing tool, whether it may replace or delete files (MCP's
            ``destructiveHint``) rather than only add them.
        summary: the first sentence of the tool's description (default: the command's help).
        notes: ``(parameter key, sentence)`` pairs: what the tool says of one of its
            parameters besides the option's help (what it takes here that another tool of
            the same command takes otherwise).
        requires: parameter keys the tool's input schema requires although the command's
            option is optional: ``port --to`` is needed to start a port, which is all
            ``write_port_start`` does (``--continue`` and ``--abort`` are other tools).
        ranges: whether the command judges every release of a range given in ``to``
            (``audit``), a run that keeps no evidence, which its refusal of
            ``save_evidence`` then says (:func:`read_only_refusal`).
        fetches: whether the command may fetch releases its call does not name: the ones
            the port or upgrade in progress was started with, which ``--continue`` reads
            again (from the fetch cache, else the package indexes): MCP's
            ``openWorldHint`` (:func:`open_world`).
        idempotent: for a writing tool, whether a second call with the same arguments
            changes nothing more (MCP's ``idempotentHint``): an ``--abort`` drops what is in
            progress, and the next finds nothing to drop. A read-only tool always is.
    """

    name: str
    path: tuple[str, ...]
    fixed: tuple[str, ...] = ()
    omit: frozenset[str] = frozenset()
    writes: bool = False
    destructive: bool = False
    summary: str = ""
    notes: tuple[tuple[str, str], ...] = ()
    requires: frozenset[str] = frozenset()
    ranges: bool = False
    fetches: bool = False
    idempotent: bool = False

    @property
    def command(self) -> str:
        """The envelope's ``command``: the command as typed (``"runtime audit"``)."""
        return " ".join(self.path)


#: Every tool, read-only ones first. Their names are the ones docs/agents.md lists.
TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "audit",
        ("audit",),
        omit=frozenset({"releases"}),
        ranges=True,
        summary="Apply the series to a new upstream release in memory and judge every patch "
        "(verdicts with evidence); a range in to ('PROJECT>=A,<B') judges every release of "
        "it from the package indexes, as horizon does.",
        notes=(
            (
                "to",
                "(With a range, this tool fetches its releases from the package indexes, "
                "or reads them beside a configured pristine kept among them; horizon can take "
                "them from a directory instead: releases.)",
            ),
        ),
    ),
    ToolSpec(
        "horizon",
        ("audit",),
        omit=frozenset({"between"}),  # a range judges every release between anyway
        ranges=True,
        summary="Audit every release of a range (--to 'PROJECT>=A,<B'): the upgrade "
        "horizon, the last release each patch still applies to.",
    ),
    ToolSpec("verify", ("verify",)),
    ToolSpec("status", ("status",)),
    ToolSpec("lint", ("lint",)),
    ToolSpec(
        "ledger_check",
        ("ledger",),
        fixed=(OPTION_CHECK,),
        omit=frozenset({"check", "pre_commit"}),
        summary="Compare the ledger table with the patch headers; change nothing.",
    ),
    ToolSpec("runtime_inventory", ("runtime", "inventory")),
    ToolSpec("runtime_audit", ("runtime", "audit")),
    ToolSpec(
        "runtime_port",
        ("runtime", "port"),
        omit=frozenset({"write"}),
        summary="Show the mechanical update of the runtime patches (merged copies, moved "
        "targets, gates, headers) without applying it: the envelope's diff is what "
        "write_runtime_port would write to the plugin's files.",
    ),
    ToolSpec(
        "report_check",
        ("report",),
        fixed=(OPTION_CHECK,),
        omit=frozenset({"check", "html"}),
        summary="Check the audit record (AUDIT.md) against the evidence; write nothing.",
    ),
    ToolSpec("write_apply", ("apply",), writes=True, destructive=True),
    ToolSpec(
        "write_port_start",
        ("port",),
        omit=_RESUME,
        requires=frozenset({"to"}),
        writes=True,
        destructive=True,
        summary="Start carrying the series to a new upstream release (refresh, merge, "
        "retire); stops at a conflict, whose files are under .patchkeeper-port/.",
    ),
    ToolSpec(
        "write_port_continue",
        ("port",),
        fixed=(OPTION_CONTINUE,),
        omit=_PORT_START,
        writes=True,
        fetches=True,
        destructive=True,
        summary="Carry on with the port in progress after resolving its conflict in the "
        "files under .patchkeeper-port/conflict/files/.",
    ),
    ToolSpec(
        "write_port_abort",
        ("port",),
        fixed=(OPTION_ABORT,),
        omit=_PORT_START,
        writes=True,
        idempotent=True,
        destructive=True,
        summary="Drop the port in progress (nothing else was written).",
    ),
    ToolSpec(
        "write_runtime_port",
        ("runtime", "port"),
        fixed=(OPTION_WRITE,),
        omit=frozenset({"write"}),
        writes=True,
        destructive=True,
        summary="Apply the mechanical update of the runtime patches to the plugin's files: "
        "merged copies, moved targets, gates, headers.",
    ),
    ToolSpec("write_decide", ("decide",), writes=True),
    ToolSpec(
        "write_upgrade",
        ("upgrade",),
        omit=_RESUME | {"markdown"},
        requires=frozenset({"to"}),
        writes=True,
        destructive=True,
        summary="Audit, decide, port and record an upgrade in one go (--branch: one commit "
        "per step); stops at a conflict and lists what is left for a person.",
    ),
    ToolSpec(
        "write_upgrade_continue",
        ("upgrade",),
        fixed=(OPTION_CONTINUE,),
        omit=_UPGRADE_START,
        writes=True,
        fetches=True,
        destructive=True,
        summary="Carry on with the upgrade after resolving its conflict.",
    ),
    ToolSpec(
        "write_upgrade_abort",
        ("upgrade",),
        fixed=(OPTION_ABORT,),
        omit=_UPGRADE_START,
        writes=True,
        idempotent=True,
        destructive=True,
        summary="Drop the upgrade: the branch and the work tree put back.",
    ),
)


def find_tool(name: str) -> ToolSpec | None:
    """The tool called ``name``, or ``None``."""
    return next((tool for tool in TOOLS if tool.name == name), None)


def find_command(group: click.Group, path: tuple[str, ...]) -> click.Command:
    """The command object at ``path`` under ``group`` (``("runtime", "audit")``).

    Raises:
        LookupError: no such command (a tool names a command the command line lost).
    """
    command: click.Command = group
    for word in path:  # a lazy group loads the command's module when asked for it
        sub = (
            command.get_command(click.Context(command), word)
            if isinstance(command, click.Group)
            else None
        )
        if sub is None:
            raise LookupError(f"patchkeeper has no command {' '.join(path)!r}")
        command = sub
    return command


def fixed_options(tool: ToolSpec, group: click.Group) -> tuple[str, ...]:
    """The options the tool always gives after its command: :attr:`ToolSpec.fixed`, and,
    for a read-only tool whose command keeps evidence, ``--no-save-evidence``, which keeps
    nothing even where ``evidence = true`` in the configuration would save the result.

    Raises:
        LookupError: the tool names a command the command line lost.
    """
    if tool.writes:
        return tool.fixed
    command = find_command(group, tool.path)
    off = [
        word
        for param in command.params
        if param.name == _SAVE_EVIDENCE and isinstance(param, click.Option)
        for word in param.secondary_opts[:1]
    ]
    return (*tool.fixed, *off)


def read_only_refusal(
    tool: ToolSpec, group: click.Group, key: str, to: str | None = None
) -> tuple[str, str] | None:
    """``(message, hint)`` for a read-only tool's call that passes ``key``, an option of its
    command that writes a file (``save_evidence``, or ``evidence``, the configuration's
    word, ``markdown`` and ``output``), else ``None``: the tool writes nothing, so it takes
    none. ``to``: the call's ``to``; when it is a range and the tool's command judges every
    release of one (:attr:`ToolSpec.ranges`), the hint for evidence says that such a run
    keeps none in a terminal either, and how one release's is kept.

    Raises:
        LookupError: the tool names a command the command line lost.
    """
    wanted = _SAVE_EVIDENCE if key == "evidence" else key
    if tool.writes or wanted not in _WRITING_OPTIONS:
        return None
    if not any(param.name == wanted for param in find_command(group, tool.path).params):
        return None  # an option its command does not have: the schema's refusal says so
    command = " ".join(("patchkeeper", *tool.path))
    message = f"{tool.name} is read-only and writes nothing: it takes no {key}"
    if key == "markdown":
        return message, (
            f"the call's result is the JSON envelope; to write the Markdown report, run "
            f"'{command} --markdown FILE' in a terminal"
        )
    if key == "output":
        return message, (
            f"the call's result is the JSON envelope, the diff in it; to write the diff to a "
            f"file, run '{command} --output FILE' in a terminal"
        )
    project = _range_project(to) if tool.ranges and to else None
    if project is not None:
        return message, (
            f"a range's audit keeps no evidence in a terminal either: --save-evidence keeps "
            f"one release's audit; to keep one release's in .patchkeeper/evidence/, run "
            f"'{command} --to {project}==VERSION --save-evidence' in a terminal"
        )
    return message, (
        f"it keeps no evidence, whatever evidence = true in the configuration says; to keep "
        f"the result in .patchkeeper/evidence/, run '{command} --save-evidence' in a terminal"
    )


def writes_a_file(param: click.Parameter) -> bool:
    """Whether ``param`` is an option that writes a file (``--save-evidence``,
    ``--markdown``, ``--output``), which a read-only tool leaves out: its advice about one
    (:func:`read_only_refusal`) is a terminal's."""
    return param.name in _WRITING_OPTIONS


def _range_project(to: str) -> str | None:
    """The project of ``to`` when it is a range of releases (``"minihttp>1.0"``), else
    ``None``.

    >>> _range_project("minihttp>1.0,<2"), _range_project("minihttp==1.1")
    ('minihttp', None)
    """
    from patchkeeper.audit.horizon import is_range, parse_range

    return parse_range(to).name if is_range(to) else None


def parameter_key(param: click.Parameter) -> str:
    """The tool parameter a click parameter becomes: its long option without the dashes,
    ``-`` read as ``_`` (``--patch-dir`` -> ``patch_dir``, ``--from`` -> ``from``), else
    its name (``-C`` -> ``directory``, an argument -> its name)."""
    if isinstance(param, click.Option):
        long = [opt for opt in param.opts if opt.startswith("--")]
        if long:
            return long[0][2:].replace("-", "_")
    return str(param.name)


def tool_parameters(
    tool: ToolSpec, group: click.Group
) -> Iterator[tuple[str, click.Parameter, bool]]:
    """The tool's parameters in command-line order, as ``(key, click parameter, before the
    command)``: the group's options (``-C``, ``--config``) first, then the command's.

    Raises:
        ValueError: two parameters would have one key.
    """
    omitted = _NEVER | tool.omit | (frozenset() if tool.writes else _WRITING_OPTIONS)
    seen: set[str] = set()
    command = find_command(group, tool.path)
    for before, params in ((True, group.params), (False, command.params)):
        for param in params:
            if not param.expose_value or getattr(param, "hidden", False):
                continue  # --version, --help, and the hidden -C/--config after the command
            if param.name in omitted:
                continue
            key = parameter_key(param)
            if key in seen or key == WRITE:
                raise ValueError(f"tool {tool.name}: two parameters are called {key!r}")
            seen.add(key)
            yield key, param, before


def path_rule(key: str, param: click.Parameter) -> PathRule:
    """How the value of the parameter ``key`` is checked against the root.

    Raises:
        ValueError: a text parameter that no rule places (a new option: add it to
            :data:`_TEXT_RULES`).
    """
    if isinstance(param, click.Option) and param.is_flag:
        return PathRule.PLAIN
    if isinstance(param.type, click.Path):
        return PathRule.INTERPRETER if key in _INTERPRETERS else PathRule.PATH
    rule = _TEXT_RULES.get(key)
    if rule is None:
        raise ValueError(f"the parameter {key!r} has no path rule: add it to _TEXT_RULES")
    return rule


def open_world(tool: ToolSpec, group: click.Group) -> bool:
    """Whether a call of ``tool`` may reach past the machine (MCP's ``openWorldHint``): it
    takes an upstream release (:attr:`PathRule.RELEASE`: ``to``, ``from``, ``pristine``),
    which as a requirement (``NAME==VERSION``, a range, or the default ``upstream==pin``) is
    fetched from the package indexes, or it goes on with a port or an upgrade whose releases
    it reads again (:attr:`ToolSpec.fetches`)."""
    return tool.fetches or any(
        path_rule(key, param) is PathRule.RELEASE for key, param, _ in tool_parameters(tool, group)
    )


#: What a tool's description adds to an option's help about the server's root.
_RULE_NOTES = {
    PathRule.PATH: "(Inside the server's root.)",
    PathRule.INTERPRETER: "(In a directory inside the server's root.)",
    PathRule.RELEASE: "(A directory or a release file inside the server's root, or a requirement.)",
    PathRule.NAMED_PATH: "(PATH inside the server's root.)",
    PathRule.INSIDE: "(Relative, without '..'.)",
}
_ROOT_NOTES = {
    "directory": "(Relative to the server's root; the other paths are read from there.)",
}


def _json_type(param: click.Parameter) -> dict[str, Any]:
    """The JSON schema of one value of ``param``."""
    if isinstance(param, click.Option) and param.is_flag:
        return {"type": "boolean"}
    kind = param.type
    if isinstance(kind, click.Choice):
        return {"type": "string", "enum": [str(choice) for choice in kind.choices]}
    if isinstance(kind, click.types.IntParamType):
        return {"type": "integer"}
    if isinstance(kind, click.types.FloatParamType):
        return {"type": "number"}
    return {"type": "string"}


def _many(param: click.Parameter) -> bool:
    """Whether ``param`` takes several values (``multiple=True``, or ``nargs=-1``). ``-C``
    is one directory for a tool (relative to the server's root, where every other path is
    read from), though the command line takes it again, each relative to the one before."""
    if parameter_key(param) == "directory":
        return False
    return bool(param.multiple) or param.nargs == -1


def _same(text: str) -> str:
    """``text`` as it is: the default ``say`` of :func:`input_schema` and :func:`description`."""
    return text


def input_schema(
    tool: ToolSpec, group: click.Group, say: Callable[[str], str] = _same
) -> dict[str, Any]:
    """The JSON schema (draft 2020-12) of a call's arguments: one property per parameter
    (:func:`tool_parameters`), the command's required ones and the tool's ``requires``
    required, nothing else allowed; a writing tool's ``write`` too. ``say``: how a
    parameter's help is said (the server names the options it mentions as arguments).

    Raises:
        ValueError: two parameters would have one key, a text parameter has no path rule, or
            a note or ``requires`` of the tool names no parameter of it.
    """
    properties: dict[str, Any] = {}
    required: list[str] = []
    keys = [key for key, _, _ in tool_parameters(tool, group)]
    unknown = [key for key, _ in tool.notes if key not in keys]
    if unknown:
        raise ValueError(f"tool {tool.name}: a note names no parameter of it: {unknown[0]!r}")
    unknown = sorted(tool.requires - set(keys))
    if unknown:
        raise ValueError(f"tool {tool.name}: it requires no parameter of it: {unknown[0]!r}")
    for key, param, _ in tool_parameters(tool, group):
        schema = _json_type(param)
        if _many(param):
            schema = {"type": "array", "items": schema}
        text = " ".join((getattr(param, "help", None) or "").split())
        note = _ROOT_NOTES.get(key) or _RULE_NOTES.get(path_rule(key, param), "")
        text = " ".join(part for part in (text, note, dict(tool.notes).get(key, "")) if part)
        if text:
            schema["description"] = say(text)
        default = param.default
        if isinstance(default, (str, int, float)) and not isinstance(default, bool):
            schema["default"] = default
        properties[key] = schema
        if param.required or key in tool.requires:
            required.append(key)
    if tool.writes:
        properties[WRITE] = {
            "type": "boolean",
            "description": "Must be true: this tool writes files under the server's root.",
        }
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def description(tool: ToolSpec, group: click.Group, say: Callable[[str], str] = _same) -> str:
    """What the tool does (its summary, else the command's help), the command line it runs,
    and, for a writing tool, the write rule. ``say``: how the summary is said (the server
    names the options it mentions as arguments; the command line run stays as it is)."""
    command = find_command(group, tool.path)
    summary = say(tool.summary or (command.help or "").strip().splitlines()[0])
    runs = " ".join(["patchkeeper", *tool.path, *fixed_options(tool, group), OPTION_JSON])
    text = f"{summary} Runs `{runs}` in the server's root and returns its JSON envelope."
    if tool.writes:
        text += " Writes files: refused unless the call sets write: true."
    else:
        text += " Read-only: writes nothing."
    return text
