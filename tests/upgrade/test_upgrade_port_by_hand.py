"""An upgrade stopped at the port's conflict, finished the way the port's INSTRUCTIONS.md
says (``patchkeeper port --continue``, the port's own command) rather than with ``upgrade
--continue``: the upgrade takes the port as done, and its commit holds the series the port
wrote, as when the upgrade ran the port itself; nothing is left uncommitted."""

from __future__ import annotations

import json

from upgrade_support import (
    API_KEY,
    AT_THE_STOP,
    PORTED,
    PROXY,
    RECORD,
    SUGGESTED,
    committed_files,
    git,
    make_checkout,
    resolve,
    start_upgrade,
    subjects,
)

from helpers import Example


def test_a_port_continued_by_hand_is_committed_by_the_upgrade(cli, example: Example) -> None:
    """A plain ``port --continue`` (no ``--save-evidence``) saved nothing: the evidence
    still said the port waited at its first conflict, so the record told that stop and
    decide's "suggested: update" of the patches the port had carried since stayed in the
    decisions file, listed as left to do. The continue of a port whose stop is the saved
    evidence saves its result over it, and the upgrade makes those suggestions the port's."""
    down = example.downstream
    base = make_checkout(down)
    assert start_upgrade(cli, example).code == 1
    work = down / ".patchkeeper-port" / "conflict"
    assert "Run `patchkeeper port --continue`" in (work / "INSTRUCTIONS.md").read_text()
    resolve(work / "files" / "retry.py", PROXY)
    assert cli("port", "--continue", cwd=down).code == 1
    resolve(work / "files" / "retry.py", API_KEY)
    assert cli("port", "--continue", cwd=down).code == 0
    evidence = json.loads((down / ".patchkeeper/evidence/port.json").read_text())
    assert (evidence["result"]["outcome"], evidence["result"]["stopped_at"]) == ("done", None)

    run = cli("upgrade", "--continue", "--json", cwd=down)

    assert run.code == 0, run.err
    data = json.loads(run.out)
    port = data["steps"][4]
    assert (port["status"], port["summary"], port["files"]) == (
        "done",
        "the series was ported in an earlier run",
        PORTED,
    )
    assert [(s["key"], s["decision"], s["verdict"]) for s in data["suggestions"]] == [
        SUGGESTED[0],
        ("redirect-strip-proxy-auth.patch", "carry", "resolved"),
        ("headers-merge-order.patch", "carry", "merged"),
        *SUGGESTED[3:6],
        ("redirect-strip-api-key.patch", "carry", "resolved"),
    ]
    assert subjects(down, base) == [
        *AT_THE_STOP,
        "upgrade: port the series to 1.1",
        "upgrade: write the audit record",
    ]
    # the port's evidence, as the port by hand saved it, is committed with the series
    assert committed_files(down, "HEAD~1") == PORTED
    assert committed_files(down, "HEAD") == RECORD
    assert git(down, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_decision_reviewed_while_the_port_waits_stays(cli, example: Example) -> None:
    """The port by hand replaces only suggestions nobody reviewed: a decision a person
    accepted while the port waited stays theirs, and the notes and removal condition a
    person wrote in a suggestion's table stay in the port's suggestion."""
    down = example.downstream
    base = make_checkout(down)
    assert start_upgrade(cli, example).code == 1
    decisions = down / "patchkeeper-decisions.toml"
    text = decisions.read_text()
    head, table, tail = text.partition('[series."headers-merge-order.patch"]\n')
    tail = tail.replace(
        'removal-condition = "upstreamed"', 'removal-condition = "when 2.0 ships"', 1
    )
    tail = tail.replace('notes = ""', 'notes = "the merge order is ours"', 1)
    text = head + table + tail
    head, table, tail = text.partition('[series."redirect-strip-api-key.patch"]\n')
    tail = tail.replace('decision = "suggested: update"', 'decision = "update"', 1)
    decisions.write_text(head + table + tail)
    work = down / ".patchkeeper-port" / "conflict"
    resolve(work / "files" / "retry.py", PROXY)
    assert cli("port", "--continue", cwd=down).code == 1
    resolve(work / "files" / "retry.py", API_KEY)
    assert cli("port", "--continue", cwd=down).code == 0

    run = cli("upgrade", "--continue", "--json", cwd=down)

    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert [(s["key"], s["decision"], s["verdict"]) for s in data["suggestions"]] == [
        SUGGESTED[0],
        ("redirect-strip-proxy-auth.patch", "carry", "resolved"),
        ("headers-merge-order.patch", "carry", "merged"),
        *SUGGESTED[3:6],
    ]
    text = decisions.read_text()
    table = text[text.index('[series."headers-merge-order.patch"]') :]
    assert table[: table.index("\n\n")].splitlines() == [
        '[series."headers-merge-order.patch"]',
        '# suggested from port: merged; to accept it, delete "suggested: " from the decision',
        'decision = "suggested: carry"',
        'reason = "suggested by patchkeeper decide from the port verdict: merged"',
        'removal-condition = "when 2.0 ships"',
        'notes = "the merge order is ours"',
    ]
    table = text[text.index('[series."redirect-strip-api-key.patch"]') :]
    assert 'decision = "update"\n' in table.split("\n\n")[0]
    assert subjects(down, base) == [
        *AT_THE_STOP,
        "upgrade: edits made by hand while the upgrade waited",
        "upgrade: port the series to 1.1",
        "upgrade: write the audit record",
    ]
    assert committed_files(down, "HEAD~2") == ["patchkeeper-decisions.toml"]
    assert committed_files(down, "HEAD~1") == PORTED
