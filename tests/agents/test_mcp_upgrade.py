"""A whole upgrade of the bundled example (minihttp 1.0 -> 1.1) through the MCP tools alone,
as an agent does it: audit, start the port, resolve each conflict by writing the file the
port left, continue, apply the new series to a 1.1 tree and verify it. The only files the
test writes itself are those an agent writes: the resolutions and the tree to check."""

from __future__ import annotations

import shutil
from typing import Any

import pytest
from mcp import ClientSession
from mcp_support import talk

from helpers import Example, resolve

PROXY = b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", "Proxy-Authorization"])\n'
API_KEY = (
    b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", "Proxy-Authorization", '
    b'"X-Api-Key"])\n'
)
DOWN = {"directory": "downstream"}


def verdicts_of(port: dict[str, Any]) -> list[tuple[str, str]]:
    """The name and verdict of each patch of a port's report."""
    return [(p["name"], p["verdict"]) for p in port["patches"]]


@pytest.mark.slow
def test_an_upgrade_through_the_mcp_tools(example: Example) -> None:
    conflict = example.downstream / ".patchkeeper-port" / "conflict" / "files" / "retry.py"
    target = example.root / "target-1.1"

    async def call(client: ClientSession, name: str, **arguments: Any) -> dict[str, Any]:
        result = await client.call_tool(name, {**DOWN, **arguments})
        assert result.is_error is False, result.content[0].text
        envelope: dict[str, Any] = result.structured_content
        return envelope

    async def conversation(client: ClientSession) -> list[dict[str, Any]]:
        steps = [await call(client, "audit", to="../upstream/minihttp-1.1")]
        new = "../upstream/minihttp-1.1"
        steps.append(await call(client, "write_port_start", to=new, in_place=True, write=True))
        resolve(conflict, PROXY)  # the agent writes the resolution
        steps.append(await call(client, "write_port_continue", write=True))
        resolve(conflict, API_KEY)
        steps.append(await call(client, "write_port_continue", write=True))
        shutil.copytree(example.new, target)  # a fresh 1.1 tree to check the new series on
        steps.append(await call(client, "write_apply", target="../target-1.1", write=True))
        steps.append(await call(client, "verify", target="../target-1.1"))
        steps.append(await call(client, "ledger_check"))
        return steps

    audit, start, first, second, apply, verify, ledger = talk(example.root, conversation)
    assert [(v["name"], v["verdict"]) for v in audit["verdicts"]] == [
        ("retry-backoff-cap.patch", "upstreamed"),
        ("redirect-strip-proxy-auth.patch", "conflict"),
        ("headers-merge-order.patch", "target gone"),
        ("client-describe-version.patch", "offset"),
        ("metrics-redirects.patch", "offset"),
        ("metrics-same-host.patch", "clean"),
        ("redirect-strip-api-key.patch", "blocked"),
    ]
    assert (start["exit_code"], start["outcome"], start["stopped_at"]) == (
        1,
        "stopped",
        "redirect-strip-proxy-auth.patch",
    )
    assert (first["exit_code"], first["stopped_at"]) == (1, "redirect-strip-api-key.patch")
    assert (second["exit_code"], second["stopped_at"]) == (0, None)
    assert verdicts_of(second) == [
        ("retry-backoff-cap.patch", "upstreamed"),
        ("redirect-strip-proxy-auth.patch", "resolved"),
        ("headers-merge-order.patch", "merged"),
        ("client-describe-version.patch", "offset"),
        ("metrics-redirects.patch", "offset"),
        ("metrics-same-host.patch", "clean"),
        ("redirect-strip-api-key.patch", "resolved"),
    ]
    assert not (example.downstream / ".patchkeeper-port").exists()
    assert 'pin = "1.1"\n' in (example.downstream / "patchkeeper.toml").read_text()
    assert (apply["exit_code"], apply["outcome"]) == (0, "applied")
    state = verify["state"]
    assert verify["exit_code"] == 0
    assert [(p["name"], p["state"]) for p in state["patches"]] == [
        (name, "applied") for name, _ in verdicts_of(second)[1:]
    ]
    assert [f["drifted"] for f in state["files"]] == [False] * len(state["files"])
    assert state["pristine_label"] == f"directory {example.new}"
    assert ledger["exit_code"] == 0
    assert (target / "minihttp" / "retry.py").read_bytes().count(API_KEY) == 1
