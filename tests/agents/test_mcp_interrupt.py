"""Ctrl-C ends ``patchkeeper mcp`` with exit code 130, as it ends every command, and leaves
no process behind: a running call gets the Ctrl-C too and rolls back as on the command line.
Before: the server lived on until the client closed its standard input (the SDK reads it
in a thread no interrupt reaches)."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from helpers import Example, tree_bytes


def _start(root: Path) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        [sys.executable, "-m", "patchkeeper", "mcp", "--root", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    _send(
        server,
        1,
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    )
    assert server.stdout is not None
    assert json.loads(server.stdout.readline())["id"] == 1
    _send(server, None, "notifications/initialized", None)
    return server


def _send(server: subprocess.Popen[bytes], ident: int | None, method: str, params: object) -> None:
    message: dict[str, object] = {"jsonrpc": "2.0", "method": method}
    if ident is not None:
        message["id"] = ident
    if params is not None:
        message["params"] = params
    assert server.stdin is not None
    server.stdin.write(json.dumps(message).encode() + b"\n")
    server.stdin.flush()


def _children(pid: int) -> list[str]:
    return subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()


def _interrupt(server: subprocess.Popen[bytes]) -> tuple[int, bytes]:
    """Ctrl-C to the server alone (an agent's host stopping it), with stdin left open."""
    os.kill(server.pid, signal.SIGINT)
    try:
        code = server.wait(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert server.stderr is not None
    return code, server.stderr.read()


def test_ctrl_c_ends_an_idle_server(example: Example) -> None:
    server = _start(example.root)
    assert _interrupt(server) == (130, b"patchkeeper: interrupted\n")


def test_ctrl_c_reaches_a_running_call(example: Example) -> None:
    target = example.target()
    before = tree_bytes(target)
    config = example.downstream / "patchkeeper.toml"
    config.write_text("lock-timeout = 120\n" + config.read_text())
    # another process holds the target: the call waits for it, as long as the lock-timeout
    holder = os.open(target, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        server = _start(example.root)
        arguments = {"directory": "downstream", "target": "../target", "write": True}
        _send(server, 2, "tools/call", {"name": "write_apply", "arguments": arguments})
        deadline = time.monotonic() + 30
        while not (calls := _children(server.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(calls) == 1
        started = time.monotonic()
        assert _interrupt(server) == (130, b"patchkeeper: interrupted\n")
        assert time.monotonic() - started < 30
        assert not Path(f"/proc/{calls[0]}").exists()
    finally:
        os.close(holder)
    assert tree_bytes(target) == before


def test_ctrl_c_while_a_call_starts_is_kept_for_its_process() -> None:
    """A Ctrl-C that comes while a call's process is being started (its process id not yet
    known) is kept, not acted on: the process would miss it and outlive the server."""
    from patchkeeper.agents import server

    server._STARTING.count = 1
    try:
        server._interrupted(signal.SIGINT, None)
        assert server._STARTING.interrupted is True
    finally:
        server._STARTING.count = 0
        server._STARTING.interrupted = False
