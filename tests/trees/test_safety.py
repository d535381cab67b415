"""Safety: no write outside the target, a lock, read-only targets.

- A patch path that escapes the target (``..``, absolute, through a symlink that points
  outside) is refused before anything is written, inside or outside the target.
- Two processes on one target cannot interleave: the second waits ``lock-timeout`` seconds,
  then fails with a clear message; two real ``apply`` processes started together end with
  one applying and the other finding the series applied.
- A read-only target is a clear error with nothing changed. Tests run as root, which ignores
  permission bits, so read-only is made real: the command runs as an unprivileged user
  (``setpriv``) on a root-owned copy, or the tree is made immutable (``chattr +i``).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from generated import make_series
from helpers import Example, tree_bytes

NOBODY = 65534
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


def everything(root: Path) -> dict[str, bytes | str]:
    """Every file's bytes and every symlink's destination under ``root`` (the whole world the
    test can see: target, downstream and the directory outside the target)."""
    out: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        key = path.relative_to(root).as_posix()
        if "/.patchkeeper/evidence" in f"/{key}" or key.endswith("/.patchkeeper"):
            continue  # the downstream's evidence store: the record of what ran, not the target
        if path.is_symlink():
            out[key] = "-> " + os.readlink(path)
        elif path.is_file():
            out[key] = path.read_bytes()
        else:
            out[key] = "dir"
    return out


def add_patch(example: Example, name: str, text: str, option: str = "") -> Path:
    """Append ``name`` to the end of the example's series (so six good patches come first)."""
    patches = example.downstream / "patches"
    path = patches / name
    path.write_text(text)
    with (patches / "series").open("a") as handle:
        handle.write(f"{name} {option}".rstrip() + "\n")
    return path


def creating(path: str) -> str:
    return f"Subject: create {path}\n---\n--- /dev/null\n+++ {path}\n@@ -0,0 +1 @@\n+owned = True\n"


def refused(cli, example: Example, target: Path, message: str) -> None:
    """``apply`` and ``unapply`` both exit 2 with ``message`` and change nothing anywhere."""
    before = everything(example.root)
    for command in ("apply", "unapply", "status"):
        args = [command, "--target", str(target), "--pristine", str(example.old)]
        if command == "apply":
            args = args[:3]
        run = cli(*args, cwd=example.downstream)
        assert (run.code, run.out) == (2, "")
        assert run.err.splitlines()[0] == f"patchkeeper: error: {message}"
        assert everything(example.root) == before


def test_dotdot_path_is_refused(cli, example: Example) -> None:
    target = example.target()
    (example.root / "outside").mkdir()
    add_patch(example, "escape.patch", creating("b/../../outside/owned.py"))
    refused(
        cli,
        example,
        target,
        f"{example.downstream}/patches/escape.patch:3: the patch path '../../outside/owned.py' "
        f"escapes the target {target.resolve()}/minihttp; nothing was written",
    )
    assert not (example.root / "outside" / "owned.py").exists()


def test_absolute_path_is_refused_at_p0(cli, example: Example) -> None:
    target = example.target()
    outside = example.root / "outside"
    outside.mkdir()
    absolute = f"{outside}/owned.py"
    add_patch(example, "absolute.patch", creating(absolute), "-p0")
    refused(
        cli,
        example,
        target,
        f"{example.downstream}/patches/absolute.patch:3: the patch path '{absolute}' escapes "
        f"the target {target.resolve()}/minihttp; nothing was written",
    )


