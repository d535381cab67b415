"""``runtime port --output`` and ``runtime lock --output`` naming something other than a
regular file.

A named pipe (what a shell's ``>(...)`` and ``/dev/stdout`` in a pipeline are): the output
goes into the pipe, as a shell's redirection sends it, and the pipe stays where it was.
Before, the port renamed a new regular file over it (run as root with ``--output
/dev/full``, the device was gone from ``/dev`` and a regular file holding the diff was in its
place, and the summary said ``diff in /dev/full``), and the lock hung for ever reading the
pipe as an earlier lock file. The reading end is opened without blocking before the command
runs, so the command's open for writing finds a reader at once and nothing waits on anything.

A symbolic link: the file it leads to is written and the link is left, as a shell's ``>``
does (and ``export -o``, ``--markdown``): the port renamed a regular file over the link,
while the lock wrote through it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def _reader(path: Path) -> int:
    os.mkfifo(path)
    return os.open(path, os.O_RDONLY | os.O_NONBLOCK)


def _drain(fd: int) -> bytes:
    chunks = []
    try:
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def _port(runtime_trees: Path, cli, output: Path):
    """``runtime port`` of the fixture's plugin from 1.0 to 2.0 with ``--output output``."""
    versions = ("--from", str(runtime_trees / "upstream-1.0"))
    versions += ("--to", str(runtime_trees / "upstream-2.0"))
    return cli("runtime", "port", *versions, "--output", str(output), cwd=runtime_trees / "plugin")


def _lock(runtime_trees: Path, cli, output: Path):
    """``runtime lock`` of the fixture's plugin at 1.0 with ``--output output``."""
    at = str(runtime_trees / "upstream-1.0")
    return cli("runtime", "lock", "--at", at, "--output", str(output), cwd=runtime_trees / "plugin")


def test_port_output_into_a_named_pipe(runtime_trees: Path, cli) -> None:
    saved = runtime_trees / "update.diff"
    run = _port(runtime_trees, cli, saved)
    assert run.code == 1
    pipe = runtime_trees / "pipe"
    fd = _reader(pipe)
    piped = _port(runtime_trees, cli, pipe)
    data = _drain(fd)
    summary = (
        "runtime port 1.0 -> 2.0: by hand 2, conflict 1, merged 1, nothing to do 3, "
        "retargeted 2; not written (--write applies it)"
    )
    assert (piped.code, piped.err) == (1, "")
    assert piped.out.splitlines()[-1] == f"{summary}; diff in {pipe}"
    assert data == saved.read_bytes()
    assert data.startswith(b"--- a/metaplug/patch/bugfix/fix_sampler.py\n")
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert sorted(p.name for p in runtime_trees.iterdir() if p.name.startswith(".pipe")) == []


def test_lock_output_into_a_named_pipe(runtime_trees: Path, cli) -> None:
    saved = runtime_trees / "saved.lock"
    run = _lock(runtime_trees, cli, saved)
    assert run.code == 0
    pipe = runtime_trees / "pipe"
    fd = _reader(pipe)
    piped = _lock(runtime_trees, cli, pipe)
    data = _drain(fd)
    assert (piped.code, piped.err) == (0, "")
    assert piped.out == run.out.replace(str(saved), str(pipe))
    assert piped.out.splitlines()[0] == f"locked 6 targets in 4 upstream files at 1.0: {pipe}"
    assert data == saved.read_bytes()
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert not (runtime_trees / ".patchkeeper").exists()


def test_port_output_through_a_link(runtime_trees: Path, cli) -> None:
    saved = runtime_trees / "update.diff"
    run = _port(runtime_trees, cli, saved)
    assert run.code == 1
    (runtime_trees / "out").mkdir()
    kept = runtime_trees / "out" / "kept.diff"
    kept.write_text("an older diff\n")
    link = runtime_trees / "latest.diff"
    link.symlink_to(Path("out") / "kept.diff")
    linked = _port(runtime_trees, cli, link)
    assert (linked.code, linked.err) == (1, "")
    assert linked.out == run.out.replace(str(saved), str(link))
    assert (os.readlink(link), kept.read_bytes()) == ("out/kept.diff", saved.read_bytes())
    assert sorted(p.name for p in (runtime_trees / "out").iterdir()) == ["kept.diff"]


def test_lock_output_through_a_link(runtime_trees: Path, cli) -> None:
    saved = runtime_trees / "saved.lock"
    run = _lock(runtime_trees, cli, saved)
    assert run.code == 0
    kept = runtime_trees / "kept.lock"
    link = runtime_trees / "link.lock"
    link.symlink_to(kept.name)  # leading to a file not there yet: created
    linked = _lock(runtime_trees, cli, link)
    assert (linked.code, linked.err) == (0, "")
    assert linked.out == run.out.replace(str(saved), str(link))
    assert (os.readlink(link), kept.read_bytes()) == ("kept.lock", saved.read_bytes())
