"""A plugin directory holding a FIFO named like a module (``plug/patch/p_pipe.py``, a
named pipe a tool left beside the code): ``runtime inventory`` and ``runtime audit`` read
every ``*.py`` file, and opening a FIFO blocks until a writer comes, so they hung for ever
(and a worker process was left behind when they were killed). A FIFO is no module: it is
not listed, and the commands answer as they do without it.

Run in a subprocess with a time limit, so that a hang fails the test instead of the run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tinyplug import HEADER, copy_releases, versions, write_plugin

STEP = HEADER + (
    "import tinyup.engine as engine\n\n\ndef step(logits):\n    return None\n\n\n"
    "engine.step = step\n"
)


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "patchkeeper", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("command", ["inventory", "audit"])
def test_a_fifo_named_like_a_module_is_no_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    upstream = copy_releases(tmp_path, monkeypatch)
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP})
    extra = versions(upstream) if command == "audit" else []
    without = _run(root, "runtime", command, *extra)
    os.mkfifo(root / "plug" / "patch" / "p_pipe.py")
    os.mkfifo(root / "plug" / "pipe.py")
    with_fifos = _run(root, "runtime", command, *extra)
    assert (with_fifos.returncode, with_fifos.stdout) == (
        without.returncode,
        without.stdout,
    )
    assert with_fifos.stderr == without.stderr == ""
