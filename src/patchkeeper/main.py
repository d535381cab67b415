"""The command line: parses arguments, dispatches to ``patchkeeper.commands``, prints results.

Nothing else prints or exits. Exit codes (DESIGN.md): 0 all good, 1 findings (not applied,
conflict, lint failure, stale ledger), 2 usage or input error, 3 a bug in patchkeeper (the
traceback goes to a log file), 130 interrupted. Command modules are imported only when their
command runs, so ``--help`` and short commands start fast.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from patchkeeper.errors import PatchkeeperError

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class Settings:
    """What the group-level options say: where the configuration is."""

    def __init__(self, config_file: Path | None, directory: Path | None) -> None:
        self.config_file = config_file
        self.directory = directory

    def config(self) -> Any:
        """Load the downstream configuration (:class:`patchkeeper.config.Config`)."""
        from patchkeeper.config import load_config

        return load_config(self.config_file, start=self.directory)


def emit(
    result: Any, as_json: bool, markdown: Path | None = None, record_as: str | None = None
) -> None:
    """Print ``result`` (JSON or text), write Markdown if asked, and exit with its code.

    ``record_as``: save the result as evidence of that command (``"audit"``, ``"runtime
    audit"``) in the downstream's evidence store, for the audit record (issue 6).
    """
    from patchkeeper import render

    _load_renderers()
    if markdown is not None:
        markdown.write_text(render.render_markdown(result), encoding="utf-8")
    text = render.render_json(result) if as_json else render.render_text(result)
    if text:
        click.echo(text.rstrip("\n"))
    if record_as is not None:
        from patchkeeper import evidence_store

        settings = click.get_current_context().find_object(Settings)
        assert settings is not None
        evidence_store.save(settings.config(), record_as, result, ARGV)
    sys.exit(getattr(result, "exit_code", 0))


#: The arguments of the running command line (without the program name), for the evidence.
ARGV: list[str] = []


#: Modules that register renderers for result types (``patchkeeper.render``).
RENDERER_MODULES = (
    "patchkeeper.render.terminal",
    "patchkeeper.render.markdown",
    "patchkeeper.render.audit",
    "patchkeeper.render.report",
)


def _load_renderers() -> None:
    import importlib

    for module in RENDERER_MODULES:
        importlib.import_module(module)


def json_option(function: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")(
        function
    )


def target_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """The options that say which upstream tree a command works on."""
    function = click.option(
        "--python",
        "python",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Use the configured upstream installed in this interpreter's environment.",
    )(function)
    function = click.option(
        "--target",
        "target",
        type=click.Path(file_okay=False, path_type=Path),
        help="An upstream tree (an unpacked sdist, a checkout, a site-packages directory).",
    )(function)
    return function


@click.group(context_settings=CONTEXT_SETTINGS)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="patchkeeper.toml or pyproject.toml to read (default: search upwards).",
)
@click.option(
    "-C",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    help="Run as if started in this downstream directory.",
)
@click.version_option(package_name="patchkeeper")
@click.pass_context
def cli(ctx: click.Context, config_file: Path | None, directory: Path | None) -> None:
    """Keep a downstream patch series (or runtime patches) true against upstream releases."""
    ctx.obj = Settings(config_file, directory.resolve() if directory else None)


# --------------------------------------------------------------------------- the series


@cli.command()
@target_options
@json_option
@click.pass_obj
def apply(settings: Settings, target: Path | None, python: Path | None, as_json: bool) -> None:
    """Apply the whole series to the target, atomically, at fuzz 0."""
    from patchkeeper.commands import apply as command

    emit(command.run(settings.config(), target=target, python=python), as_json)


@cli.command()
@target_options
@click.option("--pristine", help="The pristine upstream: a directory or a requirement.")
@json_option
@click.pass_obj
def unapply(
    settings: Settings,
    target: Path | None,
    python: Path | None,
    pristine: str | None,
    as_json: bool,
) -> None:
    """Reverse the whole series, last patch first, back to pristine."""
    from patchkeeper.commands import apply as command

    emit(
        command.run_unapply(settings.config(), target=target, python=python, pristine=pristine),
        as_json,
    )


@cli.command()
@target_options
@click.option(
    "--pristine",
    help="The pristine upstream: a directory or a requirement "
    "(default for a directory target: the configured pin).",
)
@json_option
@click.pass_obj
def verify(
    settings: Settings,
    target: Path | None,
    python: Path | None,
    pristine: str | None,
    as_json: bool,
) -> None:
    """Prove which patches are applied and that nothing else changed (exit 1 otherwise)."""
    from patchkeeper.commands import verify as command

    emit(
        command.run(
            settings.config(), target=target, python=python, pristine=pristine, detailed=False
        ),
        as_json,
        record_as="verify",
    )


@cli.command()
@target_options
@click.option("--pristine", help="The pristine upstream: a directory or a requirement.")
@json_option
@click.pass_obj
def status(
    settings: Settings,
    target: Path | None,
    python: Path | None,
    pristine: str | None,
    as_json: bool,
) -> None:
    """Show per patch and per file what is applied, partly applied or drifted."""
    from patchkeeper.commands import verify as command

    emit(
        command.run(
            settings.config(), target=target, python=python, pristine=pristine, detailed=True
        ),
        as_json,
    )


@cli.command()
@click.option(
    "--to",
    "to",
    required=True,
    help="The new upstream: a requirement (urllib3==1.26.20) or a directory.",
)
@click.option(
    "--markdown",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the report as Markdown, for a pull request.",
)
@json_option
@click.pass_obj
def audit(settings: Settings, to: str, markdown: Path | None, as_json: bool) -> None:
    """Apply the series to a new upstream release in memory and judge every patch."""
    from patchkeeper.commands import audit as command

    emit(command.run(settings.config(), to=to), as_json, markdown, record_as="audit")


# --------------------------------------------------------------------------- headers, ledger,
# lint, export/import (issue "patchkeeper 2")


# --------------------------------------------------------------------------- port (issue
# "patchkeeper 3")


# --------------------------------------------------------------------------- runtime patches
# (issue "patchkeeper 4")


# --------------------------------------------------------------------------- the audit record
# (issue "patchkeeper 5")


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
    type=click.Path(dir_okay=False, path_type=Path),
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


def _log_bug() -> Path:
    import tempfile
    import traceback

    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "patchkeeper"
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError:
        base = Path(tempfile.gettempdir())
    log = base / "crash.log"
    with log.open("a", encoding="utf-8") as handle:
        handle.write(traceback.format_exc())
        handle.write("\n")
    return log


def main(argv: list[str] | None = None) -> int:
    """Run the command line and return the exit code (for tests: ``main(["apply"])``)."""
    ARGV[:] = list(sys.argv[1:] if argv is None else argv)
    try:
        cli.main(args=argv, prog_name="patchkeeper", standalone_mode=False)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    except PatchkeeperError as exc:
        click.echo(f"patchkeeper: error: {exc}", err=True)
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("patchkeeper: interrupted", err=True)
        return 130
    except click.ClickException as exc:
        exc.show()
        return 2
    except KeyboardInterrupt:
        click.echo("patchkeeper: interrupted", err=True)
        return 130
    except Exception as exc:  # a bug: keep the traceback, tell the user where
        log = _log_bug()
        click.echo(
            f"patchkeeper: internal error ({type(exc).__name__}: {exc}); "
            f"the traceback is in {log}; please report it",
            err=True,
        )
        return 3
    return 0


def entry() -> None:
    """The console script."""
    sys.exit(main())


if __name__ == "__main__":
    entry()
