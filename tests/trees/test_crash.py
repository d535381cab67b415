"""A process killed at any moment of ``apply`` or ``unapply`` leaves no torn target.

After a kill the target is as before or fully done, or holds a
journal that the next patchkeeper command rolls back before doing anything else. Two kinds of
kill, both with ``SIGKILL`` on a real ``python -m patchkeeper`` process:

- at journaled steps chosen at random (the core's test hook ``PATCHKEEPER_FAULT_AT=N`` kills
  the process at its N-th step inside ``transaction.commit``), during apply and unapply;
- at random moments in real time, on a bigger generated series, once the journal's manifest
  appears (so the kill lands inside the commit) and at random delays from process start.

After every kill the next command (``status``) must recover, and the whole tree (every file's
bytes and mode, every directory) must equal the pristine tree or the fully patched one.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from generated import GeneratedSeries, make_series

#: Seed of the kill points; change it to explore other points.
SEED = 20261130


def snapshot(root: Path) -> dict[str, tuple[bytes, int] | None]:
    """Every file (bytes, permission bits) and directory (``None``) under ``root``."""
    out: dict[str, tuple[bytes, int] | None] = {}
    for path in sorted(root.rglob("*")):
        key = path.relative_to(root).as_posix()
        if path.is_dir() and not path.is_symlink():
            out[key + "/"] = None
        else:
            out[key] = (path.read_bytes(), path.stat().st_mode & 0o7777)
    return out


def patchkeeper(args: list[str], cwd: Path, fault: int | None = None) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env.pop("PATCHKEEPER_FAULT_AT", None)
    if fault is not None:
        env["PATCHKEEPER_FAULT_AT"] = str(fault)
    return subprocess.Popen(
        [sys.executable, "-m", "patchkeeper", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def run_to_end(args: list[str], cwd: Path, fault: int | None = None) -> int:
    proc = patchkeeper(args, cwd, fault)
    out, err = proc.communicate(timeout=60)
    if proc.returncode not in (0, -signal.SIGKILL):
        raise AssertionError(f"patchkeeper {args} failed ({proc.returncode}): {out!r} {err!r}")
    return proc.returncode


class Scenario:
    """A generated series, its pristine and fully applied snapshots, and fresh targets."""

    def __init__(self, root: Path, **sizes: int) -> None:
        self.root = root
        self.count = 0
        self.series: GeneratedSeries = make_series(root, **sizes)
        self.pristine = snapshot(self.series.upstream)
        self.applied_tree = root / "reference"
        shutil.copytree(self.series.upstream, self.applied_tree)
        assert run_to_end(self.args("apply", self.applied_tree), self.series.downstream) == 0
        self.applied = snapshot(self.applied_tree)
        assert self.applied != self.pristine

    def fresh(self, *, applied: bool) -> Path:
        """A new copy of the pristine or the fully applied tree."""
        self.count += 1
        dest = self.root / f"target-{self.count}"
        shutil.copytree(self.applied_tree if applied else self.series.upstream, dest)
        return dest

    def args(self, command: str, target: Path) -> list[str]:
        extra = ["--pristine", str(self.series.upstream)] if command == "unapply" else []
        return [command, "--target", str(target), *extra]


def steps(scenario: Scenario, command: str) -> int:
    """How many journaled steps ``command`` takes: the largest N at which the hook kills."""

    def kills(n: int) -> bool:
        target = scenario.fresh(applied=command == "unapply")
        code = run_to_end(scenario.args(command, target), scenario.series.downstream, n)
        shutil.rmtree(target)
        return code == -signal.SIGKILL

    low, high = 1, 16
    while kills(high):
        low, high = high, high * 2
    while high - low > 1:  # kills(low) and not kills(high)
        middle = (low + high) // 2
        low, high = (middle, high) if kills(middle) else (low, middle)
    return low


def recover_and_check(cli, scenario: Scenario, target: Path, command: str) -> str:
    """Run ``status`` (which recovers), check the tree is whole; return which state it is in."""
    journal = target / ".patchkeeper" / "journal"
    had_journal = journal.exists()
    run = cli(
        "status",
        "--target",
        str(target),
        "--pristine",
        str(scenario.series.upstream),
        cwd=scenario.series.downstream,
    )
    assert run.out, run.err
    first = run.out.splitlines()[0]
    if had_journal:
        assert first == f"recovered: rolled back an interrupted run from {journal}"
    else:
        assert first.startswith("status: ")
    after = snapshot(target)
    assert not (target / ".patchkeeper").exists()
    if after == scenario.pristine:
        assert run.code == 1
        return "pristine"
    assert after == scenario.applied, f"torn target after a kill during {command}"
    assert run.code == 0
    return "applied"


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return Scenario(tmp_path_factory.mktemp("crash"), files=24, patches=10)


@pytest.mark.slow
@pytest.mark.parametrize(("command", "points"), [("apply", 30), ("unapply", 25)])
def test_kill_at_random_journaled_steps(cli, small: Scenario, command: str, points: int) -> None:
    total = steps(small, command)
    assert total > points  # enough distinct steps to choose from
    rng = random.Random(f"{SEED}-{command}")
    chosen = sorted({1, total, *rng.sample(range(2, total), points - 2)})
    assert len(chosen) == points
    seen = {"pristine": 0, "applied": 0}
    for n in chosen:
        target = small.fresh(applied=command == "unapply")
        code = run_to_end(small.args(command, target), small.series.downstream, fault=n)
        assert code == -signal.SIGKILL, f"step {n} of {total} did not kill"
        seen[recover_and_check(cli, small, target, command)] += 1
        # After recovery the command runs to the end.
        again = cli(*small.args(command, target), cwd=small.series.downstream)
        assert again.code == 0
        assert snapshot(target) == (small.applied if command == "apply" else small.pristine)
        shutil.rmtree(target)
    # A kill before the commit point rolls back; the last step comes after it.
    assert seen["pristine"] >= 1 and seen["applied"] >= 1
    assert sum(seen.values()) == points


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return Scenario(tmp_path_factory.mktemp("crash-big"), files=300, patches=100, lines=60)


def _wait_for(manifest: Path, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while not manifest.exists() and proc.poll() is None and time.monotonic() < deadline:
        pass


def commit_window(scenario: Scenario, command: str) -> float:
    """Seconds from the manifest's appearance to the end of an uninterrupted ``command``."""
    target = scenario.fresh(applied=command == "unapply")
    manifest = target / ".patchkeeper" / "journal" / "manifest.json"
    proc = patchkeeper(scenario.args(command, target), scenario.series.downstream)
    _wait_for(manifest, proc)
    seen = time.monotonic()
    proc.communicate(timeout=60)
    window = time.monotonic() - seen
    assert proc.returncode == 0
    shutil.rmtree(target)
    return window


