"""``patchkeeper mcp`` end to end: the server started as a subprocess, talked to with the
``mcp`` SDK's own stdio client, on a copy of the bundled example (the root)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from mcp import ClientSession
from mcp_support import talk, texts

from helpers import Example, LocalIndex, make_tar, tree_bytes
from patchkeeper import __version__

READ_ONLY = [
    "audit",
    "horizon",
    "verify",
    "status",
    "lint",
    "ledger_check",
    "runtime_inventory",
    "runtime_audit",
    "runtime_port",
    "report_check",
]
WRITING = [
    "write_apply",
    "write_port_start",
    "write_port_continue",
    "write_port_abort",
    "write_runtime_port",
    "write_decide",
    "write_upgrade",
    "write_upgrade_continue",
    "write_upgrade_abort",
]
AUDIT = {"directory": "downstream", "to": "../upstream/minihttp-1.1"}


def test_the_tools_and_their_schemas(example: Example) -> None:
    async def conversation(client: ClientSession):
        return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in talk(example.root, conversation)}
    assert list(tools) == [*READ_ONLY, *WRITING, "result_page"]
    for name in READ_ONLY:
        annotations = tools[name].annotations
        assert (annotations.read_only_hint, annotations.destructive_hint) == (True, None), name
        assert "write" not in tools[name].input_schema["properties"], name
    for name in WRITING:
        annotations = tools[name].annotations
        assert annotations.read_only_hint is False, name
        assert tools[name].input_schema["properties"]["write"]["type"] == "boolean", name
    assert tools["write_decide"].annotations.destructive_hint is False
    assert tools["write_port_start"].annotations.destructive_hint is True
    ledger = tools["ledger_check"]
    assert ledger.title == "patchkeeper ledger --check"
    assert ledger.description == (
        "Compare the ledger table with the patch headers; change nothing. Runs `patchkeeper "
        "ledger --check --json` in the server's root and returns its JSON envelope. "
        "Read-only: writes nothing."
    )
    assert ledger.input_schema == {
        "type": "object",
        "properties": {
            "config": {
                "type": "string",
                "description": "patchkeeper.toml or pyproject.toml to read (default: search "
                "upwards); may also follow the command. (Inside the server's root.)",
            },
            "directory": {
                "type": "string",
                "description": "Run as if started in this downstream directory; may also "
                "follow the command. (Relative to the server's root; the other paths are read "
                "from there.)",
            },
        },
        "required": [],
        "additionalProperties": False,
    }
    assert ledger.output_schema["properties"]["command"] == {"const": "ledger"}
    audit = tools["audit"].input_schema
    assert list(audit["properties"]) == ["config", "directory", "to", "pristine", "between"]
    assert audit["required"] == ["to"]
    assert list(tools["horizon"].input_schema["properties"]) == [
        "config",
        "directory",
        "to",
        "releases",
        "pristine",
    ]
    assert list(tools["write_port_start"].input_schema["properties"]) == [
        "config",
        "directory",
        "to",
        "from",
        "in_place",
        "output",
        "retire",
        "upstream_repo",
        "markdown",
        "save_evidence",
        "write",
    ]
    assert list(tools["write_port_continue"].input_schema["properties"]) == [
        "config",
        "directory",
        "markdown",
        "save_evidence",
        "write",
    ]
    assert (
        tools["horizon"]
        .input_schema["properties"]["to"]["description"]
        .endswith(
            "(the upgrade horizon). (A directory or a release file inside the server's root, "
            "or a requirement.)"
        )
    )
    lint = tools["lint"].input_schema["properties"]
    assert lint["foreign_checkout"]["type"] == "array"
    assert "format" not in lint and "markdown" not in lint


def test_the_audit_tool_says_it_takes_a_range_too(example: Example) -> None:
    """The audit tool runs ``audit``, which judges every release of a range given in ``to``
    (fetched from the package indexes, the tool having no ``releases``): its description and
    its ``to`` say so, not only horizon's."""

    async def conversation(client: ClientSession):
        return {tool.name: tool for tool in (await client.list_tools()).tools}

    tools = talk(example.root, conversation)
    assert tools["audit"].description == (
        "Apply the series to a new upstream release in memory and judge every patch "
        "(verdicts with evidence); a range in to ('PROJECT>=A,<B') judges every release of it "
        "from the package indexes, as horizon does. Runs `patchkeeper audit --no-save-evidence "
        "--json` in the server's root and returns its JSON envelope. Read-only: writes nothing."
    )
    to = tools["audit"].input_schema["properties"]["to"]["description"]
    assert to == (
        "The new upstream: a directory, a release's sdist or wheel file, or a requirement of "
        "the configured upstream (PROJECT==VERSION); a range ('PROJECT>=A,<B') audits every "
        "release in it (the upgrade horizon). (A directory or a release file inside the "
        "server's root, or a requirement.) (With a range, "
        "this tool fetches its releases from the package indexes, or reads them beside a "
        "configured pristine kept among them; horizon can take them from a directory instead: "
        "releases.)"
    )
    horizon = tools["horizon"].input_schema["properties"]["to"]["description"]
    assert to.startswith(horizon) and horizon.endswith("or a requirement.)")


