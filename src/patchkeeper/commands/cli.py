"""What every command of the command line shares: the group-level settings, how a result is
printed (:func:`emit`), and the state of the running command line (its arguments, the
command whose ``--json`` was given, the configuration file read).

Nothing here imports a command: :mod:`patchkeeper.main` assembles the group and loads each
command's module when that command is asked for.
"""

from __future__ import annotations

import difflib
import importlib
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from patchkeeper.constants import (
    OPTION_JSON,
    OPTION_MARKDOWN,
    SERIES_READERS,
)
from patchkeeper.errors import PatchkeeperError
from patchkeeper.system.option_values import blank, refuses_empty

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
#: The parameter types of the options that name a file or a directory, made once and shared
#: (each ``click.Path`` asks gettext for its name: a lookup of translation files, for every
#: option of every command at each start).
FILE_PATH = click.Path(dir_okay=False, path_type=Path)


class DirectoryPath(click.Path):
    """The type of an option that names a directory: a file given for it is refused naming
    the file and what to pass instead (``click.Path`` says only "Directory 'x' is a file.").
    The MCP server runs the command line, so a tool's call gets the same words.

    Args:
        instead: what to pass, after ``PATH is a file;``.
    """

    def __init__(self, instead: str) -> None:
        super().__init__(file_okay=False, path_type=Path)
        self.instead = instead

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The path, or a usage error (exit 2) naming it and what to pass instead."""
        if isinstance(value, (str, os.PathLike)) and os.path.isfile(value):
            self.fail(f"{os.fspath(value)} is a file; {self.instead}", param, ctx)
        return super().convert(value, param, ctx)


#: The type of ``-C``.
DIRECTORY_PATH = DirectoryPath(
    "pass the downstream's directory (the one holding its configuration), not a file in it"
)
#: The type of an option naming an upstream git checkout (``--checkout``, ``--upstream-repo``).
CHECKOUT_PATH = DirectoryPath(
    "pass the checkout's directory (the working tree git clone made), not a file in it"
)


class Settings:
    """What the group-level options say: where the configuration is."""

    def __init__(self, config_file: Path | None, directory: Path | None) -> None:
        self.config_file = config_file
        self.directory = directory
        self._config: Any = None

    def config(self) -> Any:
        """Load the downstream configuration (:class:`patchkeeper.config.Config`), once.

        Raises:
            ConfigError: no configuration was found and the command needs a series that is
                not at the default place either (instead of "the series file does not exist"),
                or was given ``--save-evidence`` (:func:`_refuse_evidence_outside`).
        """
        if self._config is None:
            from patchkeeper.config import load_config

            self._config = load_config(self.config_file, start=self.directory)
            CONFIG_SOURCE[:] = [self._config.source] if self._config.source else []
            self._require_series(self._config)
            context = click.get_current_context(silent=True)
            if context is not None and context.params.get("save_evidence"):
                _refuse_evidence_outside(self._config)
            markdown = context.params.get("markdown") if context is not None else None
            if isinstance(markdown, Path):  # refused before the command writes anything
                _refuse_input_file(markdown)
                _refuse_unwritable(markdown)
        return self._config

    @property
    def loaded(self) -> Any:
        """The configuration as loaded, before :meth:`config` checked that the command has
        a series to read (``None`` until it was loaded)."""
        return self._config

    @staticmethod
    def _require_series(config: Any) -> None:
        from patchkeeper.config import require_series

        context = click.get_current_context(silent=True)
        command = command_name(context) if context is not None else None
        if command is not None and command in SERIES_COMMANDS:
            require_series(config, command)


def _refuse_evidence_outside(config: Any) -> None:
    """Refuse ``--save-evidence`` when no configuration was found: the evidence store is a
    downstream's (``.patchkeeper/evidence/`` beside its ``patchkeeper.toml``, read by
    ``report``), and a run outside one wrote it into whatever directory the command ran in.
    Refused before the command runs, so nothing is written.

    Raises:
        ConfigError: naming the directory searched and what to do.
    """
    if config.source is not None:
        return
    from patchkeeper.errors import ConfigError

    raise ConfigError(
        "--save-evidence keeps the result in a downstream's .patchkeeper/evidence/, and no "
        "patchkeeper configuration (patchkeeper.toml, or a pyproject.toml with "
        f"[tool.patchkeeper]) is in {config.root} or a directory above it; nothing was "
        "written",
        hint="run 'patchkeeper init' to make this directory a downstream, pass -C DIR (or "
        "--config FILE) to run in one, or leave out --save-evidence",
    )


def config_of(ctx: click.Context) -> Any:
    """The configuration the group's options name (:meth:`Settings.config`: loaded once),
    for a command of the group.

    Raises: as :meth:`Settings.config`.
    """
    settings = ctx.find_object(Settings)
    assert settings is not None
    return settings.config()


def loaded_config(ctx: click.Context) -> Any:
    """The configuration :func:`config_of` loaded, also when it then refused the command
    (a downstream without the series the command reads); ``None`` when none was loaded."""
    settings = ctx.find_object(Settings)
    return settings.loaded if settings is not None else None


#: Commands that read the series, and so need a configuration or the default series file:
#: the series' readers, and the commands that also work without a series.
SERIES_COMMANDS = SERIES_READERS | frozenset({"lint", "export", "decide", "report"})


def emit(result: Any, as_json: bool, markdown: Path | None = None) -> None:
    """Print ``result`` (JSON or text), write Markdown if asked, and exit with its code.

    The evidence commands keep their results in the evidence store themselves (their
    ``run``); printing saves nothing.
    """
    from patchkeeper import render
    from patchkeeper.progress import clear_note, take_warnings
    from patchkeeper.system.whole_output import write_whole, writing_result

    clear_note()  # the output takes the place of the last status line
    if markdown is not None or not as_json:
        _load_renderers(result, markdown is not None)
    if markdown is not None:
        _refuse_input_file(markdown)
        _write_markdown(markdown, render.render_markdown(result))
    colour = None  # click strips escape codes when standard output is not a terminal
    payload = None if as_json else render.render_payload(result)
    report = sys.stderr if payload is not None else sys.stdout
    if as_json:
        name = command_name(click.get_current_context())
        text = render.render_json(result, name, take_warnings())
    else:
        text, coloured = render.terminal_text(result, report)
        colour = coloured or None
    with writing_result():  # whole, even when Ctrl-C comes while it is written
        if payload:  # a diff: printed as it is; the report goes to standard error
            write_whole(payload.encode("utf-8", "surrogateescape"), sys.stdout)
        if text:
            write_whole(_report_bytes(text, report, colour), report)
    sys.exit(getattr(result, "exit_code", 0))


def _report_bytes(text: str, stream: Any, colour: bool | None) -> bytes:
    """The bytes ``click.echo`` would write for ``text`` on ``stream``: one final newline,
    escape codes stripped unless ``colour`` or a terminal, bytes kept by ``surrogateescape``
    as they were (:func:`patchkeeper.render.output_bytes`), else the stream's encoding."""
    from patchkeeper import render

    isatty = getattr(stream, "isatty", None)
    if not colour and not (isatty is not None and isatty()):
        text = click.unstyle(text)
    text = text.rstrip("\n") + "\n"
    encoding = getattr(stream, "encoding", None) or "utf-8"
    data = render.output_bytes(text, encoding)
    if data is not None:
        return data
    return text.encode(encoding, getattr(stream, "errors", None) or "strict")


