"""An upgrade of a downstream that is not a git checkout writes the record while its state
directory (``.patchkeeper-upgrade/``) is in the downstream and deletes it when done: the
record's measure of the downstream leaves that directory out, so ``report --check`` right
after the upgrade finds the record current (only the suggestions wait for a person)."""

from __future__ import annotations

import json
from pathlib import Path

from upgrade_support import CHUNKY_SETUP, chunky_downstream

from helpers import write_files


def test_report_check_after_an_upgrade_outside_git_finds_no_change(cli, tmp_path: Path) -> None:
    down = tmp_path / "down"
    write_files(down, chunky_downstream())
    for version, init in (("1.0", ""), ("1.1", "# 1.1\n")):
        info = f"Metadata-Version: 2.1\nName: chunky\nVersion: {version}\n\n"
        write_files(
            tmp_path / f"chunky-{version}",
            {"PKG-INFO": info, "setup.py": CHUNKY_SETUP, "chunky/__init__.py": init},
        )
    run = cli("upgrade", "--to", "../chunky-1.1", "--from", "../chunky-1.0", cwd=down)
    assert run.code == 0, run.err
    assert not (down / ".patchkeeper-upgrade").exists()
    run = cli("report", "--check", "--json", cwd=down)
    findings = json.loads(run.out)["findings"]
    assert (run.code, [f["code"] for f in findings]) == (
        1,
        ["not-reviewed", "kept-without-condition"],
    )
