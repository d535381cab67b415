"""Ctrl-C during a runtime step that runs on every core: the parent stops the pool and says
it was interrupted; no worker prints its own traceback (a new user's Ctrl-C during
``runtime audit`` printed "Process ForkPoolWorker-1:" above "patchkeeper: interrupted")."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

SCRIPT = """
import signal, sys, time
from patchkeeper.runtime import parallel

# as in a terminal's foreground job: a test run started in the background by a shell
# without job control inherits SIGINT ignored, and Python then installs no handler
signal.signal(signal.SIGINT, signal.default_int_handler)

def slow(job):
    time.sleep(60)
    return job

pool = parallel._pool(2)
assert pool is not None
try:
    with pool:
        print("started", flush=True)
        list(pool.imap(parallel._encoded, [(slow, n) for n in range(4)]))
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


@pytest.mark.parametrize(
    "delay",
    [
        # at once: the workers may not have run their initializer yet (before the fix 3
        # runs in 10 printed a worker's traceback or hung in Pool.terminate())
        *[0.0] * 5,
        1.0,  # the workers are in the job
    ],
)
def test_ctrl_c_reaches_only_the_parent(delay: float) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "started\n"
    time.sleep(delay)
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C sends: the whole group
    out, err = process.communicate(timeout=30)
    assert (out, err, process.returncode) == ("interrupted\n", "", 0)
