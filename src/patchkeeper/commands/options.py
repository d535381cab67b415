"""The options more than one command takes, each written once: its name, its type and its
help; a command module puts them on its command (``@json_option``, ``@to_option(...)``).

An option one command alone takes is written in that command's module, beside its ``run``.
An option that code besides its declaration names (a feature's message, the short path of
``apply``, the MCP tools) takes its name from :mod:`patchkeeper.constants` (``OPTION_TO``), and
so does its declaration. The evidence of what a command was given is read from click's parsed
parameters (:func:`given_options`), not spelt again.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from patchkeeper.commands.cli import (
    CHECKOUT_PATH,
    DIRECTORY_PATH,
    FILE_PATH,
    JSON_COMMAND,
    DirectoryPath,
    Settings,
    command_name,
)
from patchkeeper.constants import (
    OPTION_ABORT,
    OPTION_AT,
    OPTION_CHECK,
    OPTION_CONFIG,
    OPTION_CONTINUE,
    OPTION_DIRECTORY,
    OPTION_FROM,
    OPTION_JSON,
    OPTION_MARKDOWN,
    OPTION_PRISTINE,
    OPTION_PYTHON,
    OPTION_TARGET,
    OPTION_TO,
    OPTION_UPSTREAM,
)

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]
#: A feature's request: a frozen dataclass built from a command's parsed parameters.
Request = TypeVar("Request")

#: How an option naming one upstream release says what it takes; ``--help`` writes the
#: configured upstream for ``PROJECT`` (:func:`patchkeeper.main.spell_help`).
RELEASE = (
    "a directory, a release's sdist or wheel file, or a requirement of the configured upstream "
    "(PROJECT==VERSION)"
)


class Seconds(click.FloatRange):
    """A time limit in seconds: a number above 0, and finite (``nan`` and ``inf`` pass a
    range test but no time limit can be made of them: the interpreter's timeout failed
    inside the command on them)."""

    name = "number"

    def __init__(self) -> None:
        super().__init__(min=0, min_open=True)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        seconds = super().convert(value, param, ctx)
        if not math.isfinite(seconds):
            self.fail(f"{value!r} is not a number of seconds: give one above 0", param, ctx)
        return seconds


#: The type of an option that is a time limit (``runtime check --timeout``).
SECONDS = Seconds()


# ------------------------------------------------------------------ -C and --config


def config_option(late: bool = False) -> click.Option:
    """``--config FILE``: the configuration file to read. The group's own (``late=False``)
    is shown in its help; the one every command also takes (``late=True``, after the
    command: pre-commit appends a hook's ``args`` there) is hidden and sets the group's
    :class:`Settings`."""
    return _group_or_late_option(
        OPTION_CONFIG,
        "config_file",
        FILE_PATH,
        _late_config,
        "patchkeeper.toml or pyproject.toml to read (default: search upwards); "
        "may also follow the command.",
        late,
    )


def directory_option(late: bool = False) -> click.Option:
    """``-C DIR``: run as if started in ``DIR`` (as ``git -C``: given more than once, each
    relative ``DIR`` is read from the one before, ``-C examples -C downstream``); ``late`` as
    in :func:`config_option`."""
    return _group_or_late_option(
        OPTION_DIRECTORY,
        "directory",
        DIRECTORY_PATH,
        _late_directory,
        "Run as if started in this downstream directory; may also follow the command.",
        late,
        multiple=True,
    )


def _group_or_late_option(
    name: str,
    parameter: str,
    kind: click.Path,
    apply_late: Callable[[click.Context, click.Parameter, Any], None],
    help: str,
    late: bool,
    multiple: bool = False,
) -> click.Option:
    """The group's option ``name`` (parameter ``parameter`` of type ``kind``, shown with
    ``help``), or, ``late``, the same option after the command: hidden, parsed before the
    command's other options and given to ``apply_late`` at once instead of to the command
    (parameter ``late_<parameter>``). ``multiple``: it may be given more than once, its
    values a tuple in command-line order."""
    return click.Option(
        [name, f"late_{parameter}" if late else parameter],
        type=kind,
        multiple=multiple,
        expose_value=not late,
        is_eager=late,
        hidden=late,
        callback=apply_late if late else None,
        help=None if late else help,
    )


def enter_directory(ctx: click.Context, directory: Path, param: click.Parameter) -> None:
    """Change into ``directory`` as ``-C`` asks (every relative path on the command line is
    read from there too).

    A relative ``directory`` is read from the one a ``-C`` before it entered, so an error names
    the path as resolved from where patchkeeper was started (``-C examples -C nope``:
    ``examples/nope``), the ``-C`` values joined, not the last one alone, which would not say
    where it was looked for.

    Raises:
        click.BadParameter: it cannot be entered, naming the option, the path and the reason.
    """
    resolved = Path(ctx.meta.get(_ENTERED, "")) / directory
    try:
        os.chdir(directory)
    except OSError as exc:
        raise click.BadParameter(f"{resolved}: {exc.strerror}", param_hint=param.opts[0]) from None
    ctx.meta[_ENTERED] = str(resolved)


_ENTERED = "patchkeeper.entered_directory"
"""Key in click's context ``meta`` (shared by the group and its command) of the path the
``-C`` options given so far lead to, as written, joined."""


def _late_directory(ctx: click.Context, param: click.Parameter, value: tuple[Path, ...]) -> None:
    """``-C DIR`` after the command (each, in order): change directory as the group's
    ``-C`` does."""
    for directory in value:
        enter_directory(ctx, directory, param)


def _late_config(ctx: click.Context, param: click.Parameter, value: Path | None) -> None:
    """``--config FILE`` after the command: the file to read (resolved when it is loaded)."""
    if value is not None:
        settings = ctx.find_object(Settings)
        assert settings is not None
        settings.config_file = value


# ------------------------------------------------------------------ output and evidence


def _json_requested(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if value:
        JSON_COMMAND[:] = [command_name(ctx)]
    return value


def json_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """``--json``: print the result (or an error) as the JSON envelope of docs/json.md."""
    return click.option(
        OPTION_JSON,
        "as_json",
        is_flag=True,
        callback=_json_requested,
        help="Print the result as JSON (docs/json.md).",
    )(function)


def markdown_option(help: str = "Also write the report as Markdown.") -> Decorator:
    """``--markdown PATH``: also write the result as Markdown; ``help`` says what it is."""
    return click.option(OPTION_MARKDOWN, type=FILE_PATH, help=help)


#: ``--markdown PATH`` of the commands whose report goes into a pull request (``audit``,
#: ``port``, ``upgrade``).
pull_request_markdown_option = markdown_option(
    "Also write the report as Markdown, for a pull request."
)


def save_evidence_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """``--save-evidence/--no-save-evidence``: keep this run's result in
    ``.patchkeeper/evidence/``, or keep nothing whatever the configuration says; given
    neither, the parameter is ``None`` and ``evidence = true`` in
    ``[tool.patchkeeper.report]`` decides (:func:`patchkeeper.record.evidence_store.keep`).
    The MCP server's read-only tools run the command with ``--no-save-evidence``."""
    return click.option(
        "--save-evidence/--no-save-evidence",
        default=None,
        help="Keep the result in .patchkeeper/evidence/ for the audit record, or keep "
        "nothing and write nothing (default: keep it only with evidence = true in "
        "[tool.patchkeeper.report]).",
    )(function)


