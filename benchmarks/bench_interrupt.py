"""Benchmark: Ctrl-C on the runtime worker pool under load. Runs the test module
``tests/runtime/test_parallel_interrupt.py`` (a Ctrl-C at each stage of the pool's life,
at two delays, and during a cold ``runtime inventory``) many times in a row while busy
loops keep every usable core busy, and counts the runs that hung or failed (the goal: none).

    python benchmarks/bench_interrupt.py [--runs 200] [--busy N] [--run-timeout 600]

Each run is a fresh ``python -m pytest <module> -q -p no:cacheprovider`` in its own process
group. *hang*: the run did not end within ``--run-timeout`` seconds (its group is then
killed), or a test's interrupted process did not end within the test's own bound
(``TimeoutExpired`` in its output); *failure*: any other run that did not pass. The output
of every such run is kept under ``--keep`` (default: a temporary directory, printed).

The busy loops (``--busy``, default one per usable core) are ``python -c "while True:
pass"`` processes started before the first run and killed after the last, also when the
benchmark is interrupted (Ctrl-C or SIGTERM: the figures of the runs done are printed).
Prints a line per run and, at the end, the runs, hangs, failures, tests passed, the wall
time, and the command line that produced them.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULE = "tests/runtime/test_parallel_interrupt.py"


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def run_once(timeout: float) -> tuple[str, str, float]:
    """One run of the module: (``"pass"``, ``"hang"`` or ``"failure"``, its output, its
    wall time in seconds).

    Each run has a temporary directory of its own for pytest's (``--basetemp``): in the
    shared one (``/tmp/pytest-of-USER``) pytest deletes, as it exits, the old directories
    other runs left there, and under load a tree of someone else's took longer than
    ``--run-timeout``, so a run whose tests had all passed was counted a hang."""
    with tempfile.TemporaryDirectory(prefix="bench-interrupt-") as base:
        return _run_module(timeout, Path(base))


def _run_module(timeout: float, base: Path) -> tuple[str, str, float]:
    command = [sys.executable, "-m", "pytest", MODULE, "-q", "-p", "no:cacheprovider"]
    command += ["--basetemp", str(base / "pytest")]
    started = time.monotonic()
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, _ = process.communicate()
        return "hang", out, time.monotonic() - started
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # nothing of the run outlives it
        except ProcessLookupError:
            pass
    elapsed = time.monotonic() - started
    if process.returncode == 0:
        return "pass", out, elapsed
    return ("hang" if "TimeoutExpired" in out else "failure"), out, elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--busy", type=int, default=usable_cores(), help="busy loops")
    parser.add_argument("--run-timeout", type=float, default=600.0)
    parser.add_argument("--keep", type=Path, default=None, help="where failed runs' output go")
    args = parser.parse_args()
    # Ctrl-C or SIGTERM print the figures so far (a shell without job control starts a
    # background job with SIGINT ignored: the handler is set here in any case)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    keep = args.keep or Path(tempfile.mkdtemp(prefix="bench_interrupt-"))
    keep.mkdir(parents=True, exist_ok=True)
    command = "python benchmarks/bench_interrupt.py " + shlex.join(sys.argv[1:])
    busy = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
        for _ in range(args.busy)
    ]
    counts = {"pass": 0, "hang": 0, "failure": 0}
    passed = total = runs = 0
    started = time.monotonic()
    try:
        for number in range(1, args.runs + 1):
            outcome, out, elapsed = run_once(args.run_timeout)
            runs = number
            counts[outcome] += 1
            tests = dict((kind, int(n)) for n, kind in re.findall(r"(\d+) (passed|failed)", out))
            passed += tests.get("passed", 0)
            total += tests.get("passed", 0) + tests.get("failed", 0)
            if outcome != "pass":
                (keep / f"run-{number:03d}-{outcome}.txt").write_text(out)
            print(
                f"run {number}/{args.runs}: {outcome} ({tests.get('passed', 0)} passed, "
                f"{tests.get('failed', 0)} failed, {elapsed:.1f} s)",
                flush=True,
            )
    except KeyboardInterrupt:
        print("benchmark interrupted", flush=True)
    finally:
        for process in busy:
            process.kill()
            process.wait()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"runs: {runs}; hangs: {counts['hang']}; failures: {counts['failure']}")
    print(f"tests: {passed} passed of {total}")
    print(f"wall time: {time.monotonic() - started:.0f} s; load at the end: {load:.1f}")
    print(f"busy loops: {args.busy}; output of failed runs: {keep}")
    print(f"command: {command.strip()}")
    return 0 if runs == args.runs and counts["pass"] == runs else 1


if __name__ == "__main__":
    sys.exit(main())
