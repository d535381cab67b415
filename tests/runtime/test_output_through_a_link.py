"""``runtime port --output`` and ``runtime lock --output`` naming a symbolic link write the
file it leads to and leave the link, as a shell's ``>`` does (and ``export -o``,
``--markdown``): the port renamed a regular file over the link, while the lock wrote
through it."""

from __future__ import annotations

import os
from pathlib import Path


def test_port_output_through_a_link(runtime_trees: Path, cli) -> None:
    versions = ("--from", str(runtime_trees / "upstream-1.0"))
    versions += ("--to", str(runtime_trees / "upstream-2.0"))
    plugin = runtime_trees / "plugin"
    saved = runtime_trees / "update.diff"
    run = cli("runtime", "port", *versions, "--output", str(saved), cwd=plugin)
    assert run.code == 1
    (runtime_trees / "out").mkdir()
    kept = runtime_trees / "out" / "kept.diff"
    kept.write_text("an older diff\n")
    link = runtime_trees / "latest.diff"
    link.symlink_to(Path("out") / "kept.diff")
    linked = cli("runtime", "port", *versions, "--output", str(link), cwd=plugin)
    assert (linked.code, linked.err) == (1, "")
    assert linked.out == run.out.replace(str(saved), str(link))
    assert (os.readlink(link), kept.read_bytes()) == ("out/kept.diff", saved.read_bytes())
    assert sorted(p.name for p in (runtime_trees / "out").iterdir()) == ["kept.diff"]


def test_lock_output_through_a_link(runtime_trees: Path, cli) -> None:
    plugin = runtime_trees / "plugin"
    at = str(runtime_trees / "upstream-1.0")
    saved = runtime_trees / "saved.lock"
    run = cli("runtime", "lock", "--at", at, "--output", str(saved), cwd=plugin)
    assert run.code == 0
    kept = runtime_trees / "kept.lock"
    link = runtime_trees / "link.lock"
    link.symlink_to(kept.name)  # leading to a file not there yet: created
    linked = cli("runtime", "lock", "--at", at, "--output", str(link), cwd=plugin)
    assert (linked.code, linked.err) == (0, "")
    assert linked.out == run.out.replace(str(saved), str(link))
    assert (os.readlink(link), kept.read_bytes()) == ("kept.lock", saved.read_bytes())