def _refuse_input_file(path: Path) -> None:
    """Refuse a ``--markdown`` path that is one of the downstream's own files, existing or
    one a command writes later: the configuration file, the series file, a patch the series
    lists, the ledger file, the decisions file, the audit record, any path in the evidence
    directory (``.patchkeeper/evidence/``); an existing Python file (a
    runtime plugin's patch), an existing file that is not a report by its suffix
    (:data:`_REPORT_SUFFIXES`: ``debian/changelog``) or one of the project's documents
    (:data:`_PROJECT_DOCUMENTS`: ``README.md``). A slip such
    as ``--markdown patches/fix.patch`` (or ``PATCHES.md``) replaced the file with the
    report.

    Raises:
        PatchkeeperError: naming the file.
    """
    if path.suffix == ".py" and path.is_file():
        raise PatchkeeperError(
            "--markdown names a Python source file (a plugin's patch?): the report would "
            "replace its code",
            path=path,
            hint="pass --markdown a file of its own, e.g. --markdown audit.md",
        )
    context = click.get_current_context(silent=True)
    settings = getattr(context, "obj", None) if context is not None else None
    config = getattr(settings, "_config", None)  # only a configuration the command read
    if config is not None:  # also one a step writes later (upgrade's record, decide's file)
        _refuse_downstream_file(path, config)
    if path.is_file() and _project_file(path):
        raise PatchkeeperError(
            "--markdown names a project, configuration or patch file, not a report: the "
            "report would replace it",
            path=path,
            hint="pass --markdown a file of its own, e.g. --markdown audit.md",
        )
    if path.is_file() and path.suffix.lower() not in _REPORT_SUFFIXES:
        raise PatchkeeperError(
            "--markdown names an existing file that is not a report (a report is a .md, "
            ".markdown or .txt file): the report would replace it",
            path=path,
            hint="pass --markdown a file of its own, e.g. --markdown audit.md",
        )
    if path.is_file() and path.name.split(".", 1)[0].upper() in _PROJECT_DOCUMENTS:
        raise PatchkeeperError(
            "--markdown names one of the project's own documents, not a report: the report "
            "would replace it",
            path=path,
            hint="pass --markdown a file of its own, e.g. --markdown audit.md",
        )


