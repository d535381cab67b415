"""A Ctrl-C under ``--json`` still prints the JSON envelope on standard output, with exit
code 130 (docs/json.md): a script or a bot that reads the output as JSON gets JSON whatever
ended the run, as it does for an error, not an empty output it cannot parse."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from helpers import Example

#: The validation command ``record`` runs: it says it started, then waits to be interrupted.
WAITING_CHILD = "import pathlib, sys, time; pathlib.Path(sys.argv[1]).touch(); time.sleep(60)"

#: Starts ``patchkeeper`` with SIGINT handled as a terminal's Ctrl-C is (a process started
#: from a shell without job control inherits SIGINT ignored).
ENTRY = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from patchkeeper.main import entry; sys.argv[0] = 'patchkeeper'; entry()"
)


def interrupted_record(downstream: Path, started: Path, *options: str) -> tuple[int, str, str]:
    """Run ``patchkeeper record OPTIONS -- CHILD`` in ``downstream``, send it SIGINT once
    the child has started, and return its exit code, standard output and error."""
    child = [sys.executable, "-c", WAITING_CHILD, str(started)]
    process = subprocess.Popen(
        [sys.executable, "-c", ENTRY, "record", *options, "--", *child],
        cwd=downstream,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started.exists(), "the recorded command never started"
    os.kill(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=30)
    return process.returncode, out, err


def test_an_interrupted_json_run_prints_the_envelope(example: Example, tmp_path: Path) -> None:
    code, out, err = interrupted_record(example.downstream, tmp_path / "started", "--json")
    assert (code, err) == (130, "\npatchkeeper: interrupted\n")
    envelope = json.loads(out)
    del envelope["patchkeeper_version"]
    assert envelope == {
        "command": "record",
        "exit_code": 130,
        "error": {"message": "interrupted", "file": None, "line": None, "hint": None},
    }


def test_an_interrupted_text_run_prints_nothing_on_standard_output(
    example: Example, tmp_path: Path
) -> None:
    assert interrupted_record(example.downstream, tmp_path / "started") == (
        130,
        "",
        "\npatchkeeper: interrupted\n",
    )