def test_the_audit_tool_judges_every_release_of_a_range(
    cli, example: Example, tmp_path: Path, local_index: LocalIndex
) -> None:
    """What the audit tool's description says: a range in ``to`` is audited release by
    release, fetched from the package index (here one on disk, holding minihttp 1.1), and
    the envelope is the command line's. The example's other releases are taken away: kept
    beside its pristine, they would be read there, not fetched."""
    release = example.new
    members = [
        (f"minihttp-1.1/{path.relative_to(release).as_posix()}", path.read_bytes())
        for path in sorted(release.rglob("*"))
        if path.is_file()
    ]
    local_index.publish("minihttp", "minihttp-1.1.tar.gz", make_tar(members))
    for kept in ("minihttp-1.1", "minihttp-1.2"):
        shutil.rmtree(example.root / "upstream" / kept)

    async def conversation(client: ClientSession):
        return await client.call_tool("audit", {**AUDIT, "to": "minihttp>1.0,<2"})

    result = talk(example.root, conversation)
    run = cli("-C", "downstream", "audit", "--to", "minihttp>1.0,<2", "--json",
              cwd=example.root)  # fmt: skip
    assert (result.is_error, run.code) == (False, 1)
    assert result.structured_content == json.loads(run.out)
    assert [release["version"] for release in result.structured_content["releases"]] == ["1.1"]


def test_audit_gives_the_command_lines_envelope(cli, example: Example) -> None:
    async def conversation(client: ClientSession):
        return await client.call_tool("audit", AUDIT)

    before = tree_bytes(example.root)
    result = talk(example.root, conversation)
    assert tree_bytes(example.root) == before  # a read-only tool writes nothing
    run = cli("-C", "downstream", "audit", "--to", "../upstream/minihttp-1.1", "--json",
              cwd=example.root)  # fmt: skip
    assert run.code == 1
    assert result.is_error is False
    assert result.structured_content == json.loads(run.out)
    assert texts(result) == [run.out.strip()]
    assert result.structured_content["exit_code"] == 1
    verdicts = [(v["name"], v["verdict"]) for v in result.structured_content["verdicts"]]
    assert verdicts[:2] == [
        ("retry-backoff-cap.patch", "upstreamed"),
        ("redirect-strip-proxy-auth.patch", "conflict"),
    ]


def _keeps_evidence(example: Example) -> Path:
    """``evidence = true`` in the downstream's configuration; its evidence directory."""
    config = example.downstream / "patchkeeper.toml"
    config.write_text(config.read_text() + "\n[report]\nevidence = true\n")
    return example.downstream / ".patchkeeper" / "evidence"


def test_the_commands_warnings_come_as_one_more_text(example: Example) -> None:
    """A port asked to keep its evidence where it cannot be written: the port's result
    stands, and its warning reaches the agent."""
    evidence = _keeps_evidence(example) / "port.json"
    (example.downstream / ".patchkeeper").write_text("")  # a file where a directory goes
    port = {**AUDIT, "save_evidence": True, "write": True}

    async def conversation(client: ClientSession):
        return await client.call_tool("write_port_start", port)

    result = talk(example.root, conversation)
    assert (result.is_error, result.structured_content["exit_code"]) == (False, 1)
    assert texts(result)[1:] == [
        f"patchkeeper: warning: the evidence was not saved: {evidence}: cannot write: Not a "
        "directory\n  hint: make the downstream directory writable"
    ]


