"""``runtime audit --json`` and ``runtime port --json`` name the two upstreams with the same
keys meaning the same: ``old``/``new`` as given, ``old_release``/``new_release`` their
versions (``directory PATH`` for a tree that states none)."""

from __future__ import annotations

from pathlib import Path

from json_schema_check import output


def test_audit_and_port_give_old_and_new_alike(runtime_trees: Path, cli) -> None:
    plugin = runtime_trees / "plugin"
    (runtime_trees / "upstream-2.0" / "pyproject.toml").unlink()  # states no version
    bare = runtime_trees / "upstream-2.0"
    args = ("--from", "../upstream-1.0", "--to", "../upstream-2.0")
    keys = ("old", "new", "old_release", "new_release")
    expected = ["../upstream-1.0", "../upstream-2.0", "1.0", f"directory {bare}"]
    audit = output(cli("runtime", "audit", *args, "--json", cwd=plugin).out)
    port = output(cli("runtime", "port", *args, "--json", cwd=plugin).out)
    assert [audit[k] for k in keys] == expected
    assert [port[k] for k in keys] == expected
    text = cli("runtime", "port", *args, cwd=plugin)
    assert f"runtime port 1.0 -> directory {bare}: " in text.out + text.err
