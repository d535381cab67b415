"""The advice of a tool's result names tools and arguments, not command lines: an upgrade
stopped at a conflict, a refused write, a command line no tool runs, through the real client."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp_support import talk, texts

from helpers import Example, resolve
from patchkeeper.agents.hints import translate
from patchkeeper.agents.tools import find_tool
from patchkeeper.main import cli
from patchkeeper.record.reconcile import CHECKED_ELSEWHERE_HINT

DOWN = {"directory": "downstream"}
NEW = "../upstream/minihttp-1.1"
PROXY = b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", "Proxy-Authorization"])\n'
API_KEY = (
    b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", "Proxy-Authorization", '
    b'"X-Api-Key"])\n'
)
THEN = "call write_upgrade_continue (write: true) (or write_upgrade_abort (write: true))"


#: The hint of each conflict of the upgrade, as the server says it.
EDIT = (
    "edit them to what the patch should make of the new pin (see "
    f".patchkeeper-port/conflict/INSTRUCTIONS.md), then {THEN}"
)


@pytest.mark.slow
def test_an_upgrade_stopped_at_a_conflict_names_the_tools_that_go_on(example: Example) -> None:
    conflict = ".patchkeeper-port/conflict/files/retry.py"

    async def conversation(client: ClientSession) -> list[Any]:
        first = await client.call_tool("write_upgrade", {**DOWN, "to": NEW, "write": True})
        resolve(example.downstream / conflict, PROXY)
        second = await client.call_tool("write_upgrade_continue", {**DOWN, "write": True})
        resolve(example.downstream / conflict, API_KEY)
        third = await client.call_tool("write_upgrade_continue", {**DOWN, "write": True})
        return [first, second, third]

    first, second, third = talk(example.root, conversation)
    stopped = first.structured_content
    assert (first.is_error, stopped["outcome"]) == (False, "stopped")
    assert stopped["conflicts"] == [
        {
            "kind": "series",
            "name": "redirect-strip-proxy-auth.patch",
            "files": [conflict],
            "hint": EDIT,
        }
    ]
    assert second.structured_content["conflicts"][0]["name"] == "redirect-strip-api-key.patch"
    assert second.structured_content["conflicts"][0]["hint"] == EDIT
    assert json.loads(texts(first)[0]) == stopped  # the JSON text says the same
    done = third.structured_content
    assert (third.is_error, done["outcome"], done["conflicts"]) == (False, "done", [])
    assert done["verify"] == [
        f'COPY=$(mktemp -d) && cp -R {example.new}/. $COPY && write_apply (target: "$COPY", '
        'write: true) && verify (target: "$COPY")',
        "lint",
        "report_check",
    ]


def test_a_refused_write_and_a_command_line_no_tool_runs(example: Example) -> None:
    async def conversation(client: ClientSession) -> list[Any]:
        refused = await client.call_tool("write_upgrade_abort", DOWN)
        markdown = await client.call_tool("audit", {**DOWN, "to": NEW, "markdown": "out.md"})
        abort = await client.call_tool("write_upgrade_abort", {**DOWN, "write": True})
        return [refused, markdown, abort]

    refused, markdown, abort = talk(example.root, conversation)
    assert refused.is_error is True
    assert refused.structured_content["error"] == {
        "message": "write_upgrade_abort writes files and the call did not say write: true",
        "file": None,
        "line": None,
        "hint": "call write_upgrade_abort again with write: true once the change is wanted; "
        "the read-only tools (audit, verify, status, ...) show what it would do",
    }
    assert markdown.is_error is True
    assert markdown.structured_content["error"]["hint"] == (
        "the call's result is the JSON envelope; to write the Markdown report, run "
        "'patchkeeper audit --markdown FILE' (a command line: no tool runs it) in a terminal"
    )
    assert texts(markdown)[0].splitlines()[1] == (
        "  hint: " + markdown.structured_content["error"]["hint"]
    )
    # no upgrade in progress: the command's own hint, which names no command line
    assert abort.is_error is True
    assert "patchkeeper upgrade" not in abort.structured_content["error"]["hint"]
    assert not (example.downstream / "out.md").exists()


def test_evidence_refused_for_a_range_says_what_keeps_one(example: Example) -> None:
    """``save_evidence`` given to horizon, or to audit with a range: the hint said to run
    ``audit --save-evidence`` in a terminal, which refuses a range; it says that a range's
    audit keeps none and how one release's is kept. Audit of one release keeps its hint."""

    async def conversation(client: ClientSession) -> list[Any]:
        ranged = {**DOWN, "to": "minihttp>1.0,<2", "save_evidence": True}
        return [
            await client.call_tool("horizon", ranged),
            await client.call_tool("audit", ranged),
            await client.call_tool("audit", {**DOWN, "to": NEW, "save_evidence": True}),
        ]

    horizon, audit, one = talk(example.root, conversation)
    ranged_hint = (
        "a range's audit keeps no evidence in a terminal either: --save-evidence keeps one "
        "release's audit; to keep one release's in .patchkeeper/evidence/, run 'patchkeeper "
        "audit --to minihttp==VERSION --save-evidence' (a command line: no tool runs it) in a "
        "terminal"
    )
    assert [r.is_error for r in (horizon, audit, one)] == [True, True, True]
    assert [r.structured_content["error"] for r in (horizon, audit)] == [
        {
            "message": f"{name} is read-only and writes nothing: it takes no save_evidence",
            "file": None,
            "line": None,
            "hint": ranged_hint,
        }
        for name in ("horizon", "audit")
    ]
    assert texts(horizon)[0].splitlines()[:2] == [
        "patchkeeper: error: horizon is read-only and writes nothing: it takes no save_evidence",
        f"  hint: {ranged_hint}",
    ]
    assert one.structured_content["error"]["hint"] == (
        "it keeps no evidence, whatever evidence = true in the configuration says; to keep the "
        "result in .patchkeeper/evidence/, run 'patchkeeper audit --save-evidence' (a command "
        "line: no tool runs it) in a terminal"
    )