def _refuse_downstream_file(path: Path, config: Any) -> None:
    """The part of :func:`_refuse_input_file` that reads the configuration ``config``.

    Raises:
        PatchkeeperError: naming the file.
    """
    target = path.resolve()
    own = {p.resolve() for p in (config.source, config.series, *_kept_files(config)) if p}
    if target.parent == config.patches_dir.resolve() and target not in own:
        from patchkeeper.series.parse import parse_series

        try:
            names = [entry.name for entry in parse_series(config.series).entries]
        except PatchkeeperError:
            names = []
        own |= {(config.patches_dir / name).resolve() for name in names}
    from patchkeeper.record.evidence_store import EVIDENCE_DIR

    if target.is_relative_to((config.root / EVIDENCE_DIR).resolve()):
        raise PatchkeeperError(
            f"--markdown names a file in the evidence directory ({EVIDENCE_DIR}/), where the "
            "commands save their evidence and the record reads it: the report would be "
            "mixed into it, or replaced by a step",
            path=path,
            hint="pass --markdown a file of its own, e.g. --markdown audit.md",
        )
    if target in own:
        raise PatchkeeperError(
            "--markdown names a file of the downstream's series, configuration or record: the "
            "report would replace it",
            path=path,
            hint="pass --markdown a file of its own, e.g. --markdown audit.md",
        )


#: Suffixes and names of files that are never a report: project and configuration files
#: (a plugin's ``pyproject.toml`` holds its entry points), lock files, patches, metadata.
_NOT_REPORTS = frozenset(
    {".pyi", ".toml", ".cfg", ".ini", ".lock", ".json", ".yaml", ".yml", ".patch", ".diff"}
)
_NOT_REPORT_NAMES = frozenset(
    {"series", "MANIFEST.in", "PKG-INFO", "METADATA", "RECORD", "entry_points.txt"}
)


