"""An upgrade stopped at the port's conflict, finished the way the port's INSTRUCTIONS.md
says (``patchkeeper port --continue``, the port's own command) rather than with ``upgrade
--continue``: the upgrade takes the port as done, and its commit holds the series the port
wrote, as when the upgrade ran the port itself; nothing is left uncommitted."""

from __future__ import annotations

import json

from test_upgrade_example import API_KEY, AT_THE_STOP, PORTED, PROXY, RECORD, _start
from upgrade_support import committed_files, git, make_checkout, resolve, subjects

from helpers import Example

#: What the port step commits here: the port by hand saved no evidence, so its result
#: replaced none of decide's suggestions (the decisions file is not written).
BY_HAND = [path for path in PORTED if path != "patchkeeper-decisions.toml"]


def test_a_port_continued_by_hand_is_committed_by_the_upgrade(cli, example: Example) -> None:
    down = example.downstream
    base = make_checkout(down)
    assert _start(cli, example).code == 1
    work = down / ".patchkeeper-port" / "conflict"
    assert "Run `patchkeeper port --continue`" in (work / "INSTRUCTIONS.md").read_text()
    resolve(work / "files" / "retry.py", PROXY)
    assert cli("port", "--continue", cwd=down).code == 1
    resolve(work / "files" / "retry.py", API_KEY)
    assert cli("port", "--continue", cwd=down).code == 0
    run = cli("upgrade", "--continue", "--json", cwd=down)
    assert run.code == 0, run.err
    data = json.loads(run.out)
    port = data["steps"][4]
    assert (port["status"], port["summary"], port["files"]) == (
        "done",
        "the series was ported in an earlier run",
        BY_HAND,
    )
    assert subjects(down, base) == [
        *AT_THE_STOP,
        "upgrade: port the series to 1.1",
        "upgrade: write the audit record",
    ]
    # the port's evidence was committed when it stopped; the port by hand left it as it was
    assert committed_files(down, "HEAD~1") == BY_HAND[1:]
    assert committed_files(down, "HEAD") == RECORD
    assert git(down, "status", "--porcelain", "--untracked-files=all") == ""