def test_a_read_only_tool_keeps_no_evidence_where_the_configuration_keeps_it(
    cli, example: Example
) -> None:
    """With ``evidence = true`` the command line keeps every audit's result; the audit tool,
    which is read-only, writes nothing: it runs ``audit --no-save-evidence``, as a person
    runs the command to write nothing, and gives that command's envelope."""
    evidence = _keeps_evidence(example)
    target = example.target()
    assert cli("apply", "--target", str(target), cwd=example.downstream).code == 0
    verify = {"directory": "downstream", "target": str(target)}

    async def conversation(client: ClientSession):
        return [
            await client.call_tool("audit", AUDIT),
            await client.call_tool("verify", verify),
        ]

    before = tree_bytes(example.root)
    audit, verified = talk(example.root, conversation)
    assert tree_bytes(example.root) == before
    assert not evidence.exists()
    assert [r.is_error for r in (audit, verified)] == [False, False]
    codes = [r.structured_content["exit_code"] for r in (audit, verified)]
    assert codes == [1, 0]
    line = ("audit", "--to", "../upstream/minihttp-1.1", "--json")
    run = cli("-C", "downstream", *line, "--no-save-evidence", cwd=example.root)
    assert (run.code, audit.structured_content) == (1, json.loads(run.out))
    assert not evidence.exists()
    assert cli("-C", "downstream", *line, cwd=example.root).code == 1
    assert sorted(path.name for path in evidence.iterdir()) == ["audit.json"]


def test_a_read_only_tool_refuses_to_keep_evidence(example: Example) -> None:
    async def conversation(client: ClientSession):
        return [
            await client.call_tool("verify", {"directory": "downstream", "save_evidence": True}),
            await client.call_tool("audit", {**AUDIT, "evidence": True}),
        ]

    before = tree_bytes(example.root)
    saving, configured = talk(example.root, conversation)
    assert tree_bytes(example.root) == before
    assert [r.is_error for r in (saving, configured)] == [True, True]
    assert saving.structured_content["exit_code"] == 2
    assert saving.structured_content["error"]["message"] == (
        "verify is read-only and writes nothing: it takes no save_evidence"
    )
    assert saving.structured_content["error"]["hint"] == (
        "it keeps no evidence, whatever evidence = true in the configuration says; to keep the "
        "result in .patchkeeper/evidence/, run 'patchkeeper verify --save-evidence' (a "
        "command line: no tool runs it) in a terminal"
    )
    assert configured.structured_content["error"]["message"] == (
        "audit is read-only and writes nothing: it takes no evidence"
    )


def test_a_bad_to_is_a_tool_error_carrying_the_envelopes_error(cli, example: Example) -> None:
    async def conversation(client: ClientSession):
        return await client.call_tool("audit", {**AUDIT, "to": "../upstream/minihttp-9.9"})

    result = talk(example.root, conversation)
    hint = (
        f"relative paths start at {example.downstream} (-C DIR's, when given), and there is no "
        f"directory {example.root / 'upstream' / 'minihttp-9.9'}"
    )
    run = cli("-C", "downstream", "audit", "--to", "../upstream/minihttp-9.9", "--json",
              cwd=example.root)  # fmt: skip
    error = {
        "message": "the new upstream (--to) does not exist",
        "file": "../upstream/minihttp-9.9",
        "line": None,
        "hint": hint,
    }
    envelope = {
        "command": "audit",
        "patchkeeper_version": __version__,
        "exit_code": 2,
        "error": error,
    }
    assert json.loads(run.out) == envelope
    # the same envelope, its message and hint naming the call's arguments, not the options
    told = hint.replace("-C DIR's", "`directory` DIR's")
    message = "the new upstream (`to`) does not exist"
    said = {**envelope, "error": {**error, "message": message, "hint": told}}
    assert result.is_error is True
    assert result.structured_content == said
    assert texts(result) == [
        f"patchkeeper: error: ../upstream/minihttp-9.9: {message}\n  hint: {told}",
        json.dumps(said, indent=2),
    ]