#: What an existing file a report may replace ends in: a report written before. Any other
#: existing file is someone's (``debian/changelog``, ``debian/rules``, an RPM spec, a
#: ``Makefile``: ``audit --markdown debian/changelog`` replaced the file init reads the pin
#: from).
_REPORT_SUFFIXES = frozenset({".md", ".markdown", ".txt"})
#: A project's own documents, by name (``README.md``, ``CHANGELOG.md``, ``NEWS.txt``): never
#: a report, whatever their suffix.
_PROJECT_DOCUMENTS = frozenset(
    {
        "README",
        "CHANGELOG",
        "CHANGES",
        "NEWS",
        "HISTORY",
        "CONTRIBUTING",
        "LICENSE",
        "COPYING",
        "AUTHORS",
        "SECURITY",
        "CODE_OF_CONDUCT",
    }
)


def _project_file(path: Path) -> bool:
    """Whether ``path`` names a file of a kind no report is written as (:data:`_NOT_REPORTS`,
    :data:`_NOT_REPORT_NAMES`, ``requirements*.txt``): the one rule for every command, with a
    configuration or without (``runtime audit --markdown pyproject.toml`` replaced a plugin's
    project file, its entry points with it)."""
    name = path.name
    if path.suffix.lower() in _NOT_REPORTS or name in _NOT_REPORT_NAMES:
        return True
    return name.startswith("requirements") and name.endswith(".txt")


def _kept_files(config: Any) -> tuple[Path, ...]:
    """The files kept beside the series that a report must not replace: the ledger
    (``[ledger] file``), the decisions file (``[report] decisions-file``) and the audit
    record (``[report] audit-file``), ``report`` writes; ``upgrade --markdown AUDIT.md``
    replaced the record its own report step had just written with the step table."""
    from patchkeeper.ledger.settings import ledger_settings
    from patchkeeper.record.settings import report_settings

    settings = report_settings(config)
    return (
        Path(ledger_settings(config).file),
        Path(settings.decisions_file),
        Path(settings.audit_file),
    )


def _refuse_unwritable(path: Path) -> None:
    """Refuse a ``--markdown`` path that cannot be written (its directory is missing or
    read-only, or it is a directory) before the command runs: a command that writes its
    own state (``port``'s work directory) must not fail after it.

    The write is tried (:func:`~patchkeeper.system.writable.try_write`), not guessed from
    the permission bits (``os.access``): a directory on a file system mounted read-only was
    said to be "Permission denied", and the refusal says the cause the write meets.

    Raises:
        PatchkeeperError: naming the file, with the reason :func:`_write_markdown` gives.
    """
    import errno

    from patchkeeper.system.writable import try_write

    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        refused = OSError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    elif not parent.is_dir():
        # a file where the directory should be is ENOTDIR, as writing there would say
        code = errno.ENOTDIR if os.path.lexists(parent) else errno.ENOENT
        refused = OSError(code, os.strerror(code), str(path))
    else:
        try:
            try_write(path)
        except OSError as exc:
            refused = exc
        else:
            return
    raise _markdown_refused(path, refused)


def _markdown_refused(path: Path, exc: OSError) -> PatchkeeperError:
    """The error for a ``--markdown`` report the machine refused to write: its cause by the
    refusal's ``errno``, and what to do (:func:`patchkeeper.system.refusals.refusal_hint`
    for a read-only file system, a missing permission, a full disk), with a place to write
    the report instead."""
    from patchkeeper.system.refusals import refusal_hint

    where = "pass --markdown a file in a directory that exists and can be written"
    cause = refusal_hint(exc, path)
    return PatchkeeperError(
        f"cannot write the Markdown report: {exc.strerror or os.strerror(exc.errno or 0)}",
        path=path,
        hint=f"{cause}; or {where}, e.g. --markdown /tmp/{path.name}" if cause else where,
    )


def _write_markdown(path: Path, text: str) -> None:
    """Write the ``--markdown`` report, or fail with a message naming the file."""
    try:
        path.write_text(text, encoding="utf-8", errors="surrogateescape")  # bytes kept
    except OSError as exc:
        raise _markdown_refused(path, exc) from None


