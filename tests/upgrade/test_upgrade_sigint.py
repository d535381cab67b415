"""A real SIGINT at each boundary of ``upgrade``'s step loop, sent to a real process.

The process waits at a named point (:data:`patchkeeper.upgrade.run.PAUSE_ENV`: it says
``paused at POINT`` on standard error, then reads a line of standard input), the test sends
SIGINT there, so the signal comes exactly at that point, with no timing involved.

- Between two steps (the loop's boundary before ``decide``): the Ctrl-C was outside the
  step's ``try`` and printed only "interrupted", with the upgrade in progress; it says to
  continue or abort.
- Between a step's commit and the record of it in the state: the commit was made and the
  state said the step still ran, so ``--continue`` ran it again and recorded it without its
  commit. The two happen whole, then the Ctrl-C ends the run, after the step.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from upgrade_support import git, make_checkout, subjects

from helpers import Example
from patchkeeper.upgrade.run import PAUSE_ENV

#: Starts ``patchkeeper`` with SIGINT handled as a terminal's Ctrl-C is (a process started
#: from a shell without job control inherits SIGINT ignored).
ENTRY = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from patchkeeper.main import entry; sys.argv[0] = 'patchkeeper'; entry()"
)
TO = "../upstream/minihttp-1.1"
HINT = (
    "  hint: run 'patchkeeper upgrade --continue' (the upgrade stopped {where} step), or "
    "'patchkeeper upgrade --abort' to put the downstream back"
)


def _interrupted_at(down: Path, point: str) -> tuple[int, list[str]]:
    """Run ``upgrade --to TO --branch up`` until it waits at ``point``, send it SIGINT,
    then let it go on; its exit code and standard error's lines."""
    process = subprocess.Popen(
        [sys.executable, "-c", ENTRY, "upgrade", "--to", TO, "--branch", "up"],
        cwd=down,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, PAUSE_ENV: point},
        text=True,
    )
    assert process.stderr is not None and process.stdin is not None
    lines = []
    for line in process.stderr:
        lines.append(line.rstrip("\n"))
        if line == f"paused at {point}\n":
            break
    os.kill(process.pid, signal.SIGINT)
    _, err = process.communicate("\n", timeout=300)  # a bound, not a wait: it ends sooner
    return process.returncode, lines + err.splitlines()


def test_a_sigint_between_two_steps_says_how_to_go_on(example: Example) -> None:
    down = example.downstream
    base = make_checkout(down)
    code, err = _interrupted_at(down, "before decide")
    assert code == 130
    assert err[-2:] == ["patchkeeper: error: interrupted", HINT.format(where="at its decide")]
    assert subjects(down, base) == ["upgrade: audit the series against 1.1"]
    state = json.loads((down / ".git" / "patchkeeper-upgrade" / "state.json").read_text())
    assert sorted(state["steps"]) == ["audit", "runtime audit"]


def test_a_sigint_between_a_commit_and_its_record_lets_both_happen(example: Example) -> None:
    down = example.downstream
    base = make_checkout(down)
    code, err = _interrupted_at(down, "recording decide")
    assert code == 130
    assert err[-2:] == ["patchkeeper: error: interrupted", HINT.format(where="after its decide")]
    decided = "upgrade: suggest decisions from the evidence"
    assert subjects(down, base) == ["upgrade: audit the series against 1.1", decided]
    work = down / ".git" / "patchkeeper-upgrade"
    state = json.loads((work / "state.json").read_text())
    head = git(down, "rev-parse", "HEAD")
    assert (state["steps"]["decide"]["status"], state["steps"]["decide"]["commit"]) == (
        "done",
        head,
    )
    assert not (work / "running.json").exists()
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "upgrade", "--continue", "--json"],
        cwd=down,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr  # the port stops at the example's conflict
    steps = {s["name"]: s for s in json.loads(done.stdout)["steps"]}
    assert (steps["decide"]["commit"], steps["decide"]["subject"]) == (head, decided)
    assert subjects(down, base)[:3] == [
        "upgrade: audit the series against 1.1",
        decided,
        "upgrade: port the series to 1.1 (stopped at a conflict)",
    ]


#: A ``git`` before the real one on ``PATH``: the first ``git add`` of the decisions file
#: says so (the file ``$SHIM_DIR/waiting``) and waits for ``$SHIM_DIR/go`` before running the
#: real git, so that a Ctrl-C comes while git runs, with no timing involved.
SHIM = """#!/bin/sh
case " $* " in
  *" add "*patchkeeper-decisions.toml*)
    if [ ! -e "$SHIM_DIR/waiting" ]; then
      : > "$SHIM_DIR/waiting"
      while [ ! -e "$SHIM_DIR/go" ]; do sleep 0.01; done
    fi;;
esac
exec "$REAL_GIT" "$@"
"""


def test_a_ctrl_c_to_the_process_group_while_git_runs_ends_after_the_step(
    example: Example, tmp_path: Path
) -> None:
    """A Ctrl-C at the terminal goes to the whole foreground process group, git included.
    A git killed by it while an upgrade step committed made the step fail as "'git add -A
    -f -- patchkeeper-decisions.toml' failed with exit code -2" (exit 2, "check that the
    path is a git checkout"); git runs in a group of its own now, finishes the step's
    commit, and the Ctrl-C ends the run after the step (exit 130)."""
    down = example.downstream
    base = make_checkout(down)
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "git").write_text(SHIM)
    (shim / "git").chmod(0o755)
    real = subprocess.run(["which", "git"], capture_output=True, text=True, check=True)
    env = {
        **os.environ,
        "PATH": f"{shim}{os.pathsep}{os.environ['PATH']}",
        "REAL_GIT": real.stdout.strip(),
        "SHIM_DIR": str(shim),
    }
    process = subprocess.Popen(
        [sys.executable, "-c", ENTRY, "upgrade", "--to", TO, "--branch", "up"],
        cwd=down,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
        start_new_session=True,  # its own group, as a terminal's foreground job is
    )
    try:
        while not (shim / "waiting").exists():
            assert process.poll() is None, process.communicate()[1]
            time.sleep(0.01)  # polling: the outcome does not depend on it
        os.killpg(process.pid, signal.SIGINT)
    finally:
        (shim / "go").touch()
    _, err = process.communicate(timeout=300)  # a bound, not a wait: it ends sooner
    assert (process.returncode, err.splitlines()[-2:]) == (
        130,
        ["patchkeeper: error: interrupted", HINT.format(where="after its decide")],
    )
    assert subjects(down, base) == [
        "upgrade: audit the series against 1.1",
        "upgrade: suggest decisions from the evidence",
    ]