def given_options(ctx: click.Context, names: tuple[str, ...]) -> list[str]:
    """The options among the parameters ``names`` that the command line set (click's
    parameter source), each as the user sees it (``--to``), in the command's order."""
    out = []
    for param in ctx.command.params:
        if param.name not in names or not isinstance(param, click.Option):
            continue
        source = ctx.get_parameter_source(param.name)
        if source is click.core.ParameterSource.COMMANDLINE and ctx.params.get(param.name):
            out.append(param.opts[-1] if param.opts[-1].startswith("--") else param.opts[0])
    return out


def request_from(ctx: click.Context, kind: type[Request], **fixed: object) -> Request:
    """The feature's request ``kind`` (a dataclass whose fields are named after the
    command's parameters) built from the parameters click parsed: each field takes the
    parameter of its name; ``fixed`` gives the fields no parameter of that name holds
    (``action=``), and wins over a parameter. A field neither names keeps its default.

    Raises:
        TypeError: ``fixed`` names no field of ``kind``.
    """
    names = {field.name for field in dataclasses.fields(kind)}  # type: ignore[arg-type]
    values = {name: value for name, value in ctx.params.items() if name in names}
    return kind(**{**values, **fixed})


def request_options(command: click.Command, request: Any, **extra: object) -> dict[str, object]:
    """The fields of ``request`` (a dataclass, :func:`dataclasses.asdict`) and ``extra``
    (values of parameters no field holds, such as ``resume``) that are options of
    ``command``, keyed by each option's name on the command line and in the command's order
    (``{"--to": "x", "--in-place": True}``): the options an evidence command keeps when it
    is run from Python (:func:`patchkeeper.commands.common.command_line`)."""
    values = {**dataclasses.asdict(request), **extra}
    return {
        param.opts[-1]: values[param.name]
        for param in command.params
        if param.opts and param.name in values
    }


