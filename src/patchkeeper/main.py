"""The command line: assembles the group of commands, runs one, prints errors.

Nothing else prints or exits. Exit codes (docs/architecture.md): 0 all good, 1 findings (not
applied, conflict, lint failure, stale ledger), 2 usage or input error, 3 a bug in patchkeeper (the
traceback goes to a log file), 130 interrupted. Each command, its options and its ``run`` live in
its own module (``patchkeeper/commands/NAME.py``, as ``command``); the group imports that module
only when the command is asked for (:data:`COMMANDS`), so ``--help`` and short commands start
fast.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from patchkeeper import __version__
from patchkeeper.commands.cli import (
    ARGV,
    CONFIG_SOURCE,
    CONTEXT_SETTINGS,
    JSON_COMMAND,
    LazyGroup,
    Settings,
    command_name,
)
from patchkeeper.commands.options import (
    config_option,
    directory_option,
    enter_directory,
)
from patchkeeper.constants import OPTION_JSON
from patchkeeper.errors import PatchkeeperError
from patchkeeper.system.option_values import refuse_blank_argument, refuses_blank
from patchkeeper.system.refusals import machine_refused

#: Each command's name -> the module that defines it as ``command``, in the order of the
#: manual (``--help`` lists them sorted).
COMMANDS = {
    "apply": "patchkeeper.commands.apply",
    "unapply": "patchkeeper.commands.unapply",
    "verify": "patchkeeper.commands.verify",
    "status": "patchkeeper.commands.status",
    "audit": "patchkeeper.commands.audit",
    "init": "patchkeeper.commands.init",
    "ledger": "patchkeeper.commands.ledger",
    "retire": "patchkeeper.commands.retire",
    "lint": "patchkeeper.commands.lint",
    "export": "patchkeeper.commands.export",
    "import": "patchkeeper.commands.import_",
    "check-branch": "patchkeeper.commands.check_branch",
    "port": "patchkeeper.commands.port",
    "upgrade": "patchkeeper.commands.upgrade",
    "runtime": "patchkeeper.commands.runtime",
    "decide": "patchkeeper.commands.decide",
    "report": "patchkeeper.commands.report",
    "record": "patchkeeper.commands.record",
    "mcp": "patchkeeper.commands.mcp",
}


def prepare(command: click.Command) -> None:
    """Make a command loaded by the group ready: ``-C`` and ``--config`` may follow it
    (pre-commit appends a hook's ``args`` after the command, ``patchkeeper ledger --check -C
    sub``; they apply in command-line order, as the group's options do, hidden from the
    commands' help: the group's help names them), and its ``--help`` names the configuration
    tables as the file in use spells them (:func:`_spell_help`). A sub-group prepares its
    own commands as it loads them. A positional argument that names a patch, a file or a
    commit refuses a blank value, naming the argument, as an option refuses one
    (:func:`patchkeeper.system.option_values.refuse_blank_argument`)."""
    command.params += [directory_option(late=True), config_option(late=True)]
    for param in command.params:
        if isinstance(param, click.Argument) and refuses_blank(param) and not param.callback:
            param.callback = refuse_blank_argument
    if isinstance(command, LazyGroup):
        command.prepare = prepare
    _spell_help(command)


@click.group(
    cls=LazyGroup,
    lazy=COMMANDS,
    prepare=prepare,
    context_settings=CONTEXT_SETTINGS,
    params=[config_option(), directory_option()],
)
@click.version_option(version=__version__, prog_name="patchkeeper")
@click.pass_context
def cli(ctx: click.Context, config_file: Path | None, directory: tuple[Path, ...]) -> None:
    """Keep a downstream patch series (or runtime patches) true against upstream releases."""
    # like git -C: every relative path on the command line is read from DIR too, and a
    # second -C from the first
    (param,) = (p for p in ctx.command.params if p.name == "directory")
    for each in directory:
        enter_directory(ctx, each, param)
    from patchkeeper.progress import set_warning_sink

    set_warning_sink(_warn)
    ctx.obj = Settings(config_file, None)  # load_config resolves it, after any -C
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


def _json_error(command: str | None, error: BaseException, exit_code: int) -> None:
    """Print ``error`` as the JSON envelope on standard output when ``--json`` was asked
    (the message also goes to standard error as text)."""
    from patchkeeper.system.whole_output import STARTED

    if command is None or STARTED:  # part of the result is out: a second document would
        return  # make standard output no JSON at all
    from patchkeeper.jsonable import json_text
    from patchkeeper.render.envelope import error_envelope

    click.echo(json_text(error_envelope(command, error, exit_code), latin1=True))


#: The exit code of a command ended by Ctrl-C (SIGINT), as a shell reports it (128 + 2).
INTERRUPTED = 130


def _interrupted() -> int:
    """Say that Ctrl-C ended the command, on standard error and, under ``--json``, as the
    envelope on standard output (exit code 130): a script reading the output gets JSON
    whatever ended the run, as it does for an error."""
    click.echo("patchkeeper: interrupted", err=True)
    _json_error(_json_command(), PatchkeeperError("interrupted"), INTERRUPTED)
    return INTERRUPTED


def _json_command(error: BaseException | None = None) -> str | None:
    """The command to print an error of as JSON, or ``None`` (no ``--json``): the one whose
    ``--json`` was parsed, else, for a usage error met before, the command it names when
    ``--json`` is on the command line."""
    if JSON_COMMAND:
        return JSON_COMMAND[0]
    if OPTION_JSON not in ARGV:
        return None
    ctx = getattr(error, "ctx", None)
    if isinstance(ctx, click.Context) and command_name(ctx):
        return command_name(ctx)
    # no command's context yet (an option missing its value: 'port --json --to'): the
    # command the words of the command line name, as the envelope of that command
    return " ".join(cli.named(click.Context(cli, info_name="patchkeeper"), ARGV)[1])


def _log_bug() -> Path:
    from patchkeeper.errors import log_bug

    return log_bug()


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

        texts = [(p, p.help) for p in command.params if isinstance(p, click.Option) and p.help]
        project = _help_upstream(source) if any("PROJECT" in t for _, t in texts) else None
        try:  # spelt for this rendering only: the command objects live on (tests, main())
            for param, text in texts:
                text = text.replace("PROJECT", project) if project else text
                param.help = spelt_for(text, source)
            return plain(ctx)
        finally:
            for param, text in texts:
                param.help = text

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


def main(argv: list[str] | None = None) -> int:
    """Run the command line and return the exit code (for tests: ``main(["apply"])``)."""
    import gc

    # A short-lived command allocates many small objects (a hunk line each) and frees them
    # all at exit: the young-generation collector would only walk them again and again.
    gc.set_threshold(100_000, 50, 50)
    ARGV[:] = list(sys.argv[1:] if argv is None else argv)
    JSON_COMMAND.clear()
    CONFIG_SOURCE.clear()
    from patchkeeper.system.whole_output import STARTED

    STARTED.clear()
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
        return _interrupted()
    except click.ClickException as exc:
        exc.show()
        _json_error(_json_command(exc), exc, 2)
        return 2
    except KeyboardInterrupt:
        return _interrupted()
    except Exception as exc:  # a bug: keep the traceback, tell the user where
        from patchkeeper.system.filenames import encoding_refused

        refused = machine_refused(exc) or encoding_refused(exc)
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
