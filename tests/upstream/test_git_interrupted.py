"""A Ctrl-C while patchkeeper waits for git: git runs in a process group of its own (so
that a step that must happen whole can let it finish), and gets the Ctrl-C from
patchkeeper instead, as it would have from the terminal: it then removes its lock files
and ends, where a kill would leave ``index.lock`` behind and stop the next git command."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

#: A ``git status`` that says it has started (the file ``$SHIM_DIR/waiting``), and on SIGINT
#: writes ``$SHIM_DIR/interrupted`` and ends as git does on a Ctrl-C (exit 130); a kill
#: writes nothing.
SHIM = """#!/bin/sh
case " $* " in
  *" status "*) ;;
  *) exit 1;;  # git config --get-all safe.directory: none set
esac
trap ': > "$SHIM_DIR/interrupted"; exit 130' INT
: > "$SHIM_DIR/waiting"
while :; do sleep 0.05; done
"""

#: Calls git through patchkeeper with SIGINT handled as a terminal's Ctrl-C is (a process
#: started without job control inherits SIGINT ignored), and says how the call ended.
CALLER = """
import signal, sys
from pathlib import Path
signal.signal(signal.SIGINT, signal.default_int_handler)
from patchkeeper.upstream import gitops
try:
    gitops.call(["status"], Path("."))
except KeyboardInterrupt:
    print("interrupted")
    sys.exit(130)
"""


def test_a_ctrl_c_while_git_runs_is_passed_on_to_git(tmp_path: Path) -> None:
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "git").write_text(SHIM)
    (shim / "git").chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{shim}{os.pathsep}{os.environ['PATH']}",
        "SHIM_DIR": str(shim),
    }
    process = subprocess.Popen(
        [sys.executable, "-c", CALLER],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
        start_new_session=True,  # its own group, as a terminal's foreground job is
    )
    while not (shim / "waiting").exists():
        assert process.poll() is None, process.communicate()
        time.sleep(0.01)  # polling: the outcome does not depend on it
    os.killpg(process.pid, signal.SIGINT)  # the terminal's Ctrl-C: git is not in the group
    out, err = process.communicate(timeout=300)  # a bound, not a wait: it ends sooner
    assert (process.returncode, out, err) == (130, "interrupted\n", "")
    assert (shim / "interrupted").exists()