def test_what_a_hint_says_in_tools() -> None:
    upgrade = find_tool("write_upgrade")
    assert translate(
        "finish it with 'patchkeeper port --continue' or drop it with 'patchkeeper port --abort'",
        upgrade,
        cli,
    ) == (
        "finish it with write_port_continue (write: true) or drop it with "
        "write_port_abort (write: true)"
    )
    assert translate("pass another --branch, or delete it (git branch -D x)", upgrade, cli) == (
        "pass another `branch`, or delete it (git branch -D x)"
    )
    assert translate("pass --to=minihttp==1.1 (git stash -u first)", upgrade, cli) == (
        'pass `to: "minihttp==1.1"` (git stash -u first)'
    )
    # an option the called tool lacks names the tools that take it; one no tool takes stays
    assert translate("use --no-save-evidence, see --help", find_tool("write_decide"), cli) == (
        "use `save_evidence: false` (an argument of write_port_start, write_port_continue or "
        "write_port_abort), see the tool's description and input schema (tools/list)"
    )
    assert translate("pass --upstream-repo PATH", find_tool("write_port_continue"), cli) == (
        "pass `upstream_repo` (an argument of write_port_start) PATH"
    )
    assert translate("start the server with a --root that holds it", upgrade, cli) == (
        "start the server with a --root that holds it"
    )
    assert translate("run 'patchkeeper audit --help' to see how to call it", None, cli) == (
        "read the description and input schema of audit, horizon (tools/list) to see how to call it"
    )
    assert translate("finish it with the patchkeeper that started it", upgrade, cli) == (
        "finish it with the patchkeeper that started it"
    )
    assert translate("run 'patchkeeper port --to NEWPIN'", None, cli) == (
        'call write_port_start (to: "NEWPIN", write: true)'
    )
    assert translate("Invalid value for '--plugin': x.whl is a file", upgrade, cli) == (
        "Invalid value for '--plugin': x.whl is a file"  # write_upgrade takes no plugin
    )
    assert translate("Invalid value for '--to': '1.x'", upgrade, cli) == (
        "Invalid value for `to`: '1.x'"
    )
    assert translate("the old upstream (--to)", upgrade, cli) == "the old upstream (`to`)"
    assert translate("patchkeeper runtime check --python PYTHON  # PYTHON: a venv", None, cli) == (
        "patchkeeper runtime check --python PYTHON (a command line: no tool runs it)  "
        "# PYTHON: a venv"
    )


def test_a_command_line_in_a_sentence_ends_where_its_options_do() -> None:
    """An unquoted command line takes its command, its options with their values and the
    arguments the command has room for; the words after go on with the sentence, so what is
    said of it (the tool, or that no tool runs it) follows the command, not the sentence."""
    hint = (
        "pass --from NAME==VERSION (or a directory), or set upstream and pin in "
        "[tool.patchkeeper] (patchkeeper init --upstream NAME==VERSION writes them for a plugin)"
    )
    assert translate(hint, find_tool("runtime_audit"), cli) == (
        "pass `from` NAME==VERSION (or a directory), or set upstream and pin in "
        "[tool.patchkeeper] (patchkeeper init --upstream NAME==VERSION (a command line: no "
        "tool runs it) writes them for a plugin)"
    )
    assert translate("then run patchkeeper upgrade --continue to go on", None, cli) == (
        "then call write_upgrade_continue (write: true) to go on"
    )
    assert translate("patchkeeper export 3f1c2a9 -o fix.patch writes it", None, cli) == (
        "patchkeeper export 3f1c2a9 -o fix.patch (a command line: no tool runs it) writes it"
    )
    assert translate("run patchkeeper record -- pytest -x tests", None, cli) == (
        "run patchkeeper record -- pytest -x tests (a command line: no tool runs it)"
    )
    assert translate(CHECKED_ELSEWHERE_HINT, None, cli) == (
        "run patchkeeper runtime check --python PYTHON (a command line: no tool runs it), "
        "PYTHON being the interpreter the record measures"
    )


