"""A port stopped at a conflict goes on whatever ``--no-save-evidence`` said: the state to
continue from is the port's work directory, not evidence. ``port --to NEW
--no-save-evidence`` keeps no evidence, and ``port --continue`` carries on from its stop;
``upgrade --continue`` there (no upgrade started) names the port's own command. Within an
upgrade, whose stop is saved as the port's evidence, ``port --continue --no-save-evidence``
saves its result over that stop all the same (a warning says so): left there, the record
would tell a port that still waits.

The downstream is the bundled example committed to a git checkout, ported to minihttp 1.1.
"""

from __future__ import annotations

import json
from typing import Any

from port_support import API_KEY, PROXY, resolve, work_files

from helpers import Example, make_checkout


def test_a_port_without_evidence_continues(cli: Any, example: Example) -> None:
    down = example.downstream
    make_checkout(down)
    first = cli("port", "--to", "../upstream/minihttp-1.1", "--no-save-evidence", cwd=down)
    assert first.code == 1
    assert "stopped at redirect-strip-proxy-auth.patch; work directory" in first.out
    assert not (down / ".patchkeeper" / "evidence").exists()

    # no upgrade was started: upgrade --continue names the port's command
    refused = cli("upgrade", "--continue", cwd=down)
    assert refused.code == 2
    assert refused.err == (
        f"patchkeeper: error: {down / '.patchkeeper-port'}: no upgrade is in progress, but a "
        "port is\n"
        "  hint: the port was started by 'patchkeeper port', not by an upgrade: run "
        "'patchkeeper port --continue'\n"
    )
    assert cli("upgrade", "--abort", cwd=down).err.splitlines()[1] == (
        "  hint: the port was started by 'patchkeeper port', not by an upgrade: run "
        "'patchkeeper port --abort'"
    )

    resolve(work_files(example) / "retry.py", PROXY)
    second = cli("port", "--continue", cwd=down)
    assert second.code == 1
    assert "stopped at redirect-strip-api-key.patch; work directory" in second.out
    resolve(work_files(example) / "retry.py", API_KEY)
    third = cli("port", "--continue", cwd=down)
    assert third.code == 0
    assert not (down / ".patchkeeper-port").exists()
    assert not (down / ".patchkeeper" / "evidence").exists()
    assert (down / "patches-1.1" / "series").is_file()


def test_a_continue_without_evidence_inside_an_upgrade(cli: Any, example: Example) -> None:
    down = example.downstream
    make_checkout(down)
    assert cli("upgrade", "--to", "../upstream/minihttp-1.1", cwd=down).code == 1
    stored = down / ".patchkeeper" / "evidence" / "port.json"
    assert json.loads(stored.read_text())["result"]["stopped_at"] == (
        "redirect-strip-proxy-auth.patch"
    )

    resolve(work_files(example) / "retry.py", PROXY)
    second = cli("port", "--continue", "--no-save-evidence", cwd=down)
    assert second.code == 1
    assert second.err == (
        f"patchkeeper: warning: the port's result is saved over {stored} though "
        "--no-save-evidence was given: that file held this port's stop, which the record (and "
        "an upgrade in progress) reads as the port's state; left there, it would say the port "
        "still waits\n"
    )
    result = json.loads(stored.read_text())["result"]
    assert (result["outcome"], result["stopped_at"]) == ("stopped", "redirect-strip-api-key.patch")

    # the port finished outside the upgrade: the upgrade records it from the saved result
    resolve(work_files(example) / "retry.py", API_KEY)
    assert cli("port", "--continue", "--no-save-evidence", cwd=down).code == 0
    result = json.loads(stored.read_text())["result"]
    assert (result["outcome"], result["stopped_at"]) == ("done", None)
    third = cli("upgrade", "--continue", cwd=down)
    assert third.code == 0
    assert "  port           done     the series was ported in an earlier run" in third.out
    assert "judged after the port stopped" not in (down / "AUDIT.md").read_text()
