"""``record -- CMD...``: run a validation command and keep its result as evidence.

The runtime audit workflow (docs/glossary.md), step 6: "Record the interpreter, commands, results,
temporary workarounds, and untested scope". The command runs in the current directory with its
standard output and error captured together; its exit code, wall time and the last ``output-tail``
lines (``[tool.patchkeeper.report]``) go to ``.patchkeeper/evidence/recorded.json``, replacing an
earlier run of the same command in the same directory. The report lists it under
*Validation*; a failed one also under the untested scope.
"""

from __future__ import annotations

import os
import subprocess
import time

import click

from patchkeeper.commands.cli import Settings, emit
from patchkeeper.commands.options import json_option
from patchkeeper.config import Config
from patchkeeper.errors import ConfigError
from patchkeeper.record import evidence_store as store
from patchkeeper.record.results import RecordResult
from patchkeeper.record.settings import report_settings

#: The exit code recorded for a command that cannot be started (the shell's convention).
NOT_STARTED = 127


def run(config: Config, argv: list[str]) -> RecordResult:
    """Run ``argv`` and record it.

    Raises:
        ConfigError: ``argv`` is empty.
        EvidenceError: the store cannot be written.
    """
    if not argv:
        raise ConfigError(
            "no command to record", hint="write the command after --: patchkeeper record -- pytest"
        )
    tail_lines = report_settings(config).output_tail
    store.load_recorded(config)  # an unreadable record stops here, before a long run is lost
    start = time.monotonic()
    try:
        done = subprocess.run(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        code, output = done.returncode, done.stdout.decode("utf-8", "replace")
    except OSError as exc:
        code, output = NOT_STARTED, f"cannot run {argv[0]}: {exc.strerror}\n"
    duration = round(time.monotonic() - start, 1)
    lines = output.splitlines()
    command = store.RecordedCommand(
        argv=tuple(argv),
        cwd=os.getcwd(),
        exit_code=code,
        duration=duration,
        tail=tuple(lines[-tail_lines:] if tail_lines > 0 else ()),
        recorded=store.now_utc(),
    )
    path = store.save_recorded(config, command)
    return RecordResult(command, str(path))


@click.command(
    "record", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False}
)
@json_option
@click.argument("command_line", nargs=-1, type=click.UNPROCESSED, required=True)
@click.pass_obj
def command(settings: Settings, command_line: tuple[str, ...], as_json: bool) -> None:
    """Run a validation command (after --) and keep its exit code, time and output tail."""
    refuse_an_option(command_line)
    emit(run(settings.config(), list(command_line)), as_json)


def refuse_an_option(command_line: tuple[str, ...]) -> None:
    """Refuse a command line that begins with an option: an option ``record`` does not have
    (``--markdown``, a mistyped ``--jsno``), which would else be run as the command, fail to
    start and be kept as a failed validation run in the record. No program is named with a
    leading ``-``.

    Raises:
        click.UsageError: naming the option, ``record``'s own and where the command goes.
    """
    if command_line and command_line[0].startswith("-") and command_line[0] != "-":
        raise click.UsageError(
            f"No such option: {command_line[0]} (record takes --json, -C and --config; the "
            "command to record goes after '--': patchkeeper record -- python -m pytest)"
        )