def test_absolute_name_at_p1_lands_inside_as_gnu_patch_puts_it(cli, example: Example) -> None:
    """``-p1`` strips the leading slash of ``/etc/owned.py`` (GNU's fetchname): the file is
    ``etc/owned.py`` inside the target, where GNU patch puts it too."""
    target = example.target()
    reference = example.target("gnu")
    patch = add_patch(example, "absolute.patch", creating("/etc/owned.py"))
    series = (example.downstream / "patches" / "series").read_text().splitlines()
    for name in [line.split()[0] for line in series if line and not line.startswith("#")]:
        subprocess.run(
            ["patch", "-p1", "--fuzz", "0", "--batch", "-s", "-d", str(reference / "minihttp")],
            input=(patch.parent / name).read_bytes(),
            check=True,
        )
    run = cli("apply", "--target", str(target), cwd=example.downstream)
    assert run.code == 0
    assert (target / "minihttp" / "etc" / "owned.py").read_bytes() == b"owned = True\n"
    assert tree_bytes(target) == tree_bytes(reference)


def test_symlinked_directory_pointing_outside_is_refused(cli, example: Example) -> None:
    target = example.target()
    outside = example.root / "outside"
    outside.mkdir()
    (target / "minihttp" / "plugins").symlink_to(outside)
    add_patch(example, "through-link.patch", creating("b/plugins/owned.py"))
    refused(
        cli,
        example,
        target,
        f"{example.downstream}/patches/through-link.patch:3: the patch path 'plugins/owned.py' "
        f"leads outside the target through a symlink at {target.resolve()}/minihttp/plugins/"
        "owned.py; nothing was written",
    )
    assert list(outside.iterdir()) == []


def test_symlinked_file_pointing_outside_is_refused(cli, example: Example) -> None:
    """retry.py is a symlink to a file outside: patching it would write outside."""
    target = example.target()
    outside = example.root / "outside"
    outside.mkdir()
    retry = target / "minihttp" / "retry.py"
    shutil.move(retry, outside / "retry.py")
    retry.symlink_to(outside / "retry.py")
    refused(
        cli,
        example,
        target,
        f"{example.downstream}/patches/retry-backoff-cap.patch:13: the patch path 'retry.py' "
        f"leads outside the target through a symlink at {retry}; nothing was written",
    )
    # the message says nothing was written; the hint does not say it a second time
    run = cli("apply", "--target", str(target), cwd=example.downstream)
    assert run.err.splitlines()[1] == "  hint: remove the symlink or fix the patch"
    assert (outside / "retry.py").read_bytes() == (
        example.old / "minihttp" / "retry.py"
    ).read_bytes()


def test_a_planted_journal_cannot_write_outside(cli, example: Example) -> None:
    """A tree that ships ``.patchkeeper/journal/manifest.json`` naming a file outside: the
    roll-back every command does first must not restore it there."""
    target = example.target()
    outside = example.root / "outside"
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("mine\n")
    journal = target / ".patchkeeper" / "journal"
    journal.mkdir(parents=True)
    (journal / "0.orig").write_text("planted\n")
    (journal / "manifest.json").write_text(
        json.dumps(
            {
                "format": 1,
                "entries": [
                    {"path": str(victim), "existed": True, "backup": "0.orig", "mode": 420}
                ],
                "created_dirs": [],
            }
        )
    )
    before = everything(example.root)
    pristine = ["--pristine", str(example.old)]
    for args in (["status", *pristine], ["apply"], ["unapply", *pristine]):
        run = cli(*args, "--target", str(target), cwd=example.downstream)
        assert (run.code, run.out) == (2, "")
        assert run.err.splitlines() == [
            f"patchkeeper: error: {journal.resolve()}/manifest.json: the journal lists {victim}, "
            "outside the target; nothing was rolled back",
            "  hint: this journal was not written by patchkeeper for this target: inspect and "
            f"remove {journal.resolve()}",
        ]
    assert everything(example.root) == before


