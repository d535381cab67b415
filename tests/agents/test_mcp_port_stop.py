"""A port stopped at a conflict in a tool call is told in tools, not command lines: its
``INSTRUCTIONS.md``, the next steps of the port's result, the summaries of the patches
resolved by hand, the hints of the findings, and the port's end, through the real client."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp_support import talk

from helpers import Example, resolve

DOWN = {"directory": "downstream"}
WRITE = {**DOWN, "write": True}
NEW = "../upstream/minihttp-1.1"
PROXY = b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", "Proxy-Authorization"])\n'
API_KEY = (
    b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", "Proxy-Authorization", '
    b'"X-Api-Key"])\n'
)
CONFLICT = Path(".patchkeeper-port", "conflict")


def _what_to_do(instructions: str) -> list[str]:
    """The lines of ``INSTRUCTIONS.md`` that say how to go on: the history's and the steps
    after the first."""
    lines = instructions.splitlines()
    history = [line for line in lines if line.startswith("Upstream history evidence")]
    return history + [line for line in lines if line.startswith(("2. ", "3. "))]


def test_a_port_stopped_in_a_call_names_the_tools_that_go_on(cli, example: Example) -> None:
    """Started through the server, the port's ``INSTRUCTIONS.md`` names the tools and the
    call's ``directory``: an agent has no terminal to run ``patchkeeper port --continue``
    in. Started on the command line, the same file names the command lines."""
    down = example.downstream

    async def conversation(client: ClientSession) -> Any:
        return await client.call_tool("write_port_start", {**WRITE, "to": NEW})

    started = talk(example.root, conversation)
    assert started.structured_content["outcome"] == "stopped"
    assert _what_to_do((down / CONFLICT / "INSTRUCTIONS.md").read_text()) == [
        "Upstream history evidence is missing: start the port with the `upstream_repo` "
        "argument of write_port_start (a checkout with both pins' tags) to see the commits "
        "that changed these lines.",
        '2. Call write_port_continue (directory: "downstream", write: true): the patch is '
        "regenerated from these files and the port carries on with the rest of the series. "
        '(When write_upgrade started the port, write_upgrade_continue (directory: "downstream", '
        "write: true) does the same and then the upgrade's remaining steps.)",
        '3. Or call write_port_abort (directory: "downstream", write: true): this directory '
        "is removed and nothing else was written.",
    ]
    assert cli("port", "--abort", cwd=down).code == 0
    assert cli("port", "--to", NEW, cwd=down).code == 1
    assert _what_to_do((down / CONFLICT / "INSTRUCTIONS.md").read_text()) == [
        "Upstream history evidence is missing: run the port with `--upstream-repo PATH` (a "
        "checkout with both pins' tags) to see the commits that changed these lines.",
        "2. Run `patchkeeper port --continue`: the patch is regenerated from these files and "
        "the port carries on with the rest of the series. (When `patchkeeper upgrade` "
        "started the port, `patchkeeper upgrade --continue` does the same and then the "
        "upgrade's remaining steps.)",
        "3. Or run `patchkeeper port --abort`: this directory is removed and nothing else "
        "was written.",
    ]


def test_an_upgrade_stopped_at_its_port_names_the_tools(example: Example) -> None:
    """The port an upgrade started through the server is told the same way."""

    async def conversation(client: ClientSession) -> Any:
        return await client.call_tool("write_upgrade", {**WRITE, "to": NEW})

    stopped = talk(example.root, conversation)
    assert stopped.structured_content["outcome"] == "stopped"
    steps = _what_to_do((example.downstream / CONFLICT / "INSTRUCTIONS.md").read_text())
    assert steps[1].startswith('2. Call write_port_continue (directory: "downstream", write: ')
    assert "patchkeeper" not in " ".join(steps)


def test_a_port_carried_through_in_calls_says_what_happened(example: Example) -> None:
    """The ``--continue`` result names the tool that takes ``upstream_repo`` (the call's
    own takes none of the options that start a port) and says the patches resolved by hand
    were resolved by a tool. A second continue, once the port finished in place, says the
    last port finished: it stopped at conflicts, it was not interrupted."""
    down = example.downstream
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "down"]):
        subprocess.run(["git", *args], cwd=down, check=True, capture_output=True)
    conflict = down / CONFLICT / "files" / "retry.py"

    async def conversation(client: ClientSession) -> list[Any]:
        await client.call_tool("write_port_start", {**WRITE, "to": NEW, "in_place": True})
        resolve(conflict, PROXY)
        second = await client.call_tool("write_port_continue", WRITE)
        resolve(conflict, API_KEY)
        done = await client.call_tool("write_port_continue", WRITE)
        again = await client.call_tool("write_port_continue", WRITE)
        return [second, done, again]

    second, done, again = talk(example.root, conversation)
    assert second.structured_content["todo"][-1] == (
        "upstream history evidence is missing: pass `upstream_repo` (an argument of "
        "write_port_start) PATH (a checkout with both pins' tags) for the commits behind each "
        "conflict and reference"
    )
    assert done.structured_content["outcome"] == "done"
    by_hand = [
        patch["summary"]
        for patch in done.structured_content["patches"]
        if "resolved by hand" in patch["summary"]
    ]
    assert (
        by_hand
        == ["resolved by hand (write_port_continue) after git's three-way merge stopped"] * 2
    )
    assert again.is_error is True
    assert again.structured_content["error"]["hint"] == (
        "the series is at pin 1.1: the last port has finished and its changes are not "
        "committed (git diff shows them); to port the series, call write_port_start (to: "
        '"NEWPIN", write: true)'
    )


def test_the_hints_of_findings_and_of_decide_name_tools(example: Example) -> None:
    """Each finding's hint (``report --check``'s here) is said in tools as the envelope's
    own hint is; an option the called tool lacks names the tools that take it."""

    async def conversation(client: ClientSession) -> list[Any]:
        return [
            await client.call_tool("report_check", DOWN),
            await client.call_tool("write_decide", WRITE),
        ]

    report, decide = talk(example.root, conversation)
    hints = sorted({finding["hint"] for finding in report.structured_content["findings"]})
    assert hints[-1] == "run patchkeeper report (a command line: no tool runs it)"
    assert all(
        "patchkeeper audit --to NEW --save-evidence (a command line" in hint for hint in hints[:-1]
    )
    assert decide.structured_content["hint"].startswith(
        "no evidence saved: run audit, port, verify or the runtime commands with "
        "`save_evidence: true` (an argument of write_port_start, write_port_continue or "
        "write_port_abort), or set evidence = true"
    )


def test_a_continue_after_the_port_an_upgrade_started_names_the_upgrade(
    example: Example,
) -> None:
    """The port an upgrade started, carried through by write_port_continue: a second one
    finds no port, and the upgrade is what goes on, not a new port."""
    conflict = example.downstream / CONFLICT / "files" / "retry.py"

    async def conversation(client: ClientSession) -> Any:
        await client.call_tool("write_upgrade", {**WRITE, "to": NEW})
        resolve(conflict, PROXY)
        await client.call_tool("write_port_continue", WRITE)
        resolve(conflict, API_KEY)
        done = await client.call_tool("write_port_continue", WRITE)
        assert done.structured_content["outcome"] == "done"
        return await client.call_tool("write_port_continue", WRITE)

    again = talk(example.root, conversation)
    assert again.is_error is True
    assert again.structured_content["error"]["hint"] == (
        "the port the upgrade in progress here started has finished (a write_port_continue "
        "(write: true) carried it through): the next step is write_upgrade_continue (write: "
        "true), which goes on with the upgrade's steps after its port (or write_upgrade_abort "
        "(write: true) to put the downstream back)"
    )