def test_an_error_names_the_arguments_the_call_gave(tmp_path: Path) -> None:
    """The command's error names its options (``--from nowhere: ...``, click's ``Invalid
    value for '--plugin'``); the agent gave arguments, so the error names those."""
    plugin = tmp_path / "scaleplug"
    (plugin / "scaleplug").mkdir(parents=True)
    (plugin / "scaleplug" / "__init__.py").write_text("")
    (tmp_path / "scaleplug-0.1-py3-none-any.whl").write_bytes(b"PK\x05\x06" + bytes(18))

    async def conversation(client: ClientSession) -> list[Any]:
        wheel = await client.call_tool(
            "runtime_inventory",
            {"plugin": "scaleplug-0.1-py3-none-any.whl", "package": "scaleplug"},
        )
        nowhere = await client.call_tool(
            "runtime_audit",
            {"plugin": "scaleplug", "package": "scaleplug", "from": "nowhere", "to": "nowhere"},
        )
        return [wheel, nowhere]

    wheel, nowhere = talk(tmp_path, conversation)
    assert (wheel.is_error, wheel.structured_content["error"]["message"]) == (
        True,
        "Invalid value for `plugin`: scaleplug-0.1-py3-none-any.whl is a file; a plugin is "
        "the directory holding its package: unpack the wheel or sdist and pass its directory",
    )
    assert (nowhere.is_error, nowhere.structured_content["error"]) == (
        True,
        {
            "message": f"`from` nowhere: no directory {tmp_path.resolve() / 'nowhere'}, and as "
            "a requirement it names no release of nowhere",
            "file": None,
            "line": None,
            "hint": "pass an upstream tree's directory, or a requirement of nowhere (`from` "
            "nowhere==VERSION)",
        },
    )
    assert texts(nowhere)[0].splitlines()[0] == (
        "patchkeeper: error: " + nowhere.structured_content["error"]["message"]
    )


def test_a_command_line_with_the_group_options_names_the_tool_and_its_directory() -> None:
    """``patchkeeper -C DIR apply`` runs ``apply`` in DIR: the group's options before the
    command are the tool's ``directory`` and ``config``; ``-C`` alone in a sentence is the
    ``directory`` argument, another program's ``-C`` (git's, tar's) stays."""
    port = find_tool("write_port_continue")
    assert translate(
        "review /d/patches-1.1; 'patchkeeper -C /d/patches-1.1 apply --target COPY' applies it",
        port,
        cli,
    ) == (
        'review /d/patches-1.1; write_apply (directory: "/d/patches-1.1", target: "COPY", '
        "write: true) applies it"
    )
    assert translate("run patchkeeper -C down --config=c.toml upgrade --continue", None, cli) == (
        'call write_upgrade_continue (directory: "down", config: "c.toml", write: true)'
    )
    assert translate("run init in the checkout's top: patchkeeper -C /top init", None, cli) == (
        "run init in the checkout's top: patchkeeper -C /top init (a command line: no tool runs it)"
    )
    assert translate("run 'patchkeeper --config c.toml lint --help'", None, cli) == (
        "read the description and input schema of lint (tools/list)"
    )
    lint = find_tool("lint")
    assert translate("pass -C DIR or --config FILE", lint, cli) == (
        "pass `directory` DIR or `config` FILE"
    )
    assert (
        translate(
            "unpack it (tar -xf FILE.tar.gz -C DIR) or switch (git -C /p switch -c x), then -C",
            lint,
            cli,
        )
        == "unpack it (tar -xf FILE.tar.gz -C DIR) or switch (git -C /p switch -c x), then `directory`"
    )


