"""A name longer than the file system allows, through the MCP tools: a ``directory`` of 300
letters stopped the server's own path check on ``OSError: File name too long``, and the
call came back as a failed request with the server's traceback, not as a tool error; a
``package`` of 300 letters reached the command, which stopped as a bug (exit 3). Both are
tool errors now (exit 2) naming the path and what to do, and nothing runs or is written. The
plugin is written by the test, in the shape of a KV-offload connector."""

from __future__ import annotations

from pathlib import Path

from mcp import ClientSession
from mcp_support import talk, texts

from helpers import tree_bytes, write_files

LONG = "A" * 300

HINT = (
    "a name in that path is longer than the file system allows (most allow 255 bytes a name, "
    "4096 a path): check the option or the configuration key that gives it, and pass a "
    "shorter one"
)


def test_a_name_too_long_is_a_tool_error(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "root",
        {
            "offload/offload_kv/__init__.py": "from offload_kv._patches import install\n",
            "offload/offload_kv/_patches.py": (
                "from vllm.v1.core.sched.scheduler import Scheduler\n\n\n"
                "def _split(self, request):\n    return request\n\n\n"
                "def install():\n    Scheduler._split = _split\n"
            ),
        },
    )
    before = tree_bytes(root)

    async def conversation(client: ClientSession):
        return [
            await client.call_tool(
                "runtime_inventory", {"directory": LONG, "plugin": ".", "package": "offload_kv"}
            ),
            await client.call_tool("runtime_inventory", {"plugin": "offload", "package": LONG}),
        ]

    directory, package = talk(root, conversation)
    message = "File name too long; patchkeeper stopped here"
    assert (directory.is_error, directory.structured_content["exit_code"]) == (True, 2)
    assert directory.structured_content["error"] == {
        "message": message,
        "file": str(root / LONG),
        "line": None,
        "hint": HINT,
    }
    assert texts(directory)[0] == f"patchkeeper: error: {root / LONG}: {message}\n  hint: {HINT}"
    assert (package.is_error, package.structured_content["exit_code"]) == (True, 2)
    assert package.structured_content["error"] == {
        "message": message,
        "file": str(root / "offload" / LONG),
        "line": None,
        "hint": HINT,
    }
    assert tree_bytes(root) == before
