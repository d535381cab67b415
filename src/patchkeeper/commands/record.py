"""``record -- CMD...``: run a validation command and keep its result as evidence.

The runtime audit workflow (docs/glossary.md), step 6: "Record the interpreter, commands, results,
temporary workarounds, and untested scope". The command runs in the current directory with its
standard output and error captured together; its exit code, wall time and the last ``output-tail``
lines (``[tool.patchkeeper.report]``; of each, its last :data:`LINE_BYTES` bytes) go to
``.patchkeeper/evidence/recorded.json``, replacing an earlier run of the same command in the
same directory. The report lists it under *Validation*; a failed one also under the untested
scope.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections import deque
from typing import IO

import click

from patchkeeper.commands.cli import Settings, emit
from patchkeeper.commands.options import json_option
from patchkeeper.config import Config
from patchkeeper.errors import ConfigError
from patchkeeper.record import evidence_store as store
from patchkeeper.record.results import RecordResult
from patchkeeper.record.settings import report_settings

#: The exit code recorded for a command that cannot be started, as a shell gives it: 127
#: when there is no such program, 126 when it is there and cannot be run (not executable, a
#: directory, not a program the system can start).
NOT_STARTED = 127
NOT_RUNNABLE = 126

#: The bytes of one output line kept, from its end: a line longer than this (a progress bar
#: that never ends its line, a dump without newlines) says how many it lost.
LINE_BYTES = 1000

#: The bytes read from the command's output at a time.
BLOCK = 1 << 16


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
        process = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    except OSError as exc:
        missing = isinstance(exc, FileNotFoundError)
        code = NOT_STARTED if missing else NOT_RUNNABLE
        lines = [f"cannot run {argv[0]}: {exc.strerror}"]
    else:
        with process:
            try:
                assert process.stdout is not None  # stdout=PIPE
                lines = output_tail(process.stdout, tail_lines)
                code = process.wait()
            except BaseException:  # Ctrl-C: the command does not outlive the record
                process.kill()
                process.wait()
                raise
    duration = round(time.monotonic() - start, 1)
    command = store.RecordedCommand(
        argv=tuple(argv),
        cwd=os.getcwd(),
        exit_code=code,
        duration=duration,
        tail=tuple(lines),
        recorded=store.now_utc(),
    )
    path = store.save_recorded(config, command)
    return RecordResult(command, str(path))


def output_tail(stream: IO[bytes], count: int, width: int = LINE_BYTES) -> list[str]:
    """The last ``count`` lines of ``stream``, read to its end a block at a time, so that
    neither a long run's whole output nor one endless line (a progress bar redrawn with
    ``\\r``, a blob without newlines) is ever held: a line keeps its last ``width`` bytes,
    after what its last carriage return leaves on a terminal, and says how many it lost.

    >>> import io
    >>> output_tail(io.BytesIO(b"one\\r\\ntwo\\n" + b"10%\\r100%\\n" + b"x" * 12), 3, width=5)
    ['two', '100%', '[7 bytes cut] xxxxx']
    """
    lines: deque[str] = deque(maxlen=max(count, 0))
    current, total = b"", 0

    def finish(line: bytes, seen: int) -> None:
        body = line.rstrip(b"\r")
        # what a terminal shows last: after the last carriage return, where the lost bytes
        # before it would not show either
        shown = body.rsplit(b"\r", 1)[-1]
        cut = 0 if b"\r" in body else seen - len(line)
        text = shown.decode("utf-8", "replace")
        lines.append(f"[{cut} bytes cut] {text}" if cut > 0 else text)

    for block in iter(lambda: stream.read(BLOCK), b""):
        *ended, rest = block.split(b"\n")
        for part in ended:
            finish((current + part)[-width:], total + len(part))
            current, total = b"", 0
        current, total = (current + rest)[-width:], total + len(rest)
    if total:
        finish(current, total)
    return list(lines)


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