def test_a_write_without_write_true_is_refused(example: Example) -> None:
    before = tree_bytes(example.root)

    async def conversation(client: ClientSession):
        refused = [
            await client.call_tool("write_decide", {"directory": "downstream"}),
            await client.call_tool("write_decide", {"directory": "downstream", "write": False}),
            await client.call_tool("write_port_abort", {"directory": "downstream"}),
        ]
        unchanged = tree_bytes(example.root)
        done = await client.call_tool("write_decide", {"directory": "downstream", "write": True})
        return refused, unchanged, done

    refused, unchanged, done = talk(example.root, conversation)
    assert unchanged == before
    for result, tool in zip(refused, ["write_decide", "write_decide", "write_port_abort"]):
        assert result.is_error is True
        assert result.structured_content["exit_code"] == 2
        assert result.structured_content["error"] == {
            "message": f"{tool} writes files and the call did not say write: true",
            "file": None,
            "line": None,
            "hint": f"call {tool} again with write: true once the change is wanted; the "
            "read-only tools (audit, verify, status, ...) show what it would do",
        }
    assert (done.is_error, done.structured_content["command"]) == (False, "decide")
    decisions = example.downstream / "patchkeeper-decisions.toml"
    assert done.structured_content["path"] == str(decisions)
    assert decisions.is_file()


def test_paths_outside_the_root_are_refused(example: Example, tmp_path: Path) -> None:
    root = example.root
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "escape").symlink_to(outside)
    before = tree_bytes(root)
    calls = [
        ("audit", {**AUDIT, "to": str(outside)}, "to", str(outside)),
        ("audit", {**AUDIT, "to": "../../../outside"}, "to", "../../../outside"),
        ("audit", {**AUDIT, "to": "../escape"}, "to", "../escape"),
        ("audit", {**AUDIT, "pristine": "/"}, "pristine", "/"),
        ("verify", {"directory": ".."}, "directory", ".."),
        ("verify", {"directory": "downstream", "target": "../escape"}, "target", "../escape"),
        ("lint", {"foreign_checkout": [f"x={outside}"]}, "foreign_checkout", f"x={outside}"),
        (
            "write_port_start",
            {**AUDIT, "output": "../../outside/new", "write": True},
            "output",
            "../../outside/new",
        ),
    ]

    async def conversation(client: ClientSession):
        return [await client.call_tool(name, arguments) for name, arguments, _, _ in calls]

    results = talk(root, conversation)
    for result, (name, _, option, value) in zip(results, calls):
        assert result.is_error is True, name
        assert result.structured_content["error"] == {
            "message": f"{option} leads outside the server's root {root.resolve()}",
            "file": value,
            "line": None,
            "hint": "pass a path inside the root, or start the server with a --root that holds it",
        }, (name, option)
    assert tree_bytes(root) == before
    assert os.listdir(outside) == []


def test_arguments_the_schema_does_not_list_are_refused(example: Example) -> None:
    async def conversation(client: ClientSession):
        return [
            await client.call_tool("audit", {**AUDIT, "fuzz": 2}),
            await client.call_tool("audit", {**AUDIT, "markdown": "audit.md"}),
            await client.call_tool("audit", {"directory": "downstream"}),
            await client.call_tool("upgrade", {}),
        ]

    unknown, markdown, missing, no_tool = talk(example.root, conversation)
    assert [r.is_error for r in (unknown, markdown, missing, no_tool)] == [True] * 4
    assert unknown.structured_content["error"]["message"] == (
        "audit: Additional properties are not allowed ('fuzz' was unexpected)"
    )
    assert markdown.structured_content["error"] == {
        "message": "audit is read-only and writes nothing: it takes no markdown",
        "file": None,
        "line": None,
        "hint": "the call's result is the JSON envelope; to write the Markdown report, run "
        "'patchkeeper audit --markdown FILE' (a command line: no tool runs it) in a terminal",
    }
    assert missing.structured_content["error"]["message"] == "audit: 'to' is a required property"
    assert no_tool.structured_content["command"] == ""
    assert no_tool.structured_content["error"]["message"] == "no tool 'upgrade'"
    assert not (example.root / "audit.md").exists()


def test_port_abort_with_no_port_started_says_so(example: Example) -> None:
    async def conversation(client: ClientSession):
        return await client.call_tool(
            "write_port_abort", {"directory": "downstream", "write": True}
        )

    result = talk(example.root, conversation)
    assert result.is_error is True
    assert result.structured_content["error"] == {
        "message": "no port is in progress",
        "file": str(example.downstream / ".patchkeeper-port"),
        "line": None,
        "hint": "no port was started here, or the last one finished: the series is at pin "
        '1.0; to port the series, call write_port_start (to: "NEWPIN", write: true)',
    }