# ------------------------------------------------------------------ upstream trees


def python_option(
    help: str = "Use the configured upstream installed in this interpreter's environment.",
    required: bool = False,
) -> Decorator:
    """``--python PATH``: an interpreter (its environment's installed upstream)."""
    return click.option(
        OPTION_PYTHON, "python", required=required, type=InterpreterPath(), help=help
    )


#: Where a directory given for ``--python`` may hold its interpreter: a virtual
#: environment's (POSIX, Windows), or the directory that is its ``bin`` itself.
_INTERPRETERS_IN = ("bin/python", "bin/python3", "Scripts/python.exe", "python", "python3")


def _interpreter_in(directory: str | os.PathLike[str]) -> str:
    """What to pass instead of ``directory`` for ``--python``: the interpreter in it (a
    virtual environment's ``bin/python``) when it holds one, else how to find it."""
    for name in _INTERPRETERS_IN:
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate):
            return f"--python takes an interpreter: pass {candidate}"
    return (
        "--python takes an interpreter, not a directory: pass the environment's python "
        "(VENV/bin/python; 'python -c \"import sys; print(sys.executable)\"' prints it)"
    )


class InterpreterPath(click.Path):
    """``--python``'s type: a file path (not a directory), converted by
    :func:`~patchkeeper.system.probes.interpreter_path` so that ``./python`` names the file
    in the current directory and is not looked up on ``PATH`` as ``python`` would be."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The checked value as an interpreter path (see the class)."""
        from patchkeeper.system.probes import interpreter_path

        if isinstance(value, (str, os.PathLike)) and os.path.isdir(value):
            self.fail(f"{os.fspath(value)} is a directory; {_interpreter_in(value)}", param, ctx)
        checked = super().convert(value, param, ctx)
        return interpreter_path(value) if isinstance(value, str) else checked


#: The endings of the archives a tree comes as (:mod:`patchkeeper.upstream.unpack`'s, kept
#: here so that the command line does not import the unpacker at each start).
ARCHIVE_SUFFIXES = (
    ".tar.gz",
    ".tar.bz2",
    ".tar.xz",
    ".tgz",
    ".tbz",
    ".txz",
    ".tar",
    ".whl",
    ".zip",
)