#: The arguments of the running command line (without the program name), kept with the
#: evidence of the command.
ARGV: list[str] = []


def _load_renderers(result: Any, markdown: bool) -> None:
    """Import the renderer modules ``result`` needs (:func:`patchkeeper.render.load_renderers`)."""
    from patchkeeper import render

    render.load_renderers(result, markdown)


def command_name(ctx: click.Context) -> str:
    """The running command's name as typed, without the program: ``"audit"``,
    ``"runtime audit"``; ``""`` before a command is known (``patchkeeper nosuch``)."""
    return ctx.command_path.partition(" ")[2]


#: The command whose ``--json`` was given (its name), so that an error is printed as JSON.
JSON_COMMAND: list[str] = []

#: The configuration file the command read (at most one), so that an error's hint names a
#: table as that file spells it (:func:`patchkeeper.config.spelt_for`).
CONFIG_SOURCE: list[Path] = []


#: The options other tools ask for an output format with (``--format json``, ``-o json``,
#: ``--output-format markdown``).
OTHER_TOOLS_FORMAT_OPTIONS = ("--format", "--output-format", "--output", "-o")


#: What ``--format VALUE`` (as :data:`OTHER_TOOLS_FORMAT_OPTIONS` spell it) asks of a
#: command that takes ``--json`` and has no such option, by VALUE: the option that gives it
#: (``""``: the command's output without an option), the words for it.
_FORMAT_WAYS = {
    "json": (OPTION_JSON, "JSON output is asked for with"),
    "markdown": (OPTION_MARKDOWN, "a Markdown report is written to a file with"),
    "md": (OPTION_MARKDOWN, "a Markdown report is written to a file with"),
    "text": ("", "text is what the command prints without an option"),
}


def refuse_other_tools_format_option(ctx: click.Context, args: Sequence[str]) -> None:
    """Refuse an output format asked for as other tools ask for it (``--format json``,
    ``--output=json``, ``-o json``; ``--format markdown``, ``--format text``) from a command
    that takes ``--json``, when the command has no such option or its option does not take
    the word (``lint --format`` is ``text`` or ``github``): click's ``No such option:
    --format. Did you mean '--from'?`` did not say that ``--json`` (or ``--markdown FILE``,
    or nothing) is the way. A command whose option takes the word (``export -o json``, a
    file named ``json``) is left alone, and so is ``markdown`` to a command without
    ``--markdown``.

    Raises:
        click.UsageError: naming what was typed and the command line to use (exit 2).
    """
    options = {
        name: param
        for param in ctx.command.get_params(ctx)
        if isinstance(param, click.Option)
        for name in param.opts
    }
    if OPTION_JSON not in options:
        return
    words = list(args)
    for index, word in enumerate(words):
        if word == "--":
            return
        name, equals, value = word.partition("=")
        if name not in OTHER_TOOLS_FORMAT_OPTIONS:
            continue
        if not equals:
            value = words[index + 1] if index + 1 < len(words) else ""
        way = _FORMAT_WAYS.get(value.lower())
        if way is None or (way[0] and way[0] not in options):
            continue
        option = options.get(name)
        choices = getattr(option.type, "choices", None) if option is not None else None
        if option is not None and (choices is None or value.lower() in choices):
            continue
        typed = word if equals else f"{name} {value}"
        wanted, words_for = way
        line = f"{ctx.command_path} {wanted} FILE ..." if wanted == OPTION_MARKDOWN else ""
        line = line or (f"{ctx.command_path} {wanted} ..." if wanted else "")
        advice = f"{words_for} {wanted} ({line})" if wanted else f"{words_for}: leave {typed} out"
        raise click.UsageError(f"{typed}: {advice}", ctx)