def test_a_usage_error_of_the_command_says_what_to_do(example: Example) -> None:
    """A call the server lets through but the command's option parser refuses (a
    ``foreign_checkout`` that is no directory) came back as a tool error with no hint, where
    the command line says ``Try 'patchkeeper lint --help' for help.``: the envelope's hint
    says it now, for every usage error (to a tool's call: read the tool's input schema). A ``directory`` that is not one is refused by the
    server before anything runs, naming the argument (not the command line's ``-C``), the
    place looked at and where it is read from."""
    before = tree_bytes(example.root)

    async def conversation(client: ClientSession):
        return [
            await client.call_tool("lint", {"directory": "nosuch"}),
            await client.call_tool(
                "lint", {"directory": "downstream", "foreign_checkout": ["x=../nosuch"]}
            ),
            await client.call_tool("audit", {"directory": "downstream/patches/series", "to": "x"}),
            await client.call_tool("audit", {"directory": "pipe", "to": "x"}),
        ]

    os.mkfifo(example.root / "pipe")
    no_directory, no_checkout, a_file, a_pipe = talk(example.root, conversation)
    series = example.downstream / "patches" / "series"
    assert (a_file.is_error, a_file.structured_content["error"]["message"]) == (
        True,
        f"directory names a regular file there, not a directory ({series})",
    )
    assert (a_pipe.is_error, a_pipe.structured_content["error"]["message"]) == (
        True,
        f"directory names a named pipe there, not a directory ({example.root / 'pipe'})",
    )
    hint = (
        f"directory is relative to the server's root {example.root}: pass the downstream's "
        "directory (the one holding patchkeeper.toml), or leave it out for the root itself"
    )
    message = f"directory names nothing there ({example.root / 'nosuch'})"
    assert (no_directory.is_error, no_directory.structured_content["error"]) == (
        True,
        {"message": message, "file": "nosuch", "line": None, "hint": hint},
    )
    assert texts(no_directory)[0] == f"patchkeeper: error: nosuch: {message}\n  hint: {hint}"
    assert (no_checkout.is_error, no_checkout.structured_content["error"]["hint"]) == (
        True,
        "read the description and input schema of lint (tools/list) to see how to call it",
    )
    assert tree_bytes(example.root) == before


def test_a_call_with_what_the_schema_requires_is_one_the_command_takes(
    example: Example,
) -> None:
    """``write_port_start`` and ``write_upgrade`` listed ``to`` as optional (the command's
    ``--to`` is, for ``--continue`` and ``--abort``, which are other tools), so a client
    building a call from the schema ran the command only to hear "port needs --to NEWPIN".
    Every tool, called with its schema's required parameters only, runs a command that does
    not ask for one more option; without ``to``, the two are refused before anything runs."""
    values = {"to": "../upstream/minihttp-1.1", "from": "../upstream/minihttp-1.0"}

    async def conversation(client: ClientSession):
        tools = (await client.list_tools()).tools
        calls = []
        for tool in tools:
            if tool.name == "result_page":  # runs no command: the pages of a result kept
                continue
            arguments: dict[str, object] = {"directory": "downstream"}
            arguments.update({key: values[key] for key in tool.input_schema["required"]})
            if "write" in tool.input_schema["properties"]:
                arguments["write"] = True
            calls.append((tool.name, await client.call_tool(tool.name, arguments)))
        missing = [
            await client.call_tool(name, {"directory": "downstream", "write": True})
            for name in ("write_port_start", "write_upgrade")
        ]
        return calls, missing

    calls, missing = talk(example.root, conversation)
    assert len(calls) == 19
    asked = [
        (name, result.structured_content["error"]["message"])
        for name, result in calls
        if "needs --" in result.structured_content.get("error", {}).get("message", "")
    ]
    assert asked == []
    assert [result.structured_content["error"] for result in missing] == [
        {
            "message": f"{name}: 'to' is a required property",
            "file": None,
            "line": None,
            "hint": "call it with the arguments its input schema lists (tools/list)",
        }
        for name in ("write_port_start", "write_upgrade")
    ]