def test_a_symlinked_state_directory_is_refused(cli, example: Example) -> None:
    """``.patchkeeper`` pointing outside would put the journal (copies of the target's files)
    outside the target."""
    target = example.target()
    outside = example.root / "outside"
    outside.mkdir()
    (target / ".patchkeeper").symlink_to(outside)
    before = everything(example.root)
    run = cli("apply", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines() == [
        f"patchkeeper: error: {target.resolve()}/.patchkeeper/journal: patchkeeper's journal "
        "directory leads outside the target (through a symlink)",
        f"  hint: remove {target.resolve()}/.patchkeeper if it is a symlink; nothing was written",
    ]
    assert everything(example.root) == before


# --------------------------------------------------------------------------- the lock


HOLDER = """
import sys
from pathlib import Path
from patchkeeper.trees.transaction import locked

with locked(Path(sys.argv[1]), 5.0, "holder"):
    print("locked", flush=True)
    sys.stdin.read()
"""


@pytest.fixture
def held_lock(example: Example) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    """Another process holds the lock of a fresh target until its stdin closes."""
    target = example.target()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(target.resolve())],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline() == "locked\n"
    yield target, holder
    if holder.poll() is None:
        holder.kill()
        holder.wait()


#: ``python -m patchkeeper ARGS...`` that writes ``refused`` to the file descriptor in
#: ``argv[1]`` each time ``flock`` finds the lock held: the event the waiting test waits for.
WAITER = """
import fcntl, os, runpy, sys

report, real_flock = int(sys.argv[1]), fcntl.flock

def flock(fd, operation):
    try:
        real_flock(fd, operation)
    except BlockingIOError:
        os.write(report, b"refused\\n")
        raise

fcntl.flock = flock
sys.argv = ["patchkeeper", *sys.argv[2:]]
runpy.run_module("patchkeeper", run_name="__main__", alter_sys=True)
"""


def read_reports(reports: BinaryIO, count: int, deadline: float) -> list[bytes]:
    """The first ``count`` lines written to ``reports``, waiting at most ``deadline`` seconds
    in all; fewer when the writer closed its end first or the time ran out."""
    lines: list[bytes] = []
    buffer = b""
    end = time.monotonic() + deadline
    while len(lines) < count:
        ready, _, _ = select.select([reports], [], [], max(0.0, end - time.monotonic()))
        chunk = reports.read(4096) if ready else b""
        if not chunk:
            break
        buffer += chunk
        *done, buffer = buffer.split(b"\n")
        lines += [line + b"\n" for line in done]
    return lines[:count]


def test_second_process_fails_after_the_bounded_wait(
    cli, example: Example, held_lock: tuple[Path, subprocess.Popen[str]]
) -> None:
    target, holder = held_lock
    config = example.downstream / "patchkeeper.toml"
    config.write_text(config.read_text() + "lock-timeout = 0.5\n")
    before = tree_bytes(target)
    for args in (["apply"], ["status", "--pristine", str(example.old)]):
        started = time.monotonic()
        run = cli(*args, "--target", str(target), cwd=example.downstream)
        waited = time.monotonic() - started
        assert (run.code, run.out) == (2, "")
        root = target.resolve()
        assert run.err.splitlines() == [
            f"patchkeeper: error: {root}: another patchkeeper process is working on "
            f"directory {root}; waited 0.5 s",
            "  hint: wait for it to finish, or raise 'lock-timeout' in the configuration",
        ]
        assert waited >= 0.5
    assert tree_bytes(target) == before

    assert holder.stdin is not None
    holder.stdin.close()
    assert holder.wait(timeout=10) == 0
    run = cli("apply", "--target", str(target), cwd=example.downstream)
    assert run.code == 0


def test_waiting_process_proceeds_when_the_lock_is_released(
    example: Example, held_lock: tuple[Path, subprocess.Popen[str]]
) -> None:
    target, holder = held_lock
    report, report_to = os.pipe()
    waiter = subprocess.Popen(
        [sys.executable, "-c", WAITER, str(report_to), "apply", "--target", str(target)],
        cwd=example.downstream,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        pass_fds=(report_to,),
    )
    os.close(report_to)
    with os.fdopen(report, "rb", buffering=0) as reports:
        # Refused twice: it tried the lock, and tried again instead of giving up.
        assert read_reports(reports, 2, deadline=30.0) == [b"refused\n", b"refused\n"]
        assert waiter.poll() is None  # still waiting for the lock (lock-timeout is 10 s)
        assert tree_bytes(target) == tree_bytes(example.old)
    assert holder.stdin is not None
    holder.stdin.close()
    out, err = waiter.communicate(timeout=30)
    assert (waiter.returncode, err) == (0, "")
    assert out == f"applied 7 patches on directory {target.resolve()}: 4 files changed\n"