def _kill_inside_commit(scenario: Scenario, command: str, delay: float) -> tuple[bool, Path]:
    """Start ``command``; ``delay`` seconds after the journal's manifest appears, SIGKILL it.

    Returns whether the kill landed (the process was still running) and the target."""
    target = scenario.fresh(applied=command == "unapply")
    manifest = target / ".patchkeeper" / "journal" / "manifest.json"
    proc = patchkeeper(scenario.args(command, target), scenario.series.downstream)
    _wait_for(manifest, proc)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    return proc.returncode == -signal.SIGKILL, target


@pytest.mark.slow
def test_kill_at_random_moments(cli, big: Scenario) -> None:
    rng = random.Random(f"{SEED}-timed")
    states = []
    for command in ("apply", "unapply"):
        window = commit_window(big, command)
        landed = attempts = 0
        while landed < 3:
            attempts += 1
            assert attempts <= 20, f"no kill landed inside a {window:.3f} s commit"
            # A random moment inside the commit; if the run was already over, try again
            # (the window measured includes the interpreter's exit, so it is generous).
            killed, target = _kill_inside_commit(big, command, rng.uniform(0, window * 0.6))
            landed += killed
            states.append(recover_and_check(cli, big, target, command))
            shutil.rmtree(target)
    for _ in range(3):  # at a random delay from process start, wherever that lands
        target = big.fresh(applied=False)
        proc = patchkeeper(big.args("apply", target), big.series.downstream)
        time.sleep(rng.uniform(0.05, 0.8))
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        states.append(recover_and_check(cli, big, target, "apply"))
        shutil.rmtree(target)
    assert set(states) <= {"pristine", "applied"}