class TreePath(DirectoryPath):
    """A directory option naming a tree that comes as an archive: a file given for it is
    most often that archive itself (``--target`` the sdist, ``--plugin`` the wheel ``pip
    download`` gave), so the error says to unpack it (for ``--target`` the same words as
    ``--to``'s, :func:`patchkeeper.trees.tree.spec_tree`).

    Args:
        what: what the option takes, as the error says it.
        archive: the archive to unpack, as the error names it.
    """

    def __init__(
        self,
        what: str = "a target is an upstream tree (a directory)",
        archive: str = "the sdist",
    ) -> None:
        super().__init__(f"{what}: unpack {archive} and pass its directory")
        self.not_archive = f"{what}, not a file in it: pass that directory"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The path, or a usage error (exit 2) naming it: an archive (a wheel, an sdist) is
        to be unpacked, any other file (a module of the tree, ``p/__init__.py``) is to be
        replaced by the directory it is in, not told to be unpacked."""
        if (
            isinstance(value, (str, os.PathLike))
            and os.path.isfile(value)
            and not os.fspath(value).lower().endswith(ARCHIVE_SUFFIXES)
        ):
            self.fail(f"{os.fspath(value)} is a file; {self.not_archive}", param, ctx)
        return super().convert(value, param, ctx)


def target_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """The options that say which upstream tree a command works on: the fields of
    :class:`patchkeeper.trees.tree.TargetChoice`."""
    function = python_option()(function)
    function = click.option(
        OPTION_TARGET,
        "target",
        type=TreePath(),
        help="An upstream tree (an unpacked sdist, a checkout, a site-packages directory; "
        "default: the configured upstream installed where --python says, else in this "
        "interpreter's environment).",
    )(function)
    return function


#: Where the pristine reference comes from without ``--pristine``
#: (:func:`patchkeeper.trees.tree.pristine_for`).
PRISTINE_DEFAULT = (
    "default: an installed target's RECORD, else the configured pristine, else upstream==pin"
)


def pristine_option(
    help: str = f"The pristine upstream: a directory or a requirement ({PRISTINE_DEFAULT}).",
) -> Decorator:
    """``--pristine``: the pristine upstream (a directory or a requirement)."""
    return click.option(OPTION_PRISTINE, help=help)


def to_option(help: str, name: str = "to", required: bool = False) -> Decorator:
    """``--to``: the new upstream, as parameter ``name``."""
    return click.option(OPTION_TO, name, required=required, help=help)


def from_option(help: str, name: str, required: bool = False) -> Decorator:
    """``--from``: the old upstream, as parameter ``name``."""
    return click.option(OPTION_FROM, name, required=required, help=help)


def upstream_option(help: str, **kwargs: Any) -> Decorator:
    """``--upstream``: the upstream (a requirement for ``init``, a tree for ``lint``)."""
    return click.option(OPTION_UPSTREAM, help=help, **kwargs)


def at_option(help: str, required: bool = True) -> Decorator:
    """``--at``: the upstream version something is at (``required`` unless the command
    defaults it)."""
    return click.option(OPTION_AT, "at", required=required, help=help)


def output_option(help: str, type: click.Path = FILE_PATH, *short: str) -> Decorator:
    """``--output`` (and the ``short`` names before it, ``-o``): the file or directory
    written."""
    return click.option(*short, "--output", type=type, help=help)


def force_option(help: str) -> Decorator:
    """``--force``: go on where the command would stop."""
    return click.option("--force", is_flag=True, help=help)


def check_option(help: str) -> Decorator:
    """``--check``: write nothing; exit 1 when what would be written differs."""
    return click.option(OPTION_CHECK, is_flag=True, help=help)


def checkout_option(
    help: str = "The upstream git checkout (default: [tool.patchkeeper.git] checkout).",
) -> Decorator:
    """``--checkout``: an upstream git checkout."""
    return click.option("--checkout", type=CHECKOUT_PATH, help=help)


def tag_option(
    help: str = "The topic tag of '[TAG] <topic>' subjects (default: [tool.patchkeeper.git] tag).",
) -> Decorator:
    """``--tag``: a git tag."""
    return click.option("--tag", help=help)


def branch_option(help: str) -> Decorator:
    """``--branch``: a git branch."""
    return click.option("--branch", help=help)


def resume_options(abort_help: str) -> Decorator:
    """``--continue`` (as parameter ``resume``) and ``--abort``: carry on after resolving a
    conflict, or drop the work in progress (``abort_help`` says what dropping it puts back);
    a command that is stopped part-way takes them (``port``, ``upgrade``)."""

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        function = click.option(OPTION_ABORT, is_flag=True, help=abort_help)(function)
        return click.option(
            OPTION_CONTINUE,
            "resume",
            is_flag=True,
            help="Carry on after resolving a conflict.",
        )(function)

    return decorate


def refuse_resume_with(ctx: click.Context, starting: tuple[str, ...], what: str) -> str:
    """What ``--continue``/``--abort`` ask for: ``"continue"``, ``"abort"``, or ``""`` for
    neither; ``what`` names the work in progress in a refusal (``"the port"``).

    Raises:
        click.UsageError: both were given, or either with one of the options ``starting``
            (parameter names) that start the work: the work in progress keeps its own.
    """
    resume, abort = ctx.params.get("resume"), ctx.params.get("abort")
    if resume and abort:
        first, second = given_options(ctx, ("resume", "abort"))
        raise click.UsageError(f"{first} and {second} exclude each other")
    given = given_options(ctx, starting)
    if (resume or abort) and given:
        # said whether or not one is in progress: the two exclude each other either way
        flag = OPTION_CONTINUE if resume else OPTION_ABORT
        raise click.UsageError(
            f"{', '.join(given)} and {flag} exclude each other: {flag} is for {what} in "
            "progress, which keeps the options it was started with"
        )
    return "continue" if resume else "abort" if abort else ""


# ------------------------------------------------------------------ runtime patches


def plugin_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """The options that say where the plugin is (override [tool.patchkeeper.runtime]): the
    fields of :class:`patchkeeper.runtime.settings.PluginLocation`."""
    function = click.option(
        "--patch-dir",
        "patch_directory",
        help="The patch directory, relative to the plugin root (default: <package>/patch).",
    )(function)
    function = click.option(
        "--package",
        "package",
        help="The plugin's import package (default: [tool.patchkeeper.runtime] package).",
    )(function)
    function = click.option(
        "--plugin",
        "plugin",
        type=TreePath("a plugin is the directory holding its package", "the wheel or sdist"),
        help="The directory holding the plugin package (an unpacked sdist, a checkout; "
        "default: [tool.patchkeeper.runtime] root, else the downstream directory).",
    )(function)
    return function