@pytest.mark.slow  # a stress run: 200 files, 60 patches, applied three times
def test_two_real_applies_do_not_interleave(tmp_path: Path) -> None:
    """Started together on one target: one applies, the other waits, then finds the series
    applied. (Without the lock the second one trips over the first one's journal.)"""
    generated = make_series(tmp_path, files=200, patches=60, lines=50)
    reference = tmp_path / "reference"
    shutil.copytree(generated.upstream, reference)
    subprocess.run(
        [sys.executable, "-m", "patchkeeper", "apply", "--target", str(reference)],
        cwd=generated.downstream,
        check=True,
        capture_output=True,
    )
    pristine, applied = tree_bytes(generated.upstream), tree_bytes(reference)
    changed = [k for k in pristine.keys() | applied.keys() if pristine.get(k) != applied.get(k)]
    target = tmp_path / "target"
    shutil.copytree(generated.upstream, target)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "patchkeeper", "apply", "--target", str(target)],
            cwd=generated.downstream,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = sorted((*p.communicate(timeout=60), p.returncode) for p in procs)
    root = target.resolve()
    assert results == sorted(
        [
            (f"applied 60 patches on directory {root}: {len(changed)} files changed\n", "", 0),
            (
                f"apply: the series is already applied on directory {root}\nnothing was changed\n",
                "",
                0,
            ),
        ]
    )
    assert tree_bytes(target) == applied


# --------------------------------------------------------------------------- read-only


def _nobody_can_run_patchkeeper(cwd: Path) -> bool:
    probe = subprocess.run(
        [*AS_NOBODY, sys.executable, "-c", "import patchkeeper.main"],
        cwd=cwd,
        capture_output=True,
    )
    return probe.returncode == 0


def _immutable(paths: list[Path], on: bool) -> bool:
    flag = "+i" if on else "-i"
    done = subprocess.run(["chattr", "-R", flag, *map(str, paths)], capture_output=True)
    return done.returncode == 0


@pytest.fixture
def world(tmp_path: Path) -> Iterator[Example]:
    """A copy of the examples in a directory every user can read (pytest's tmp is 0700)."""
    root = Path(tempfile.mkdtemp(prefix="patchkeeper-readonly-"))
    os.chmod(root, 0o755)
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples", root / "examples")
    yield Example(root / "examples")
    _immutable([root], on=False)
    for path in [root, *root.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o200)
    shutil.rmtree(root)


#: Runs patchkeeper with arguments in the downstream: ``(exit code, stdout, stderr)``.
Runner = Callable[..., tuple[int, str, str]]


def read_only(
    cli: Callable[..., Any], world: Example, trees: list[Path], mechanism: str
) -> tuple[str, Runner]:
    """Make ``trees`` read-only for real by ``mechanism`` where it works (else the other;
    plain permission bits when not root) and return the mechanism used and a runner of
    patchkeeper in the downstream that meets it: ``run(*args) -> (code, out, err)``."""
    is_root = os.geteuid() == 0
    used = "permission bits (not root)"
    if is_root:
        setpriv_works = _nobody_can_run_patchkeeper(world.downstream)
        if mechanism == "unprivileged user" and setpriv_works:
            used = mechanism
        elif _immutable(trees, on=True):
            used = "immutable files"
        elif setpriv_works:
            used = "unprivileged user"
        else:
            pytest.fail("no real read-only mechanism here: neither setpriv nor chattr works")
    else:
        for tree in trees:
            for path in [tree, *tree.rglob("*")]:
                path.chmod(path.stat().st_mode & ~0o222)
    if used != mechanism:
        warnings.warn(f"read-only by {used} instead of {mechanism}", stacklevel=2)
    use_setpriv = used == "unprivileged user"

    def run(*args: str) -> tuple[int, str, str]:
        if not use_setpriv:
            result = cli(*args, cwd=world.downstream)
            return result.code, result.out, result.err
        env = {k: v for k, v in os.environ.items() if k != "PATCHKEEPER_FAULT_AT"}
        env["HOME"] = str(world.root)
        done = subprocess.run(
            [*AS_NOBODY, sys.executable, "-m", "patchkeeper", *args],
            cwd=world.downstream,
            env=env,
            capture_output=True,
            text=True,
        )
        return done.returncode, done.stdout, done.stderr

    return used, run


