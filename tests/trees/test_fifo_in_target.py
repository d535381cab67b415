"""A target tree holding a FIFO (a named pipe a tool left in the tree, ``minihttp/pipe.py``):
``verify`` and ``status`` compare every file the series does not touch with the pristine
tree, and opening a FIFO blocks until a writer comes, so they hung for ever. The FIFO is
now drift like any file pristine lacks, said to be no regular file, and never opened.

Run in a subprocess with a time limit, so that a hang fails the test instead of the run.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers import Example


@pytest.mark.parametrize("command", ["verify", "status"])
def test_a_fifo_in_the_target_is_drift_and_is_not_read(example: Example, command: str) -> None:
    target = example.target()
    os.mkfifo(target / "minihttp" / "pipe.py")
    done = subprocess.run(
        [sys.executable, "-m", "patchkeeper", command, "--target", str(target)],
        cwd=example.downstream,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stderr) == (1, "")
    assert (
        "  changed outside the series: pipe.py exists but pristine has no such file "
        "(it is no regular file, or cannot be read)\n"
    ) in done.stdout
    assert done.stdout.endswith("not ok: 0 of 7 patches applied, 1 file drifted\n")