def test_a_value_that_reads_as_an_option_is_quoted_as_given(example: Example) -> None:
    """The advice is said in tools, its options becoming arguments; a call's own value that
    looks like an option (``to: "--help"``, a typo'd ``foreign_checkout``) was said in tools
    too, the message then naming a value nobody gave ("the tool's description ... is an
    option"). An empty ``directory`` reached the command line as ``-C ''``, refused in the
    command line's words (``-C needs a value``, and a garbled ``--help`` hint)."""
    before = tree_bytes(example.root)

    async def conversation(client: ClientSession):
        return [
            await client.call_tool("audit", {"directory": "downstream", "to": "--help"}),
            await client.call_tool(
                "lint", {"directory": "downstream", "foreign_checkout": ["--help"]}
            ),
            await client.call_tool("lint", {"directory": ""}),
        ]

    to_help, checkout_help, empty = talk(example.root, conversation)
    assert (to_help.is_error, to_help.structured_content["error"]["message"]) == (
        True,
        "`to` has no value: --help is an option, which `to` took as its value",
    )
    assert (checkout_help.is_error, checkout_help.structured_content["error"]) == (
        True,
        {
            "message": "Invalid value for `foreign_checkout`: --help: no such directory; give "
            "the checkout the foreign diffs and vendored trees are compared with",
            "file": None,
            "line": None,
            "hint": "read the description and input schema of lint (tools/list) to see how "
            "to call it",
        },
    )
    hint = (
        f"directory is relative to the server's root {example.root}: pass the downstream's "
        "directory (the one holding patchkeeper.toml), or leave it out for the root itself"
    )
    assert (empty.is_error, empty.structured_content["error"]) == (
        True,
        {"message": "directory is empty", "file": None, "line": None, "hint": hint},
    )
    assert texts(empty)[0] == f"patchkeeper: error: directory is empty\n  hint: {hint}"
    assert tree_bytes(example.root) == before


def test_an_interpreter_is_a_path_inside_the_root_never_a_name_on_path(
    example: Example,
) -> None:
    """A bare name (``python3``) would be looked up on ``PATH`` by the command, outside the
    root; ``./NAME`` is the file in ``directory``, which the command runs."""
    root = example.root
    script = root / "downstream" / "python"
    script.write_text("#!/bin/sh\nexit 1\n")
    script.chmod(0o755)
    before = tree_bytes(root)
    calls = [
        ("verify", {"directory": "downstream", "python": "python3"}),
        ("report_check", {"directory": "downstream", "python": "python3"}),
        ("write_apply", {"directory": "downstream", "python": "python", "write": True}),
        ("verify", {"directory": "downstream", "python": "./python"}),
    ]

    async def conversation(client: ClientSession):
        return [await client.call_tool(name, arguments) for name, arguments in calls]

    results = talk(root, conversation)
    for result, (name, arguments) in zip(results[:3], calls[:3]):
        assert result.is_error is True, name
        assert result.structured_content["error"] == {
            "message": "python is a bare name, which the command looks up on PATH, outside "
            "the server's root",
            "file": arguments["python"],
            "line": None,
            "hint": f"give the interpreter's path relative to directory: ./{arguments['python']} "
            "for the file there, .venv/bin/python for a virtual environment's",
        }, name
    ran = results[3]
    assert ran.is_error is True
    assert ran.structured_content["error"]["message"] == (
        "the interpreter failed to locate minihttp (exit 1) and wrote nothing on standard error"
    )
    assert ran.structured_content["error"]["file"] == str(script.resolve())
    assert tree_bytes(root) == before


def test_an_empty_name_is_refused_before_anything_runs(example: Example) -> None:
    """``branch: ""`` read as no branch: ``write_upgrade`` wrote its steps on the files
    checked out instead of on a new branch."""
    root = example.root
    before = tree_bytes(root)
    calls = [
        ("write_upgrade", {**AUDIT, "branch": "", "write": True}, "branch"),
        ("runtime_inventory", {"directory": "downstream", "package": ""}, "package"),
    ]

    async def conversation(client: ClientSession):
        return [await client.call_tool(name, arguments) for name, arguments, _ in calls]

    results = talk(root, conversation)
    for result, (name, _, key) in zip(results, calls):
        assert result.is_error is True, name
        assert result.structured_content["exit_code"] == 2, name
        assert result.structured_content["error"]["message"] == f"`{key}` needs a value", name
    assert tree_bytes(root) == before


