"""Ctrl-C during a runtime step that runs on every core: the parent stops the pool and says
it was interrupted; no worker prints its own traceback (a new user's Ctrl-C during
``runtime audit`` printed "Process ForkPoolWorker-1:" above "patchkeeper: interrupted")."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

SCRIPT = """
import sys, time
from patchkeeper.runtime import parallel

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


def test_ctrl_c_reaches_only_the_parent() -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "started\n"
    time.sleep(1.0)  # the workers are in the job
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C sends: the whole group
    out, err = process.communicate(timeout=30)
    assert (out, err, process.returncode) == ("interrupted\n", "", 0)