def refuse_option_as_value(ctx: click.Context, args: Sequence[str]) -> None:
    """Refuse an option of ``ctx``'s command that takes a value given none before another of
    its options (``runtime audit --from --to X``): click would take ``--to`` as the value of
    ``--from``, and the error it then met named neither. A value that is one of the
    command's option names (alone, or before ``=``: ``--to=X``) is that mistake; a value
    that must look like one is still given in one word (``--from=--to``). ``args`` are the
    words for the command, read as click reads them: up to ``--``, and, for a command that
    takes no option after its arguments (a group, whose command follows; ``record``, whose
    validation command does), up to the first word that is neither an option nor a value.

    An option naming a place (a path, or a release) or a name (a branch, a tag, a package;
    :func:`patchkeeper.system.option_values.refuses_empty`) given an empty or blank value
    (:func:`patchkeeper.system.option_values.blank`: ``--to ''``, ``--output=``, ``--python='
    '``, ``--branch ' '``, ``-C' '``), in one word or two, is refused the same way: an empty
    path is the current directory to ``pathlib``, an empty release is no requirement at all,
    and an empty name reads as the option left out (``upgrade --branch ''`` wrote on the
    branch checked out, not on a new one).

    Raises:
        click.BadOptionUsage: ``--from needs a value; got the option --to``, ``--to needs a
            value`` (exit 2).
    """
    options = [p for p in ctx.command.get_params(ctx) if isinstance(p, click.Option)]
    names = {name for option in options for name in (*option.opts, *option.secondary_opts)}
    values = {
        name: option.nargs
        for option in options
        if not option.is_flag and not option.count
        for name in option.opts
    }
    places = {name for option in options if refuses_empty(option) for name in option.opts}
    words = iter(args)
    for word in words:
        positional = word == "-" or not word.startswith("-")
        if word == "--" or (positional and not ctx.allow_interspersed_args):
            return
        name, equals, rest = word.partition("=")
        if equals and blank(rest) and name in places:
            raise click.BadOptionUsage(name, f"{name} needs a value", ctx)
        if word[:2] in places and len(word) > 2 and word[1] != "-" and blank(word[2:]):
            # a short option with its value attached (-C' '), as click reads it
            raise click.BadOptionUsage(word[:2], f"{word[:2]} needs a value", ctx)
        for _ in range(values.get(word, 0)):
            value = next(words, None)
            if value is None:
                return  # click says that the option requires an argument
            if value.partition("=")[0] in names:
                raise click.BadOptionUsage(
                    word, f"{word} needs a value; got the option {value}", ctx
                )
            if blank(value) and word in places:
                raise click.BadOptionUsage(word, f"{word} needs a value", ctx)


