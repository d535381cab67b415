"""The command line: parses arguments, dispatches to ``patchkeeper.commands``, prints results.

Nothing else prints or exits. Exit codes (docs/architecture.md): 0 all good, 1 findings (not
applied, conflict, lint failure, stale ledger), 2 usage or input error, 3 a bug in patchkeeper (the
traceback goes to a log file), 130 interrupted. Command modules are imported only when their command
runs, so ``--help`` and short commands start fast.
"""

from __future__ import annotations

import errno
import functools
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click

from patchkeeper import __version__
from patchkeeper.errors import PatchkeeperError

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
#: The parameter types of the options that name a file or a directory, made once and shared
#: (each ``click.Path`` asks gettext for its name: a lookup of translation files, for every
#: option of every command at each start).
FILE_PATH = click.Path(dir_okay=False, path_type=Path)
DIRECTORY_PATH = click.Path(file_okay=False, path_type=Path)


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
                not at the default place either (instead of "the series file does not exist").
        """
        if self._config is None:
            from patchkeeper.config import load_config

            self._config = load_config(self.config_file, start=self.directory)
            CONFIG_SOURCE[:] = [self._config.source] if self._config.source else []
            self._require_series(self._config)
            context = click.get_current_context(silent=True)
            markdown = context.params.get("markdown") if context is not None else None
            if isinstance(markdown, Path):  # refused before the command writes anything
                _refuse_input_file(markdown)
                _refuse_unwritable(markdown)
        return self._config

    @staticmethod
    def _require_series(config: Any) -> None:
        from patchkeeper.config import require_series

        context = click.get_current_context(silent=True)
        command = command_name(context) if context is not None else None
        if command in SERIES_COMMANDS:
            require_series(config)


#: Commands that read the series, and so need a configuration or the default series file.
SERIES_COMMANDS = frozenset(
    {
        "apply",
        "unapply",
        "verify",
        "status",
        "audit",
        "port",
        "ledger",
        "lint",
        "retire",
        "export",
        "import",
        "check-branch",
        "decide",
        "report",
    }
)


def emit(result: Any, as_json: bool, markdown: Path | None = None) -> None:
    """Print ``result`` (JSON or text), write Markdown if asked, and exit with its code.

    The evidence commands keep their results in the evidence store themselves (their
    ``run``); printing saves nothing.
    """
    from patchkeeper import render
    from patchkeeper.progress import clear_note

    clear_note()  # the output takes the place of the last status line
    if markdown is not None or not as_json:
        _load_renderers(result, markdown is not None)
    if markdown is not None:
        _refuse_input_file(markdown)
        _write_markdown(markdown, render.render_markdown(result))
    colour = None  # click strips escape codes when standard output is not a terminal
    payload = "" if as_json else render.render_payload(result)
    if payload:  # a diff: printed as it is; the report goes to standard error
        click.echo(payload.encode("utf-8", "surrogateescape"), nl=False)
    report = sys.stderr if payload else sys.stdout
    if as_json:
        text = render.render_json(result, command_name(click.get_current_context()))
    else:
        text, coloured = render.terminal_text(result, report)
        colour = coloured or None
    if text:
        text = text.rstrip("\n")
        data = render.output_bytes(text, getattr(report, "encoding", None))
        click.echo(text if data is None else data, color=colour, err=bool(payload))
    sys.exit(getattr(result, "exit_code", 0))


def _refuse_input_file(path: Path) -> None:
    """Refuse a ``--markdown`` path that is one of the downstream's own files: the
    configuration file, the series file, a patch the series lists, the ledger file, the
    decisions file, or an existing Python file (a runtime plugin's patch). A slip such as
    ``--markdown patches/fix.patch`` (or ``PATCHES.md``) replaced the file with the report.

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
    if config is not None and path.exists():
        _refuse_downstream_file(path, config)
    if path.is_file() and _project_file(path):
        raise PatchkeeperError(
            "--markdown names a project, configuration or patch file, not a report: the "
            "report would replace it",
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
    if target in own:
        raise PatchkeeperError(
            "--markdown names a file of the downstream's series or configuration: the report "
            "would replace it",
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
    """The files a person keeps beside the series that a report must not replace: the
    ledger (``[ledger] file``) and the decisions file (``[report] decisions-file``)."""
    from patchkeeper.ledger.settings import ledger_settings
    from patchkeeper.record.settings import report_settings

    return (Path(ledger_settings(config).file), Path(report_settings(config).decisions_file))


def _refuse_unwritable(path: Path) -> None:
    """Refuse a ``--markdown`` path that cannot be written (its directory is missing or
    read-only, or it is a directory) before the command runs: a command that writes its
    own state (``port``'s work directory) must not fail after it.

    Raises:
        PatchkeeperError: naming the file, with the reason :func:`_write_markdown` gives.
    """
    import errno

    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        code = errno.EISDIR
    elif not parent.is_dir():
        code = errno.ENOENT
    elif not os.access(path if path.exists() else parent, os.W_OK):
        code = errno.EACCES
    else:
        return
    raise PatchkeeperError(
        f"cannot write the Markdown report: {os.strerror(code)}",
        path=path,
        hint="pass --markdown a file in a directory that exists and can be written",
    )


def _write_markdown(path: Path, text: str) -> None:
    """Write the ``--markdown`` report, or fail with a message naming the file."""
    try:
        path.write_text(text, encoding="utf-8", errors="surrogateescape")  # bytes kept
    except OSError as exc:
        raise PatchkeeperError(
            f"cannot write the Markdown report: {exc.strerror}",
            path=path,
            hint="pass --markdown a file in a directory that exists and can be written",
        ) from None


#: The arguments of the running command line (without the program name), kept with the
#: evidence of the command.
ARGV: list[str] = []


def _load_renderers(result: Any, markdown: bool) -> None:
    """Import the renderer modules ``result`` needs (:func:`patchkeeper.render.load_renderers`)."""
    from patchkeeper import render

    render.load_renderers(result, markdown)


Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def command_name(ctx: click.Context) -> str:
    """The running command's name as typed, without the program: ``"audit"``,
    ``"runtime audit"``; ``""`` before a command is known (``patchkeeper nosuch``)."""
    return ctx.command_path.partition(" ")[2]


#: How an option naming one upstream release says what it takes; ``--help`` writes the
#: configured upstream for ``PROJECT`` (:func:`_spell_help`).
_RELEASE = "a directory or a requirement of the configured upstream (PROJECT==VERSION)"

#: The command whose ``--json`` was given (its name), so that an error is printed as JSON.
JSON_COMMAND: list[str] = []

#: The configuration file the command read (at most one), so that an error's hint names a
#: table as that file spells it (:func:`patchkeeper.config.spelt_for`).
CONFIG_SOURCE: list[Path] = []


def _json_requested(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if value:
        JSON_COMMAND[:] = [command_name(ctx)]
    return value


def json_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """``--json``: print the result (or an error) as the JSON envelope of docs/json.md."""
    return click.option(
        "--json",
        "as_json",
        is_flag=True,
        callback=_json_requested,
        help="Print the result as JSON (docs/json.md).",
    )(function)


def _json_error(command: str | None, error: BaseException, exit_code: int) -> None:
    """Print ``error`` as the JSON envelope on standard output when ``--json`` was asked
    (the message also goes to standard error as text)."""
    if command is None:
        return
    from patchkeeper.jsonable import json_text
    from patchkeeper.render.envelope import error_envelope

    click.echo(json_text(error_envelope(command, error, exit_code), latin1=True))


def _json_command(error: BaseException | None = None) -> str | None:
    """The command to print an error of as JSON, or ``None`` (no ``--json``): the one whose
    ``--json`` was parsed, else, for a usage error met before, the command it names when
    ``--json`` is on the command line."""
    if JSON_COMMAND:
        return JSON_COMMAND[0]
    if "--json" not in ARGV:
        return None
    ctx = getattr(error, "ctx", None)
    return command_name(ctx) if isinstance(ctx, click.Context) else ""


def markdown_option(help: str = "Also write the report as Markdown.") -> Decorator:
    """``--markdown PATH``: also write the result as Markdown; ``help`` says what it is."""
    return click.option("--markdown", type=FILE_PATH, help=help)


def save_evidence_option(function: Callable[..., Any]) -> Callable[..., Any]:
    """``--save-evidence``: keep this run's result in ``.patchkeeper/evidence/`` (saving is
    off by default; ``evidence = true`` in ``[tool.patchkeeper.report]`` turns it on)."""
    return click.option(
        "--save-evidence",
        is_flag=True,
        help="Keep the result in .patchkeeper/evidence/ for the audit record "
        "(default: only with evidence = true in [tool.patchkeeper.report]).",
    )(function)


def pristine_option(
    help: str = "The pristine upstream: a directory or a requirement.",
) -> Decorator:
    return click.option("--pristine", help=help)


def _passed_as(into: str, keywords: Mapping[str, str]) -> Decorator:
    """Hand the options named in ``keywords`` to the command function as one mapping ``into``
    (option parameter -> keyword argument of the command module's ``run``), so that the
    command passes them on as ``**into``."""

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def command(*args: Any, **kwargs: Any) -> Any:
            kwargs[into] = {keyword: kwargs.pop(name) for name, keyword in keywords.items()}
            return function(*args, **kwargs)

        return command

    return decorate


def target_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """The options that say which upstream tree a command works on, passed to the command
    as one mapping ``upstream`` (``target=`` and ``python=`` of its ``run``)."""
    function = _passed_as("upstream", {"target": "target", "python": "python"})(function)
    function = click.option(
        "--python",
        "python",
        type=FILE_PATH,
        help="Use the configured upstream installed in this interpreter's environment.",
    )(function)
    function = click.option(
        "--target",
        "target",
        type=DIRECTORY_PATH,
        help="An upstream tree (an unpacked sdist, a checkout, a site-packages directory).",
    )(function)
    return function


@click.group(context_settings=CONTEXT_SETTINGS)
@click.option(
    "--config",
    "config_file",
    type=FILE_PATH,
    help="patchkeeper.toml or pyproject.toml to read (default: search upwards); "
    "may also follow the command.",
)
@click.option(
    "-C",
    "directory",
    type=DIRECTORY_PATH,
    help="Run as if started in this downstream directory; may also follow the command.",
)
@click.version_option(version=__version__, prog_name="patchkeeper")
@click.pass_context
def cli(ctx: click.Context, config_file: Path | None, directory: Path | None) -> None:
    """Keep a downstream patch series (or runtime patches) true against upstream releases."""
    if directory is not None:
        # like git -C: every relative path on the command line is read from DIR too
        try:
            os.chdir(directory)
        except OSError as exc:
            raise click.BadParameter(f"{directory}: {exc.strerror}", param_hint="-C") from None
        directory = None
    from patchkeeper.progress import set_warning_sink

    set_warning_sink(_warn)
    ctx.obj = Settings(config_file, directory)  # load_config resolves it, after any -C
    if sys.stderr.isatty():
        from patchkeeper.progress import set_bar_factory, set_sink
        from patchkeeper.render.console import progress_bar, status_line

        status = status_line(sys.stderr)
        set_sink(status.show, status.clear)  # notes are transient status lines
        set_bar_factory(progress_bar)


def _warn(message: str) -> None:
    """Print a warning on standard error, in place of the status line if one is shown."""
    from patchkeeper.progress import clear_note

    clear_note()
    click.echo(f"patchkeeper: warning: {message}", err=True)


# --------------------------------------------------------------------------- the series


@cli.command()
@target_options
@json_option
@click.pass_obj
def apply(settings: Settings, upstream: dict[str, Path | None], as_json: bool) -> None:
    """Apply the whole series to the target, atomically, at fuzz 0."""
    from patchkeeper.commands import apply as command

    emit(command.run(settings.config(), **upstream), as_json)


@cli.command()
@target_options
@pristine_option()
@click.option(
    "--force",
    is_flag=True,
    help="Undo the series even where files changed outside it; their bytes are kept in "
    ".patchkeeper/backup/ first.",
)
@json_option
@click.pass_obj
def unapply(
    settings: Settings,
    upstream: dict[str, Path | None],
    pristine: str | None,
    force: bool,
    as_json: bool,
) -> None:
    """Reverse the whole series, last patch first, back to pristine."""
    from patchkeeper.commands import unapply as command

    result = command.run(settings.config(), **upstream, pristine=pristine, force=force)
    emit(result, as_json)


@cli.command()
@target_options
@pristine_option(
    "The pristine upstream: a directory or a requirement "
    "(default for a directory target: the configured pin)."
)
@save_evidence_option
@json_option
@click.pass_obj
def verify(
    settings: Settings,
    upstream: dict[str, Path | None],
    pristine: str | None,
    save_evidence: bool,
    as_json: bool,
) -> None:
    """Prove which patches are applied and that nothing else changed (exit 1 otherwise)."""
    from patchkeeper.commands import verify as command

    result = command.run(
        settings.config(), **upstream, pristine=pristine, argv=ARGV, save_evidence=save_evidence
    )
    emit(result, as_json)


@cli.command()
@target_options
@pristine_option()
@json_option
@click.pass_obj
def status(
    settings: Settings, upstream: dict[str, Path | None], pristine: str | None, as_json: bool
) -> None:
    """Show per patch and per file what is applied, partly applied or drifted."""
    from patchkeeper.commands import status as command

    emit(command.run(settings.config(), **upstream, pristine=pristine), as_json)


@cli.command()
@click.option(
    "--to",
    "to",
    required=True,
    help=f"The new upstream: {_RELEASE}; a range ('PROJECT>=A,<B') audits every release in "
    "it (the upgrade horizon).",
)
@click.option(
    "--releases",
    type=DIRECTORY_PATH,
    help="With a range: choose the releases among the NAME-VERSION subdirectories of this "
    "directory instead of the package indexes.",
)
@pristine_option(
    "The old pin's tree, to weigh the evidence against: a directory or a requirement "
    "(default: the configured pristine, else upstream==pin)."
)
@markdown_option("Also write the report as Markdown, for a pull request.")
@save_evidence_option
@json_option
@click.pass_obj
def audit(
    settings: Settings,
    to: str,
    releases: Path | None,
    pristine: str | None,
    markdown: Path | None,
    save_evidence: bool,
    as_json: bool,
) -> None:
    """Apply the series to a new upstream release in memory and judge every patch."""
    from patchkeeper.audit.horizon import is_range

    if releases is not None or is_range(to):
        from patchkeeper.commands import horizon

        if save_evidence:
            raise click.UsageError("--save-evidence keeps one release's audit; pass NAME==VERSION")
        result = horizon.run(settings.config(), to=to, releases=releases, pristine=pristine)
        emit(result, as_json, markdown)
    from patchkeeper.commands import audit as command

    config = settings.config()
    result = command.run(config, to=to, pristine=pristine, argv=ARGV, save_evidence=save_evidence)
    emit(result, as_json, markdown)


# --------------------------------------------------------------------------- headers, ledger,
# lint, export/import


@cli.command()
@click.option(
    "--upstream",
    metavar="NAME==VERSION",
    help="The upstream project and the version the series is cut against (default: read "
    "from debian/changelog, PKG-INFO, pyproject.toml or the git tag).",
)
@click.option(
    "--patches",
    type=click.Path(path_type=Path),
    help="The series to use: a series file, or a directory of git format-patch files "
    "(default: found here).",
)
@click.option("--tag", help="Make the series from this git checkout's commits since TAG.")
@click.option(
    "--ledger",
    "ledger_file",
    default="PATCHES.md",
    show_default=True,
    help="The ledger file to write (file in the [ledger] table of the patchkeeper.toml written).",
)
@click.option(
    "--directory",
    "directory",
    default="",
    help="The directory inside the upstream tree that patch paths are relative to "
    "(directory in the patchkeeper.toml written; default: the tree's root).",
)
@json_option
def init(
    upstream: str | None,
    patches: Path | None,
    tag: str | None,
    ledger_file: str,
    directory: str,
    as_json: bool,
) -> None:
    """Start a downstream here from a quilt, Debian or git series; never overwrites."""
    from patchkeeper.commands import init as command

    result = command.run(
        Path.cwd(),
        upstream=upstream,
        patches=patches,
        tag=tag,
        ledger=ledger_file,
        directory=directory,
    )
    emit(result, as_json)


@cli.command()
@click.option("--check", is_flag=True, help="Change nothing; exit 1 with a diff if stale.")
@click.option(
    "--pre-commit",
    "pre_commit",
    is_flag=True,
    help="Run as a pre-commit hook: exit 1 when the table was rewritten too, and name "
    "pre-commit's commands in the messages.",
)
@json_option
@click.pass_obj
def ledger(settings: Settings, check: bool, pre_commit: bool, as_json: bool) -> None:
    """Write the ledger table from the patch headers (--check: only compare)."""
    from patchkeeper.commands import ledger as command

    emit(command.run(settings.config(), check=check, pre_commit=pre_commit), as_json)


@cli.command()
@click.argument("name")
@click.option("--at", "at", required=True, help="The upstream version it retired at.")
@click.option("--why", required=True, help="Why: the upstream change that carries it.")
@json_option
@click.pass_obj
def retire(settings: Settings, name: str, at: str, why: str, as_json: bool) -> None:
    """Take a patch out of the series and the tree; record it in the Retired table."""
    from patchkeeper.commands import retire as command

    emit(command.run(settings.config(), name, at=at, why=why), as_json)


def _checkouts(values: tuple[str, ...]) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep:
            name, path = "", value
        out[name] = Path(path).resolve()
    return out


@cli.command()
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "github"]),
    default="text",
    help="text: file:line: code message; github: workflow annotations.",
)
@click.option(
    "--checkout",
    type=DIRECTORY_PATH,
    help="An upstream git checkout: compare each patch with a re-export of its commit.",
)
@click.option(
    "--upstream",
    type=DIRECTORY_PATH,
    help="A pristine upstream tree: knobs its registry names count as registered.",
)
@click.option(
    "--foreign-checkout",
    "foreign",
    multiple=True,
    metavar="[NAME=]PATH",
    help="A checkout for foreign diffs and vendored trees (all, or the entry NAME).",
)
@markdown_option("Also write the findings as Markdown.")
@json_option
@click.pass_obj
def lint(
    settings: Settings,
    output_format: str,
    checkout: Path | None,
    upstream: Path | None,
    foreign: tuple[str, ...],
    markdown: Path | None,
    as_json: bool,
) -> None:
    """Check headers, the series, hand edits, the knob rule and the other entries."""
    from patchkeeper.commands import lint as command

    result = command.run(
        settings.config(),
        output_format=output_format,
        checkout=checkout,
        upstream=upstream,
        foreign_checkouts=_checkouts(foreign),
    )
    emit(result, as_json, markdown)


def checkout_option(function: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--checkout",
        type=DIRECTORY_PATH,
        help="The upstream git checkout (default: [tool.patchkeeper.git] checkout).",
    )(function)


def tag_option(function: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--tag",
        help="The topic tag of '[TAG] <topic>' subjects (default: [tool.patchkeeper.git] tag).",
    )(function)


@cli.command()
@click.argument("rev", required=False)
@click.option("--range", "rev_range", metavar="BASE..BRANCH", help="Export every topic commit.")
@click.option("-o", "--output", type=FILE_PATH, help="The patch file.")
@checkout_option
@tag_option
@click.option(
    "--normalise",
    is_flag=True,
    help="Write git's form (diff --git, full ids, an exported-from line), not the file's own.",
)
@json_option
@click.pass_obj
def export(
    settings: Settings,
    rev: str | None,
    rev_range: str | None,
    output: Path | None,
    checkout: Path | None,
    tag: str | None,
    normalise: bool,
    as_json: bool,
) -> None:
    """Write a commit (or every topic commit of --range) as a patch file."""
    from patchkeeper.commands import export as command

    if (rev is None) == (rev_range is None):
        raise click.UsageError("give either a commit or --range BASE..BRANCH")
    config = settings.config()
    if rev_range is not None and output is not None:
        raise click.UsageError("-o goes with a single commit, not --range")
    result = command.run(
        config,
        rev=rev,
        rev_range=rev_range,
        checkout=checkout,
        output=output,
        tag=tag,
        normalise=normalise,
    )
    emit(result, as_json)


@cli.command("import")
@checkout_option
@tag_option
@click.option("--branch", help="The branch to create (default: [tool.patchkeeper.git] branch).")
@click.option("--force", is_flag=True, help="Move the branch if it exists.")
@json_option
@click.pass_obj
def import_series(
    settings: Settings,
    checkout: Path | None,
    tag: str | None,
    branch: str | None,
    force: bool,
    as_json: bool,
) -> None:
    """Commit each patch of the series on a new branch at the pin's tag."""
    from patchkeeper.commands import import_ as command

    emit(
        command.run(settings.config(), checkout=checkout, branch=branch, tag=tag, force=force),
        as_json,
    )


@cli.command("check-branch")
@click.argument("branch", required=False)
@checkout_option
@tag_option
@json_option
@click.pass_obj
def check_branch(
    settings: Settings,
    branch: str | None,
    checkout: Path | None,
    tag: str | None,
    as_json: bool,
) -> None:
    """Prove that the series applied to the pin's tag is the integration branch."""
    from patchkeeper.commands import check_branch as command

    emit(command.run(settings.config(), checkout=checkout, branch=branch, tag=tag), as_json)


# --------------------------------------------------------------------------- port (issue
# "patchkeeper 3")


@cli.command()
@click.option("--to", "to", help=f"The new upstream: {_RELEASE}.")
@click.option(
    "--from",
    "source",
    help="The upstream the series is cut against (default: the configured pin).",
)
@click.option("--in-place", is_flag=True, help="Rewrite the series where it is.")
@click.option(
    "--output",
    type=DIRECTORY_PATH,
    help="The new series directory (default: the series directory's name plus the new pin).",
)
@click.option(
    "--retire",
    is_flag=True,
    help="Record upstreamed patches in the ledger's Retired section (with --in-place).",
)
@click.option(
    "--upstream-repo",
    type=DIRECTORY_PATH,
    help="An upstream git checkout with both pins' tags, for history evidence.",
)
@click.option("--continue", "resume", is_flag=True, help="Carry on after resolving a conflict.")
@click.option("--abort", is_flag=True, help="Drop the port in progress (nothing else was written).")
@markdown_option("Also write the report as Markdown, for a pull request.")
@save_evidence_option
@json_option
@click.pass_obj
def port(
    settings: Settings,
    to: str | None,
    source: str | None,
    in_place: bool,
    output: Path | None,
    retire: bool,
    upstream_repo: Path | None,
    resume: bool,
    abort: bool,
    markdown: Path | None,
    save_evidence: bool,
    as_json: bool,
) -> None:
    """Carry the series to a new upstream release: refresh, merge, retire; stop at conflicts."""
    from patchkeeper.commands import port as command

    if resume and abort:
        raise click.UsageError("--continue and --abort exclude each other")
    given = [
        name
        for name, value in (
            ("--to", to),
            ("--from", source),
            ("--in-place", in_place),
            ("--output", output),
            ("--retire", retire),
            ("--upstream-repo", upstream_repo),
        )
        if value
    ]
    if (resume or abort) and given:
        raise click.UsageError(
            f"{', '.join(given)}: the port in progress keeps the options it was started with"
        )
    action = "continue" if resume else "abort" if abort else "port"
    result = command.run(
        settings.config(),
        to=to,
        source=source,
        in_place=in_place,
        retire=retire,
        upstream_repo=upstream_repo,
        output=output,
        action=action,
        argv=ARGV,
        save_evidence=save_evidence,
    )
    emit(result, as_json, markdown)


# --------------------------------------------------------------------------- the whole upgrade


@cli.command()
@click.option("--to", "to", help=f"The new upstream: {_RELEASE}.")
@click.option(
    "--from",
    "source",
    help="The upstream the downstream is cut against (default: the configured pin).",
)
@click.option(
    "--branch",
    help="Do the work on this new git branch, one commit per step (the downstream must be "
    "in a git checkout with nothing left to commit).",
)
@click.option("--continue", "resume", is_flag=True, help="Carry on after resolving a conflict.")
@click.option(
    "--abort", is_flag=True, help="Drop the upgrade: the branch and the work tree put back."
)
@markdown_option("Also write the report as Markdown, for a pull request.")
@json_option
@click.pass_obj
def upgrade(
    settings: Settings,
    to: str | None,
    source: str | None,
    branch: str | None,
    resume: bool,
    abort: bool,
    markdown: Path | None,
    as_json: bool,
) -> None:
    """Audit, decide, port and record an upgrade in one go; say what is left for a person."""
    from patchkeeper.commands import upgrade as command

    if resume and abort:
        raise click.UsageError("--continue and --abort exclude each other")
    given = [n for n, v in (("--to", to), ("--from", source), ("--branch", branch)) if v]
    if (resume or abort) and given:
        raise click.UsageError(
            f"{', '.join(given)}: the upgrade in progress keeps the options it was started with"
        )
    action = "continue" if resume else "abort" if abort else "upgrade"
    result = command.run(settings.config(), to=to, source=source, branch=branch, action=action)
    emit(result, as_json, markdown)


# --------------------------------------------------------------------------- runtime patches


def plugin_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """The options that say where the plugin is (override [tool.patchkeeper.runtime]), passed
    to the command as one mapping ``plugin_location`` (``plugin=``, ``package=`` and
    ``patch_directory=`` of its ``run``)."""
    keywords = {"plugin": "plugin", "package": "package", "patch_dir": "patch_directory"}
    function = _passed_as("plugin_location", keywords)(function)
    function = click.option(
        "--patch-dir",
        "patch_dir",
        help="The patch directory, relative to the plugin root (default: <package>/patch).",
    )(function)
    function = click.option("--package", "package", help="The plugin's import package.")(function)
    function = click.option(
        "--plugin",
        "plugin",
        type=DIRECTORY_PATH,
        help="The directory holding the plugin package (an unpacked sdist, a checkout).",
    )(function)
    return function


@cli.group()
def runtime() -> None:
    """Runtime (monkey) patches of a plugin: inventory, audit, live check, same-code."""


@runtime.command("inventory")
@plugin_options
@markdown_option()
@save_evidence_option
@json_option
@click.pass_obj
def runtime_inventory(
    settings: Settings,
    plugin_location: dict[str, Any],
    markdown: Path | None,
    save_evidence: bool,
    as_json: bool,
) -> None:
    """List every runtime patch, its mechanism and activation; check headers and ledger."""
    from patchkeeper.commands import runtime_inventory as command

    result = command.run(
        settings.config(), **plugin_location, argv=ARGV, save_evidence=save_evidence
    )
    emit(result, as_json, markdown)


@runtime.command("audit")
@click.option("--from", "old", required=True, help=f"The old upstream: {_RELEASE}.")
@click.option("--to", "new", required=True, help=f"The new upstream: {_RELEASE}.")
@plugin_options
@markdown_option()
@save_evidence_option
@json_option
@click.pass_obj
def runtime_audit(
    settings: Settings,
    old: str,
    new: str,
    plugin_location: dict[str, Any],
    markdown: Path | None,
    save_evidence: bool,
    as_json: bool,
) -> None:
    """Suggest retain/update/remove/investigate per patch, with evidence; list stale bindings."""
    from patchkeeper.commands import runtime_audit as command

    result = command.run(
        settings.config(),
        old=old,
        new=new,
        **plugin_location,
        argv=ARGV,
        save_evidence=save_evidence,
    )
    emit(result, as_json, markdown)


@runtime.command("check")
@click.option(
    "--python",
    "python",
    required=True,
    type=FILE_PATH,
    help="The interpreter of the environment where the plugin and upstream are installed.",
)
@click.option("--timeout", default=120.0, show_default=True, help="Seconds before giving up.")
@plugin_options
@save_evidence_option
@json_option
@click.pass_obj
def runtime_check(
    settings: Settings,
    python: Path,
    timeout: float,
    plugin_location: dict[str, Any],
    save_evidence: bool,
    as_json: bool,
) -> None:
    """Run the plugin's entry points in a fresh interpreter and check every patch is live."""
    from patchkeeper.commands import runtime_check as command

    result = command.run(
        settings.config(),
        python=python,
        timeout=timeout,
        **plugin_location,
        argv=ARGV,
        save_evidence=save_evidence,
    )
    emit(result, as_json)


@runtime.command("lock")
@click.option("--at", "at", required=True, help=f"The audited upstream: {_RELEASE}.")
@click.option("--output", type=FILE_PATH, help="The lock file.")
@plugin_options
@json_option
@click.pass_obj
def runtime_lock(settings: Settings, at: str, output: Path | None, plugin_location, as_json):
    """Write each patched target's sha256 at the audited release, for patchkeeper.guard."""
    from patchkeeper.commands import runtime_lock as command

    emit(command.run(settings.config(), at=at, output=output, **plugin_location), as_json)


@runtime.command("port")
@click.option("--from", "old", required=True, help=f"The old upstream: {_RELEASE}.")
@click.option("--to", "new", required=True, help=f"The new upstream: {_RELEASE}.")
@click.option("--write", is_flag=True, help="Apply the update to the plugin's files.")
@click.option("--output", type=FILE_PATH, help="Diff file.")
@plugin_options
@json_option
@click.pass_obj
def runtime_port(settings: Settings, old, new, write, output, plugin_location, as_json) -> None:
    """Write the mechanical update: merged copies, moved targets, gates, headers (a diff)."""
    from patchkeeper.commands import runtime_port as command

    result = command.run(
        settings.config(), old=old, new=new, write=write, output=output, **plugin_location
    )
    emit(result, as_json)


@runtime.command("same-code")
@click.argument("left")
@click.argument("right")
@json_option
def runtime_same_code(left: str, right: str, as_json: bool) -> None:
    """Compare two files or FILE::QUALNAME definitions as ASTs without docstrings."""
    from patchkeeper.commands import runtime_same_code as command

    emit(command.run(left, right), as_json)


# --------------------------------------------------------------------------- the audit record


@cli.command()
@json_option
@click.pass_obj
def decide(settings: Settings, as_json: bool) -> None:
    """Add suggested decisions from the last evidence; never change a decision that exists."""
    from patchkeeper.commands import decide as command

    emit(command.run(settings.config()), as_json)


@cli.command()
@click.option(
    "--python",
    "python",
    type=FILE_PATH,
    help="The audited interpreter (default: [tool.patchkeeper.report] python, else this one).",
)
@click.option("--html", is_flag=True, help="Also write the record as one self-contained page.")
@click.option(
    "--check", is_flag=True, help="Write nothing; exit 1 if the record is stale or false."
)
@json_option
@click.pass_obj
def report(settings: Settings, python: Path | None, html: bool, check: bool, as_json: bool) -> None:
    """Write the audit record (AUDIT.md): environment, decisions with evidence, validation."""
    from patchkeeper.commands import report as command

    emit(command.run(settings.config(), python=python, html=html, check=check), as_json)


@cli.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@json_option
@click.argument("command_line", nargs=-1, type=click.UNPROCESSED, required=True)
@click.pass_obj
def record(settings: Settings, command_line: tuple[str, ...], as_json: bool) -> None:
    """Run a validation command (after --) and keep its exit code, time and output tail."""
    from patchkeeper.commands import record as command

    emit(command.run(settings.config(), list(command_line)), as_json)


# --------------------------------------------------------------------------- coding agents


@cli.command()
@click.option(
    "--root",
    type=DIRECTORY_PATH,
    default=".",
    show_default=True,
    help="The directory the tools work in; a path outside it is refused.",
)
def mcp(root: Path) -> None:
    """Serve the commands to a coding agent as MCP tools over stdio (patchkeeper[mcp])."""
    from patchkeeper.commands import mcp as command

    command.run(root, cli)


def _log_bug() -> Path:
    from patchkeeper.errors import log_bug

    return log_bug()


def _late_directory(ctx: click.Context, param: click.Parameter, value: Path | None) -> None:
    """``-C DIR`` after the command: change directory as the group's ``-C`` does."""
    if value is not None:
        try:
            os.chdir(value)
        except OSError as exc:
            raise click.BadParameter(f"{value}: {exc.strerror}", param_hint="-C") from None


def _late_config(ctx: click.Context, param: click.Parameter, value: Path | None) -> None:
    """``--config FILE`` after the command: the file to read (resolved when it is loaded)."""
    if value is not None:
        settings = ctx.find_object(Settings)
        assert settings is not None
        settings.config_file = value


def accept_global_options(group: click.Group) -> None:
    """Let ``-C`` and ``--config`` follow any command of ``group`` (and of its sub-groups):
    pre-commit appends a hook's ``args`` after the command, ``patchkeeper ledger --check -C
    sub``. They apply in command-line order, as the group's options do (hidden from the
    commands' help; the group's help names them)."""
    for command in group.commands.values():
        command.params += [
            click.Option(
                ["-C", "late_directory"],
                type=DIRECTORY_PATH,
                expose_value=False,
                is_eager=True,
                hidden=True,
                callback=_late_directory,
            ),
            click.Option(
                ["--config", "late_config"],
                type=FILE_PATH,
                expose_value=False,
                is_eager=True,
                hidden=True,
                callback=_late_config,
            ),
        ]
        if isinstance(command, click.Group):
            accept_global_options(command)
        _spell_help(command)


def _spell_help(command: click.Command) -> None:
    """``--help`` names the configuration tables as the file in use spells them (``[git]``
    in a ``patchkeeper.toml``): the help texts are written as ``pyproject.toml`` spells them
    and rewritten (:func:`patchkeeper.config.spelt_for`) once the configuration is found,
    from ``-C``/``--config`` or the current directory upwards."""
    plain = command.get_help

    def get_help(ctx: click.Context) -> str:
        source = _help_config(ctx)
        if source is None:
            return plain(ctx)
        from patchkeeper.config import spelt_for

        texts = [(p, getattr(p, "help", None)) for p in command.params]
        texts = [(param, text) for param, text in texts if text]
        project = _help_upstream(source) if any("PROJECT" in t for _, t in texts) else None
        try:  # spelt for this rendering only: the command objects live on (tests, main())
            for param, text in texts:
                text = text.replace("PROJECT", project) if project else text
                param.help = spelt_for(text, source)  # type: ignore[attr-defined]
            return plain(ctx)
        finally:
            for param, text in texts:
                param.help = text  # type: ignore[attr-defined]

    command.get_help = get_help  # type: ignore[method-assign]


def _help_upstream(source: Path) -> str | None:
    """The ``upstream`` key of the configuration file ``source``, or ``None`` (unset, not a
    name, or the file unreadable: the help is still printed, with ``PROJECT``)."""
    from patchkeeper.config import read_table

    try:
        upstream = read_table(source).get("upstream")
    except PatchkeeperError:
        return None
    return upstream.strip() if isinstance(upstream, str) and upstream.strip() else None


def _help_config(ctx: click.Context) -> Path | None:
    """The configuration file the command would read, or ``None`` (none, or unreadable)."""
    from patchkeeper.config import find_config

    settings = ctx.find_object(Settings)
    if settings is not None and settings.config_file is not None:
        return Path(settings.config_file)
    start = settings.directory if settings is not None and settings.directory else Path.cwd()
    try:
        return find_config(Path(start).resolve())[0]
    except PatchkeeperError:
        return None


accept_global_options(cli)


def main(argv: list[str] | None = None) -> int:
    """Run the command line and return the exit code (for tests: ``main(["apply"])``)."""
    import gc

    # A short-lived command allocates many small objects (a hunk line each) and frees them
    # all at exit: the young-generation collector would only walk them again and again.
    gc.set_threshold(100_000, 50, 50)
    ARGV[:] = list(sys.argv[1:] if argv is None else argv)
    JSON_COMMAND.clear()
    CONFIG_SOURCE.clear()
    from patchkeeper.system.platforms import unsupported

    problem = unsupported(sys.platform)
    if problem is not None:
        click.echo(f"patchkeeper: error: {problem}", err=True)
        return 2
    from patchkeeper.progress import clear_note, set_sink

    try:
        try:
            cli.main(args=argv, prog_name="patchkeeper", standalone_mode=False)
        finally:
            clear_note()  # no status line is left behind, whatever ends the command
            set_sink(None)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    except PatchkeeperError as exc:
        _spell_tables(exc)
        click.echo(f"patchkeeper: error: {exc}", err=True)
        _json_error(_json_command(exc), exc, exc.exit_code)
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("patchkeeper: interrupted", err=True)
        return 130
    except click.ClickException as exc:
        exc.show()
        _json_error(_json_command(exc), exc, 2)
        return 2
    except KeyboardInterrupt:
        click.echo("patchkeeper: interrupted", err=True)
        return 130
    except Exception as exc:  # a bug: keep the traceback, tell the user where
        refused = machine_refused(exc)
        if refused is not None:
            click.echo(f"patchkeeper: error: {refused}", err=True)
            _json_error(_json_command(), refused, refused.exit_code)
            return refused.exit_code
        log = _log_bug()
        click.echo(
            f"patchkeeper: internal error ({type(exc).__name__}: {exc}); "
            f"the traceback is in {log}; please report it",
            err=True,
        )
        bug = PatchkeeperError(
            f"internal error ({type(exc).__name__}: {exc})",
            hint=f"the traceback is in {log}; please report it",
        )
        _json_error(_json_command(), bug, 3)
        return 3
    return 0


#: What to do when the machine refuses a file operation, by ``errno``: no permission, a
#: file system mounted read-only, no space left. These are the user's to fix, not bugs.
REFUSALS = {
    errno.EACCES: "let this user write it and its directory, or work on a copy",
    errno.EPERM: "let this user write it and its directory, or work on a copy",
    errno.EROFS: "the file system is mounted read-only: work on a copy on a writable one",
    errno.ENOSPC: "free some space on that file system and run the command again",
    errno.EDQUOT: "free some space within your quota and run the command again",
}


def machine_refused(exc: BaseException) -> PatchkeeperError | None:
    """An error (exit 2) naming the file, for an ``OSError`` the machine raised on a file that
    no check before it caught (a read-only downstream, a full disk), else ``None``: every
    other exception is a bug. The message says that the command stopped there; a command that
    writes through a journal has put its files back before this is reached.

    >>> print(machine_refused(PermissionError(13, "Permission denied", "/d/.patchkeeper-port")))
    /d/.patchkeeper-port: Permission denied; patchkeeper stopped here
      hint: let this user write it and its directory, or work on a copy
    >>> machine_refused(ValueError("a bug")) is None
    True
    """
    if not isinstance(exc, OSError) or exc.errno not in REFUSALS:
        return None
    return PatchkeeperError(
        f"{exc.strerror or os.strerror(exc.errno)}; patchkeeper stopped here",
        path=exc.filename,
        hint=REFUSALS[exc.errno],
    )


def _spell_tables(error: PatchkeeperError) -> None:
    """Write the configuration tables ``error``'s message and hint name as the file in use
    spells them (``[git]`` in a ``patchkeeper.toml``, not ``[tool.patchkeeper.git]``)."""
    if not CONFIG_SOURCE:
        return
    from patchkeeper.config import spell_error

    spell_error(error, CONFIG_SOURCE[0])


def entry() -> None:
    """The console script.

    Before the interpreter exits, every object still alive is moved out of the cyclic
    collector's reach (:func:`gc.freeze`): the process ends next, and the collections the
    interpreter runs while shutting down would walk each of them again for nothing (tens
    of milliseconds after an ``apply`` of 1,000 patches). Exit handlers and the flushing of
    standard output still run as usual.
    """
    code = main()
    import gc

    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    entry()
