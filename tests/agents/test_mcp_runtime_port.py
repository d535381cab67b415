"""The read-only ``runtime_port`` tool: the runtime port's diff, seen without writing it.

``write_runtime_port`` always runs ``runtime port --write``; an agent told to look at the
update first ("leave --write out") needs the diff alone. ``runtime_port`` runs the same
command without ``--write`` (nor ``--output``, which writes a file) and returns its envelope,
the diff in it, changing nothing; ``write_runtime_port`` then writes that same diff. The
server is started as a subprocess and talked to with the ``mcp`` SDK's own client, on a copy
of the runtime fixture plugin and its two upstream releases."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp_support import talk

from helpers import tree_bytes

FIXTURES = Path(__file__).parent.parent / "runtime" / "fixtures"
PORT = {"directory": "plugin", "from": "../upstream-1.0", "to": "../upstream-2.0"}


@pytest.fixture
def root(tmp_path: Path, private_cache: Path) -> Path:
    """The server's root: the fixture plugin and its upstream releases, a private cache."""
    work = tmp_path / "root"
    for name in ("plugin", "upstream-1.0", "upstream-2.0"):
        shutil.copytree(FIXTURES / name, work / name)
    return work


def test_runtime_port_shows_the_diff_and_writes_nothing(cli, root: Path) -> None:
    async def conversation(client: ClientSession):
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        shown = await client.call_tool("runtime_port", PORT)
        unchanged = tree_bytes(root)
        refused = await client.call_tool("runtime_port", {**PORT, "output": "update.diff"})
        written = await client.call_tool("write_runtime_port", {**PORT, "write": True})
        return tools["runtime_port"], shown, unchanged, refused, written

    line = ("runtime", "port", "--from", "../upstream-1.0", "--to", "../upstream-2.0", "--json")
    run = cli("-C", "plugin", *line, cwd=root)
    assert run.code == 1
    printed = json.loads(run.out)["diff"]
    before = tree_bytes(root)
    tool, shown, unchanged, refused, written = talk(root, conversation)
    assert (tool.annotations.read_only_hint, tool.annotations.destructive_hint) == (True, None)
    assert list(tool.input_schema["properties"]) == [
        "config",
        "directory",
        "from",
        "to",
        "plugin",
        "package",
        "patch_dir",
    ]
    assert tool.description == (
        "Show the mechanical update of the runtime patches (merged copies, moved targets, "
        "gates, headers) without applying it: the envelope's diff is what write_runtime_port "
        "would write to the plugin's files. Runs `patchkeeper runtime port --json` in the "
        "server's root and returns its JSON envelope. Read-only: writes nothing."
    )
    assert unchanged == before
    envelope = shown.structured_content
    assert (shown.is_error, envelope["command"], envelope["exit_code"]) == (
        False,
        "runtime port",
        1,
    )
    assert (envelope["written"], envelope["output"]) == (False, "")
    assert envelope["files"] == [
        "metaplug/patch/bugfix/fix_sampler.py",
        "metaplug/patch/bugfix/fix_scheduler.py",
        "metaplug/patch/performance/kernels.py",
    ]
    assert envelope["diff"] == printed
    assert "+def create(cls, name=None):\n" in envelope["diff"]
    assert refused.is_error is True
    assert refused.structured_content["error"]["message"] == (
        "runtime_port is read-only and writes nothing: it takes no output"
    )
    assert refused.structured_content["error"]["hint"] == (
        "the call's result is the JSON envelope, the diff in it; to write the diff to a file, "
        "run 'patchkeeper runtime port --output FILE' (a command line: no tool runs it) in a "
        "terminal"
    )
    assert written.structured_content["written"] is True
    assert written.structured_content["diff"] == envelope["diff"]
    assert tree_bytes(root) != before