def test_a_runtime_tools_path_typed_wrong_is_named_before_the_package(example: Example) -> None:
    """The example configures no plugin package: a bad ``plugin``, ``from``, ``to`` or
    ``patch_dir`` was answered "the plugin package is not configured", naming none of them."""
    down = example.downstream
    hint = (
        "give a directory, a release's sdist or wheel file, or a pinned requirement such as "
        "vllm==0.32.0"
    )
    calls = [
        (
            "runtime_inventory",
            {"directory": "downstream", "plugin": "nope"},
            f"the plugin directory {down / 'nope'} does not exist",
            'pass `plugin` DIR (the directory holding the package), or set root = "DIR" in '
            "[runtime]",
        ),
        (
            "runtime_audit",
            {"directory": "downstream", "from": "./nope", "to": "../upstream/minihttp-1.1"},
            "the old upstream (`from`): no such directory: ./nope",
            hint,
        ),
        (
            "runtime_port",
            {"directory": "downstream", "from": "../upstream/minihttp-1.0", "to": "./nope"},
            "the new upstream (`to`): no such directory: ./nope",
            hint,
        ),
        (
            "runtime_inventory",
            {"directory": "downstream", "patch_dir": "x/y"},
            f"the patch directory x/y does not exist under {down}",
            f"give `patch_dir` relative to the plugin directory {down} (the folder holding the "
            "patch modules, as PACKAGE/patches), and the package: `package` NAME or package = "
            '"NAME" in [runtime]',
        ),
    ]
    before = tree_bytes(example.root)

    async def conversation(client: ClientSession):
        return [await client.call_tool(name, arguments) for name, arguments, _, _ in calls]

    results = talk(example.root, conversation)
    for result, (name, _, message, hint_given) in zip(results, calls):
        assert result.is_error is True, name
        assert result.structured_content["exit_code"] == 2, name
        assert result.structured_content["error"] == {
            "message": message,
            "file": None,
            "line": None,
            "hint": hint_given,
        }, name
    assert tree_bytes(example.root) == before


def test_a_missing_to_is_named_before_the_port_or_upgrade_in_progress(example: Example) -> None:
    """A second ``write_port_start`` whose ``to`` names nothing was answered "a port is
    already in progress", which the agent could only take for the state to resolve."""
    down = example.downstream
    start = {"directory": "downstream", "to": "../upstream/minihttp-1.1", "write": True}
    missing = {**start, "to": "../upstream/minihttp-9"}
    calls = [
        ("write_port_start", start),
        ("write_port_start", missing),
        ("write_port_start", {**start, "from": "./nope"}),
        ("write_port_start", start),
        ("write_port_abort", {"directory": "downstream", "write": True}),
        ("write_upgrade", start),
        ("write_upgrade", missing),
        ("write_upgrade_abort", {"directory": "downstream", "write": True}),
    ]

    async def conversation(client: ClientSession):
        return [await client.call_tool(name, arguments) for name, arguments in calls]

    results = talk(example.root, conversation)
    started = [results[i].structured_content.get("outcome") for i in (0, 5)]
    assert started == ["stopped", "stopped"]
    where = (
        f"relative paths start at {down} (`directory` DIR's, when given), and there is no "
        "directory "
    )
    gone = {
        "message": "the new upstream (`to`) does not exist",
        "file": "../upstream/minihttp-9",
        "line": None,
        "hint": where + str(example.root / "upstream" / "minihttp-9"),
    }
    assert [result.structured_content.get("error") for result in results[1:4]] == [
        gone,
        {
            "message": "the old upstream (`from`, or the configured pin) does not exist",
            "file": "nope",
            "line": None,
            "hint": where + str(down / "nope"),
        },
        {
            "message": "a port is already in progress",
            "file": str(down / ".patchkeeper-port"),
            "line": None,
            "hint": "call write_port_continue (write: true) or write_port_abort (write: true)",
        },
    ]
    assert results[6].structured_content.get("error") == gone
    assert [results[4].is_error, results[7].is_error] == [False, False]