def test_a_command_line_reads_a_quoted_path_as_one_word() -> None:
    """A message quotes a path with spaces as a shell does (``shlex.quote``): the quoted word
    is one argument, its quotes taken off, whether the command line is in quotes itself,
    unquoted in a sentence, or in backquotes; a quote that closes a command line stays one."""
    spaced = shlex.quote("/d/my patches")
    assert spaced == "'/d/my patches'"
    assert translate(
        f"review it; 'patchkeeper -C {spaced} apply --target COPY' applies it", None, cli
    ) == (
        'review it; write_apply (directory: "/d/my patches", target: "COPY", write: true) '
        "applies it"
    )
    assert (
        translate(f"run patchkeeper -C 'my dir' verify --target {spaced} to check it", None, cli)
        == 'call verify (directory: "my dir", target: "/d/my patches") to check it'
    )
    assert translate(f"run 'patchkeeper port --to={spaced} --in-place'", None, cli) == (
        'call write_port_start (to: "/d/my patches", in_place: true, write: true)'
    )
    its = shlex.quote("it's here")
    assert its == "'it'\"'\"'s here'"
    assert translate(f"`patchkeeper audit --to {its}`", None, cli) == ('audit (to: "it\'s here")')
    assert translate(f"('patchkeeper audit --to {spaced}') and move the pin", None, cli) == (
        '(audit (to: "/d/my patches")) and move the pin'
    )


def test_a_port_through_the_tools_ends_naming_the_tool_that_applies_its_series(
    tmp_path: Path,
) -> None:
    """A port that is done says how to apply the new series (``patchkeeper -C DIR apply``):
    through the server, the tool and its ``directory``; a directory without configuration
    names the ``directory`` and ``config`` arguments."""
    for version, body in (("1.0", "a\nb\nc\n"), ("1.1", "top\na\nb\nc\n")):
        (tmp_path / f"tinylib-{version}" / "tinylib").mkdir(parents=True)
        (tmp_path / f"tinylib-{version}" / "tinylib" / "core.py").write_text(body)
    down = tmp_path / "down"
    (down / "patches").mkdir(parents=True)
    (down / "patchkeeper.toml").write_text(
        'upstream = "tinylib"\npin = "1.0"\npristine = "../tinylib-1.0"\n'
        'series = "patches/series"\n'
    )
    (down / "patches" / "series").write_text("core-b.patch\n")
    (down / "patches" / "core-b.patch").write_text(
        "--- a/tinylib/core.py\n+++ b/tinylib/core.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
    )

    async def conversation(client: ClientSession) -> list[Any]:
        port = await client.call_tool(
            "write_port_start", {"directory": "down", "to": "../tinylib-1.1", "write": True}
        )
        bare = await client.call_tool("lint", {"directory": "tinylib-1.0"})
        return [port, bare]

    port, bare = talk(tmp_path, conversation)
    where = (down / "patches-1.1").resolve()
    assert (port.is_error, port.structured_content["todo"][0]) == (
        False,
        f"review {where}; write_apply (directory: {json.dumps(str(where))}, target: "
        f'"COPY", write: true) applies it; then copy its series and patch files over those '
        f'in {(down / "patches").resolve()}, set pin = "1.1" in the configuration '
        f'(write_port_start (to: "{(tmp_path / "tinylib-1.1").resolve()}", in_place: true, '
        "write: true) does both; the directory holds only the series, so do not replace "
        "the downstream with it)",
    )
    assert (bare.is_error, bare.structured_content["error"]["hint"]) == (
        True,
        "run patchkeeper in the downstream (or pass `directory` DIR or `config` FILE); the "
        "manual's configuration page (docs/configuration.md) shows the keys",
    )


@pytest.mark.slow
def test_a_continued_port_says_the_port_again_in_place_as_its_tool(example: Example) -> None:
    """A port into a new directory ends advising to retire each upstreamed patch, or to port
    again in place with ``--retire``. Said in bare words ("port with --in-place --retire"),
    it kept the options through ``write_port_continue``, which has no ``in_place``: the
    advice is a command line, which the server names as the tool that runs it. The reason
    named the command that proposed the retirement ("by 'patchkeeper port'"), which the
    server said as ``write_port_start (write: true)``, a call an agent made again: only the
    tool to call is named now."""
    conflict = example.downstream / ".patchkeeper-port" / "conflict" / "files" / "retry.py"

    async def conversation(client: ClientSession) -> list[Any]:
        start = {**DOWN, "to": NEW, "write": True}
        results = [await client.call_tool("write_port_start", start)]
        for resolution in (PROXY, API_KEY):
            resolve(conflict, resolution)
            results.append(await client.call_tool("write_port_continue", {**DOWN, "write": True}))
        return results

    *_, done = talk(example.root, conversation)
    assert (done.is_error, done.structured_content["exit_code"]) == (False, 0)
    retire = [item for item in done.structured_content["todo"] if item.startswith("retire ")]
    assert retire == [
        "retire retry-backoff-cap.patch (upstreamed in 1.1: proposed for retirement): "
        "'patchkeeper retire NAME --at 1.1 --why TEXT' (a "
        f'command line: no tool runs it), or write_port_start (to: "{example.new}", in_place: '
        "true, retire: true, write: true)"
    ]