def test_an_empty_state_directory_left_by_a_kill_is_removed(cli, example) -> None:
    """A kill between creating ``.patchkeeper/`` and its journal leaves it empty."""
    target = example.target()
    (target / ".patchkeeper").mkdir()
    run = cli("status", "--target", str(target), cwd=example.downstream)
    assert run.out.splitlines()[0].startswith("status: ")
    assert not (target / ".patchkeeper").exists()


@pytest.mark.slow
@pytest.mark.parametrize("step", [1, 3, 4, 5, 6, 12])
def test_ctrl_c_during_apply_puts_everything_back(example, step: int) -> None:
    """Ctrl-C (KeyboardInterrupt) at a journaled step: the files are restored before exit."""
    import os
    import subprocess
    import sys

    from helpers import tree_bytes

    target = example.target()
    before = tree_bytes(target)
    env = {**os.environ, "PATCHKEEPER_INTERRUPT_AT": str(step)}
    done = subprocess.run(
        [sys.executable, "-m", "patchkeeper", "apply", "--target", str(target)],
        cwd=example.downstream,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 130
    assert done.stderr.startswith("patchkeeper: error: interrupted ")
    assert "nothing was changed" in done.stderr
    assert tree_bytes(target) == before
    assert not (target / ".patchkeeper").exists()


#: A series that changes executable bits: a mode-only change, a mode change with a hunk, and a
#: new executable file.
_MODE_SERIES = (
    b"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
    b"diff --git a/tool.py b/tool.py\nold mode 100755\nnew mode 100644\n--- a/tool.py\n"
    b"+++ b/tool.py\n@@ -1,2 +1,2 @@\n-a = 1\n+a = 2\n b = 1\n"
    b"diff --git a/new.sh b/new.sh\nnew file mode 100755\nindex 0000000..1b1b1b1\n"
    b"--- /dev/null\n+++ b/new.sh\n@@ -0,0 +1 @@\n+echo new\n"
)


@pytest.mark.slow
@pytest.mark.parametrize("command", ["apply", "unapply"])
def test_kill_at_every_step_of_a_mode_change(cli, tmp_path: Path, command: str) -> None:
    """Mode changes are journaled like bytes: a kill at any step of ``apply`` or ``unapply``
    leaves, after recovery, every file with the bytes and the permission bits of the pristine
    tree or of the fully patched one."""
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    (upstream / "run.sh").write_bytes(b"echo run\n")
    (upstream / "tool.py").write_bytes(b"a = 1\nb = 1\n")
    (upstream / "run.sh").chmod(0o644)
    (upstream / "tool.py").chmod(0o755)
    down = tmp_path / "down"
    (down / "patches").mkdir(parents=True)
    (down / "patchkeeper.toml").write_text('series = "patches/series"\nstrip = 1\n')
    (down / "patches" / "modes.patch").write_bytes(_MODE_SERIES)
    (down / "patches" / "series").write_text("modes.patch\n")
    applied_tree = tmp_path / "applied"
    shutil.copytree(upstream, applied_tree)
    assert run_to_end(["apply", "--target", str(applied_tree)], down) == 0
    pristine, applied = snapshot(upstream), snapshot(applied_tree)
    assert applied["run.sh"] == (b"echo run\n", 0o755)
    assert applied["tool.py"] == (b"a = 2\nb = 1\n", 0o644)
    assert applied["new.sh"] == (b"echo new\n", 0o755)
    start, end = (upstream, applied) if command == "apply" else (applied_tree, pristine)
    killed = 0
    for step in range(1, 40):
        target = tmp_path / f"target-{step}"
        shutil.copytree(start, target)
        args = [command, "--target", str(target), "--pristine", str(upstream)]
        if command == "apply":
            args = args[:3]
        code = run_to_end(args, down, fault=step)
        if code == 0:
            assert snapshot(target) == end
            break
        killed += 1
        status = cli("status", "--target", str(target), cwd=down)
        assert status.code in (0, 1), status.out
        assert snapshot(target) in (pristine, applied), f"torn target at step {step}"
        shutil.rmtree(target)
    assert killed >= 3  # the journal's steps: manifest, each file, the commit point