def test_an_empty_value_is_refused_as_needing_one_before_other_checks(example: Example) -> None:
    """``python: ""`` was read as a bare name (a look-up on PATH), and to a writing tool as
    no ``python`` at all ("without target writes to the installed upstream"); the command
    line refuses it as "--python needs a value", and so does the server, by the same rule."""
    root = example.root
    before = tree_bytes(root)
    calls = [
        ("write_apply", {"directory": "downstream", "python": "", "write": True}, "python"),
        ("verify", {"directory": "downstream", "python": " "}, "python"),
        ("write_apply", {"directory": "downstream", "target": "", "write": True}, "target"),
        ("audit", {"directory": "downstream", "to": ""}, "to"),
        ("runtime_inventory", {"directory": "downstream", "patch_dir": ""}, "patch_dir"),
    ]

    async def conversation(client: ClientSession):
        return [await client.call_tool(name, arguments) for name, arguments, _ in calls]

    results = talk(root, conversation)
    for result, (name, _, key) in zip(results, calls):
        left_out = "" if key == "to" else ", or leave it out"
        assert result.is_error is True, name
        assert result.structured_content["exit_code"] == 2, name
        assert result.structured_content["error"] == {
            "message": f"`{key}` needs a value",
            "file": None,
            "line": None,
            "hint": f"give {key} a value{left_out} (tools/list describes it)",
        }, name
    assert tree_bytes(root) == before


def test_descriptions_name_arguments_not_command_line_options(example: Example) -> None:
    """A tool's description and its parameters' help name the options they mention as the
    tool's arguments (a call passes ``branch``, never ``--branch``); only the command line the
    tool runs keeps its options."""

    async def conversation(client: ClientSession):
        return {tool.name: tool for tool in (await client.list_tools()).tools}

    tools = talk(example.root, conversation)
    assert tools["write_upgrade"].description == (
        "Audit, decide, port and record an upgrade in one go (`branch`: one commit per step); "
        "stops at a conflict and lists what is left for a person. Runs `patchkeeper upgrade "
        "--json` in the server's root and returns its JSON envelope. Writes files: refused "
        "unless the call sets write: true."
    )
    assert tools["horizon"].description.startswith(
        "Audit every release of a range (`to` 'PROJECT>=A,<B'): the upgrade horizon,"
    )
    retire = tools["write_port_start"].input_schema["properties"]["retire"]["description"]
    assert retire == (
        "Record upstreamed patches in the ledger's Retired section (with `in_place: true`)."
    )
    for name in ("verify", "status", "write_apply"):
        target = tools[name].input_schema["properties"]["target"]["description"]
        assert "installed where `python` says," in target, name
    for tool in tools.values():
        if tool.name == "result_page":  # runs no command
            assert "--" not in tool.description
            continue
        said = tool.description.replace(tool.description.split("Runs `")[1].split("`")[0], "")
        helps = [prop.get("description", "") for prop in tool.input_schema["properties"].values()]
        assert not re.search(r"(?<![\w-])--[a-z]", " ".join([said, *helps])), tool.name


def test_each_tools_annotations_say_what_it_does(example: Example) -> None:
    """The annotations a client reads through tools/list, one tool a row: ``readOnlyHint``,
    ``destructiveHint`` (a writing tool's), ``idempotentHint`` and ``openWorldHint``. A tool
    taking an upstream release (``to``, ``from``, ``pristine``) fetches a requirement from
    the package indexes; so do the ``_continue`` tools, which read again the releases the
    port or upgrade was started with (fetched when the cache lost them). An ``_abort`` is
    idempotent: the second finds nothing left to drop, and changes nothing."""

    async def conversation(client: ClientSession):
        return {tool.name: tool for tool in (await client.list_tools()).tools}

    tools = talk(example.root, conversation)
    said = {
        name: (
            tool.annotations.read_only_hint,
            tool.annotations.destructive_hint,
            tool.annotations.idempotent_hint,
            tool.annotations.open_world_hint,
        )
        for name, tool in tools.items()
    }
    assert said == {
        "audit": (True, None, True, True),
        "horizon": (True, None, True, True),
        "verify": (True, None, True, True),
        "status": (True, None, True, True),
        "lint": (True, None, True, False),
        "ledger_check": (True, None, True, False),
        "runtime_inventory": (True, None, True, False),
        "runtime_audit": (True, None, True, True),
        "runtime_port": (True, None, True, True),
        "report_check": (True, None, True, False),
        "write_apply": (False, True, False, False),
        "write_port_start": (False, True, False, True),
        "write_port_continue": (False, True, False, True),
        "write_port_abort": (False, True, True, False),
        "write_runtime_port": (False, True, False, True),
        "write_decide": (False, False, False, False),
        "write_upgrade": (False, True, False, True),
        "write_upgrade_continue": (False, True, False, True),
        "write_upgrade_abort": (False, True, True, False),
        "result_page": (True, None, True, False),
    }