class LazyGroup(click.Group):
    """A group whose commands are imported when one is asked for (click's lazy-loading
    group): ``lazy`` maps each command's name to the module that defines it as
    ``command``, so that a command's start loads its own module only.

    ``prepare`` is called once on each command loaded (the options every command also
    takes, the help spelt for the configuration in use)."""

    def __init__(
        self,
        *args: Any,
        lazy: Mapping[str, str] | None = None,
        prepare: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})
        self.prepare = prepare

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, loaded or not, sorted as click sorts them."""
        return sorted({*super().list_commands(ctx), *self.lazy})

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Parse the group's own options, as click does.

        Raises:
            click.UsageError: an option the group does not take: when the command named
                after it takes it (``patchkeeper --json audit``, as some tools take a global
                ``--json``), the error says to put it after that command
                (:meth:`_misplaced`); else click's own ``No such option``; or an option
                of the group given another as its value (:func:`refuse_option_as_value`).
        """
        if not ctx.resilient_parsing:  # shell completion parses what it can
            refuse_option_as_value(ctx, args)
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            raise self._misplaced(ctx, args, exc) from None

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """The command ``args`` name, as click finds it, and the words after it.

        Raises:
            click.UsageError: as click's, with the closest command named when no command
                has the name (``No such command 'lnt'. Did you mean 'lint'?``, as click
                names the closest option); or an option of that command (not a sub-group)
                given another of its options as its value (:func:`refuse_option_as_value`),
                or an output format asked for as other tools ask for it (``--format json``,
                ``-o markdown``: :func:`refuse_other_tools_format_option`).
        """
        try:
            name, command, rest = super().resolve_command(ctx, args)
        except click.UsageError as exc:
            raise self._closest_command(ctx, args, exc) from None
        if (
            command is not None
            and not isinstance(command, click.Group)
            and not ctx.resilient_parsing  # shell completion parses what it can
        ):
            settings = command.context_settings
            context = command.context_class(command, info_name=name, parent=ctx, **settings)
            refuse_option_as_value(context, rest)
            refuse_other_tools_format_option(context, rest)
        return name, command, rest

    def _closest_command(
        self, ctx: click.Context, args: list[str], error: click.UsageError
    ) -> click.UsageError:
        """``error`` for an unknown command, with the closest commands named (``Did you
        mean 'lint'?``); any other error as it is."""
        word = args[0] if args else ""
        if not error.message.startswith("No such command") or word.startswith("-"):
            return error
        close = difflib.get_close_matches(word, self.list_commands(ctx), n=2, cutoff=0.6)
        if not close:
            return error
        names = " or ".join(repr(name) for name in close)
        return click.UsageError(f"{error.message} Did you mean {names}?", ctx)

    def _misplaced(
        self, ctx: click.Context, args: list[str], error: click.NoSuchOption
    ) -> click.UsageError:
        """The usage error for ``error``'s option given before the command: "``--json`` is
        an option of each command ...: put it after the command (``patchkeeper audit
        --json ...``)" when the command the words after it name (a sub-group's command too:
        ``runtime audit``) takes that option, or no command is named and the option is
        ``--json`` (``patchkeeper COMMAND --json ...``), else ``error`` itself. A ``--json``
        so given still asks for the error as the JSON envelope of that command
        (:data:`JSON_COMMAND`).
        """
        option = error.option_name.partition("=")[0]
        group, path = self.named(ctx, args)
        takes = group is not self and any(
            option in param.opts for param in group.params if isinstance(param, click.Option)
        )
        if not takes and not (option == OPTION_JSON and group is self):
            return error
        named = " ".join(path) or "COMMAND"  # no command yet: any command takes --json
        owner = "each command" if option == OPTION_JSON else f"'{named}'"
        if option == OPTION_JSON and path:
            JSON_COMMAND[:] = [" ".join([*command_name(ctx).split(), *path])]
        return click.UsageError(
            f"{option} is an option of {owner}, not of {ctx.command_path} itself: put it "
            f"after the command ({ctx.command_path} {named} {option} ...)",
            ctx,
        )

    def named(self, ctx: click.Context, args: Sequence[str]) -> tuple[click.Command, list[str]]:
        """The command the words of ``args`` name (a sub-group's command too: ``runtime
        audit``) and those words; ``(self, [])`` when they name none. Words before the first
        command that name none are the values of the group's options (``-C DIR``)."""
        group: click.Command = self
        path: list[str] = []
        for word in (arg for arg in args if not arg.startswith("-")):
            if not isinstance(group, click.Group):
                break
            found = group.get_command(ctx, word) if word in group.list_commands(ctx) else None
            if found is None:
                if path:
                    break
                continue  # the value of a group option (-C DIR) before the command
            group = found
            path.append(word)
        return group, path

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command ``cmd_name``, its module imported on first use; ``None`` if unknown."""
        if cmd_name in self.commands or cmd_name not in self.lazy:
            return super().get_command(ctx, cmd_name)
        command = importlib.import_module(self.lazy[cmd_name]).command
        assert isinstance(command, click.Command), self.lazy[cmd_name]
        if self.prepare is not None:
            self.prepare(command)
        self.add_command(command, cmd_name)
        return command
