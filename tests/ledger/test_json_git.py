"""``export``, ``import`` and ``check-branch`` print the one JSON envelope (docs/json.md)."""

from __future__ import annotations

from pathlib import Path

from ledger_support import config_at

from json_schema_check import output
from patchkeeper import __version__
from patchkeeper.ledger import table as ledger


def test_export_import_check_branch_print_the_envelope(downstream: Path, topics: Path, cli):
    ledger.write_ledger(config_at(downstream))
    runs = [
        ("check-branch", cli("-C", str(downstream), "check-branch", "work", "--json")),
        ("export", cli("-C", str(downstream), "export", "work~1", "--json")),
        ("import", cli("-C", str(downstream), "import", "--branch", "again", "--json")),
    ]
    seen = {}
    for command, run in runs:
        data = output(run.out)
        assert (run.code, tuple(data.items())[:3]) == (
            0,
            (("command", command), ("patchkeeper_version", __version__), ("exit_code", 0)),
        )
        seen[command] = data
    check = seen["check-branch"]
    assert (check["file_count"], check["topics"], "files" in check) == (
        3,
        ["size-knob", "extra-module"],
        False,
    )
    assert [Path(patch["path"]).name for patch in seen["export"]["patches"]] == ["size-knob.patch"]
    assert (seen["import"]["branch"], seen["import"]["base"]) == ("again", "v1.0")