@pytest.mark.parametrize("mechanism", ["unprivileged user", "immutable files"])
def test_read_only_target_is_a_clear_error(cli, world: Example, mechanism: str) -> None:
    """Both mechanisms run where they can; where one cannot, the other is used, and where
    neither can (not root, so permission bits hold), chmod makes the tree read-only."""
    target = world.target()
    applied = world.target("applied")
    assert cli("apply", "--target", str(applied), cwd=world.downstream).code == 0
    _, run = read_only(cli, world, [target, applied], mechanism)

    before = everything(world.root)
    code, out, err = run("apply", "--target", str(target))
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"patchkeeper: error: {target.resolve()}/minihttp/client.py: the target is read-only "
        "here; nothing was changed",
        "  hint: run as a user who can write the target, or apply to a copy with --target",
    ]
    code, out, err = run("unapply", "--target", str(applied), "--pristine", str(world.old))
    assert (code, out) == (2, "")
    assert err.splitlines()[0] == (
        f"patchkeeper: error: {applied.resolve()}/minihttp/client.py: the target is read-only "
        "here; nothing was changed"
    )
    assert everything(world.root) == before
    # Reading works: verify of the applied read-only tree is fine.
    code, out, err = run("verify", "--target", str(applied), "--pristine", str(world.old))
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == "ok: 7 of 7 patches applied, 0 files drifted"
    assert everything(world.root) == before


@pytest.mark.parametrize("mechanism", ["unprivileged user", "immutable files"])
def test_read_only_downstream_is_a_clear_error(cli, world: Example, mechanism: str) -> None:
    """A downstream the user cannot write (a checkout owned by another user, an immutable
    tree): commands that write its files stop with its name and what to do, never a
    traceback, and leave every file as it was."""
    # a release with the pin's code under another version: every patch ports cleanly, so
    # the port stops where it writes the new series directory
    pin = world.root / "upstream" / "minihttp-1.0"
    copy = shutil.copytree(pin, world.root / "upstream" / "minihttp-1.0.1")
    for name in ("pyproject.toml", "minihttp/__init__.py"):
        text = (copy / name).read_text()
        (copy / name).write_text(text.replace('"1.0"', '"1.0.1"'))
    used, run = read_only(cli, world, [world.downstream], mechanism)
    reason = "Operation not permitted" if used == "immutable files" else "Permission denied"
    refusal = "  hint: let this user write it and its directory, or work on a copy"
    before = everything(world.root)
    code, out, err = run("retire", "retry-backoff-cap", "--at", "1.1", "--why", "in 1.1")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"patchkeeper: error: {world.downstream}/patches/series: the downstream is read-only "
        "here; nothing was changed",
        "  hint: make the downstream's files and directories writable, or run as a user who "
        "can write them",
    ]
    code, out, err = run("port", "--to", "../upstream/minihttp-1.0.1")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"patchkeeper: error: {world.downstream}/patches-1.0.1: cannot write the new series "
        f"directory ({reason}); nothing was written",
        "  hint: pass --output DIR in a directory you can write, or make the downstream's "
        "files and directories writable, or run as a user who can write them",
    ]
    code, out, err = run("port", "--to", "../upstream/minihttp-1.1")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"patchkeeper: error: {world.downstream}/.patchkeeper-port: {reason}; patchkeeper "
        "stopped here",
        refusal,
    ]
    assert everything(world.root) == before
