"""``runtime inventory``, ``runtime audit``, ``runtime same-code``, ``runtime lock`` and
``runtime port`` print the one JSON envelope (docs/json.md) on the runtime fixtures; ``runtime
check`` is in test_live_check.py (it needs a real environment)."""

from __future__ import annotations

from pathlib import Path

from json_schema_check import output
from patchkeeper import __version__


def test_runtime_commands_print_the_envelope(runtime_trees: Path, cli) -> None:
    plugin = runtime_trees / "plugin"
    old, new = runtime_trees / "upstream-1.0", runtime_trees / "upstream-2.0"
    runs = [
        ("runtime inventory", 1, cli("runtime", "inventory", "--json", cwd=plugin)),
        (
            "runtime audit",
            1,
            cli("runtime", "audit", "--from", str(old), "--to", str(new), "--json", cwd=plugin),
        ),
        (
            "runtime same-code",
            1,
            cli(
                "runtime",
                "same-code",
                str(old / "tinyup/scheduler.py"),
                str(new / "tinyup/scheduler.py"),
                "--json",
            ),
        ),
        (
            "runtime lock",
            0,
            cli("runtime", "lock", "--at", str(old), "--json", cwd=plugin),
        ),
        (
            "runtime port",
            1,
            cli("runtime", "port", "--from", str(old), "--to", str(new), "--json", cwd=plugin),
        ),
    ]
    seen = {}
    for command, code, run in runs:
        data = output(run.out)
        assert (run.code, tuple(data.items())[:3]) == (
            code,
            (("command", command), ("patchkeeper_version", __version__), ("exit_code", code)),
        )
        seen[command] = data
    assert seen["runtime inventory"]["package"] == "metaplug"
    assert seen["runtime audit"]["counts"]["decision"] == {
        "look": 1,
        "remove": 1,
        "retain": 3,
        "update": 3,
    }
    assert (seen["runtime same-code"]["left_line"], seen["runtime same-code"]["same"]) == (6, False)
    # Counts are *_count: "files" is a list in every command's JSON.
    lock = seen["runtime lock"]
    assert (lock["target_count"], lock["file_count"], "files" in lock) == (6, 4, False)
    assert lock["path"] == str(plugin / "metaplug/patch/patchkeeper.lock")
    assert lock["unguarded"] == []
    assert lock["skipped"] == [
        [
            "tinyup.kernels.sub_kernel",
            "added by the plugin: 1.0 defines no such name; nothing upstream to guard",
        ]
    ]
    assert seen["runtime port"]["files"] == sorted(seen["runtime port"]["files"])
    assert seen["runtime port"]["written"] is False
