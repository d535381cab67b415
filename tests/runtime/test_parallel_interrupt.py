"""Ctrl-C while a runtime step runs on every core: at whatever moment it comes (before the
worker pool starts, while its workers are forked or start, during the work, while the pool
stops), the parent alone takes it, stops the pool and ends as a Ctrl-C ends a command
(exit 130), with no worker's traceback printed (a worker that took the Ctrl-C printed one
above "patchkeeper: interrupted") and no process left in the command's process group.

The moments are reached without timing: the product's test hook
(``PATCHKEEPER_INTERRUPT_POOL``, :data:`patchkeeper.runtime.parallel.INTERRUPT_ENV`) sends
SIGINT to the process group, as a terminal does, at the named stage. Two cases send it from
the test at a fixed delay instead, at moments no stage names; they assert the same. One
case delays the pool's dispatcher thread, as a loaded machine can.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tinyplug import HEADER, write_plugin

from patchkeeper.runtime import parallel

#: A step on the worker pool: ``map_records`` (its own pool), ``shared`` (``map_records``
#: inside ``shared_workers``, whose pool stops at the end of the block) or ``map_forked``.
#: The first chunk of jobs comes back at once; the others keep the workers busy for a
#: minute, unless SLOW is 0 (the "stop" stage: the pool stops after the work).
SCRIPT = """
import os, signal, sys, time
from patchkeeper.runtime import parallel

# as in a terminal's foreground job: a test run started in the background by a shell
# without job control inherits SIGINT ignored, and Python then installs no handler
signal.signal(signal.SIGINT, signal.default_int_handler)
SLOW = float(os.environ["SLOW"])

def job(n):
    time.sleep(0 if n < 4 else SLOW)
    return n

try:
    print("started", flush=True)
    if sys.argv[1] == "map_records":
        list(parallel.map_records(job, list(range(12)), minimum=1))
    elif sys.argv[1] == "shared":
        with parallel.shared_workers():
            list(parallel.map_records(job, list(range(12)), minimum=1))
    else:
        list(parallel.map_forked(job, list(range(12)), minimum=1))
    print("not interrupted", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
"""

STAGES = ["start", "forked", "worker", "result", "stop"]
#: Far more than the slowest run on a loaded machine takes (about 1 s); a hang ends here.
TIMEOUT = 60


def _group(pgid: int) -> list[str]:
    """The processes of process group ``pgid`` (``"pid state command"``), read in /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # the process ended while we looked
            continue
        command, _, rest = stat.partition(" (")[2].rpartition(") ")
        state, _ppid, group = rest.split()[:3]
        if int(group) == pgid:
            found.append(f"{entry.name} {state} {command}")
    return found


def _as_foreground() -> None:
    """In the child before it runs the command: SIGINT's action the default one, as in a
    terminal's foreground job. A test run started in the background by a shell without job
    control (``pytest ... &`` in a script, a CI step) has SIGINT ignored, the child would
    inherit that, and Python then installs no handler: the command ignored the Ctrl-C and
    ran to its end (exit 0), whatever the machine's load."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupted(
    command: list[str], env: dict[str, str], cwd: Path | None = None, delay: float | None = None
) -> tuple[str, str, int, list[str]]:
    """Run ``command`` as a terminal's foreground job (its own process group); with
    ``delay``, send SIGINT to the group that long after it printed its first line. The
    command starts with SIGINT's default action (:func:`_as_foreground`).
    Returns its stdout, stderr and exit code, and what was left in its group when it
    ended. Whatever happens, nothing of the group outlives the call."""
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
        cwd=cwd,
        start_new_session=True,  # its own process group, as a terminal's foreground job
        preexec_fn=_as_foreground,
    )
    try:
        first = ""
        if delay is not None:
            assert process.stdout is not None
            first = process.stdout.readline()
            time.sleep(delay)
            os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C sends: the whole group
        out, err = process.communicate(timeout=TIMEOUT)
        return first + out, err, process.returncode, _group(process.pid)
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.kill()
        process.wait()


@pytest.mark.parametrize(
    ("step", "stage"),
    [
        *[("map_records", stage) for stage in STAGES],
        *[("map_forked", stage) for stage in STAGES],
        ("shared", "result"),
        ("shared", "stop"),
    ],
)
def test_ctrl_c_at_each_stage_of_the_pool_ends_the_step(step: str, stage: str) -> None:
    env = {parallel.INTERRUPT_ENV: stage, "SLOW": "0" if stage == "stop" else "60"}
    found = _interrupted([sys.executable, "-c", SCRIPT, step], env)
    assert found == ("started\ninterrupted\n", "", 130, [])


LATE_DISPATCHER = """
import signal, sys, time
from patchkeeper.runtime import parallel, workers

signal.signal(signal.SIGINT, signal.default_int_handler)
dispatch = workers.Pool._dispatch

def dispatch_late(pool):
    time.sleep(1.0)  # the dispatcher thread not run yet, as on a loaded machine
    dispatch(pool)

workers.Pool._dispatch = dispatch_late
try:
    list(parallel.map_records(abs, list(range(12)), minimum=1))
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
"""


def test_ctrl_c_before_the_dispatcher_thread_has_run() -> None:
    """A Ctrl-C as the pool starts kills its workers before the thread that talks to them
    has run: the pipes stay open until that thread has ended (it finds the pool stopped),
    nothing is printed, no worker is left."""
    found = _interrupted(
        [sys.executable, "-c", LATE_DISPATCHER], {parallel.INTERRUPT_ENV: "forked"}
    )
    assert found == ("interrupted\n", "", 130, [])


@pytest.mark.parametrize("delay", [0.0, 0.5])
def test_ctrl_c_from_the_terminal_at_a_delay_ends_the_step(delay: float) -> None:
    """At once (the pool is starting or its workers are) and later (they are in a job):
    moments no stage names, reached by the clock; any moment gives the same end."""
    env = {parallel.INTERRUPT_ENV: "", "SLOW": "60"}
    found = _interrupted([sys.executable, "-c", SCRIPT, "map_records"], env, delay=delay)
    assert found == ("started\ninterrupted\n", "", 130, [])


@pytest.mark.parametrize("stage", ["worker", "result"])
def test_ctrl_c_during_a_cold_inventory_ends_the_command(tmp_path: Path, stage: str) -> None:
    """The command itself: a cold ``runtime inventory`` of 60 patch modules parses them on
    the worker pool; a Ctrl-C as the workers start, or while they parse, ends it with
    the documented exit of an interrupt."""
    modules = {
        f"plug/patch/p_{n:02d}.py": HEADER
        + f"import tinyup.engine as engine\n\n\ndef step(logits):\n    return {n}\n\n\n"
        + "engine.step = step\n"
        for n in range(60)
    }
    plugin = write_plugin(tmp_path, modules)
    env = {parallel.INTERRUPT_ENV: stage, "PATCHKEEPER_CACHE": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "patchkeeper", "runtime", "inventory"]
    found = _interrupted(command, env, cwd=plugin)
    # click ends the line the ^C was typed on, then the command says why it stopped
    assert found == ("", "\npatchkeeper: interrupted\n", 130, [])
