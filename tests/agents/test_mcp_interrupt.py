"""Ctrl-C ends ``patchkeeper mcp`` with exit code 130, as it ends every command, and leaves
no process behind: a running call gets the Ctrl-C too and rolls back as on the command line.
Before: the server lived on until the client closed its standard input (the SDK reads it
in a thread no interrupt reaches)."""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from mcp_support import server_parameters

from helpers import Example, tree_bytes


def _start(root: Path) -> subprocess.Popen[bytes]:
    """A server for ``root`` started as the SDK's client starts it
    (:func:`mcp_support.server_parameters`), in a session of its own (a Ctrl-C sent to it
    reaches it alone), initialised by hand."""
    params = server_parameters(root)
    server = subprocess.Popen(
        [params.command, *params.args],
        env=params.env,
        cwd=params.cwd,
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


def _reply(server: subprocess.Popen[bytes], timeout: float) -> dict[str, object] | None:
    """The server's next message, or ``None`` when none comes within ``timeout`` seconds."""
    assert server.stdout is not None
    ready, _, _ = select.select([server.stdout], [], [], timeout)
    if not ready:
        return None
    message: dict[str, object] = json.loads(server.stdout.readline())
    return message


def _ended(pid: int) -> bool:
    """Whether the process ``pid`` has ended (gone, or a zombie no one has reaped yet)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _wait_for(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _written(pid_file: Path) -> bool:
    """Whether the interpreter has written its whole process id: the shell creates the file
    before it writes the line, so a file that exists may still be empty."""
    try:
        return pid_file.read_text().endswith("\n")
    except FileNotFoundError:
        return False


def _interpreter(root: Path, pid_file: Path, answer_probe: bool) -> str:
    """A ``python`` inside the root that sleeps a minute, its process id in ``pid_file``;
    with ``answer_probe``, it first answers the server's question where it installs (a
    directory inside the root) at once, and sleeps when the command itself runs it."""
    script = root / "env" / "bin" / "python"
    script.parent.mkdir(parents=True)
    probe = f'case "$3" in *sysconfig*) echo {root}/env/lib; echo {root}/env/lib; exit 0;; esac\n'
    script.write_text(
        "#!/bin/sh\n" + (probe if answer_probe else "") + f'echo $$ > "{pid_file}"\nexec sleep 60\n'
    )
    script.chmod(0o755)
    return "../env/bin/python"


@contextmanager
def _waiting_call(
    root: Path, tmp_path: Path, answer_probe: bool
) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """A server for ``root`` with a ``write_apply`` call (request 2) waiting on an
    interpreter that sleeps (:func:`_interpreter`, ``answer_probe`` passed on), once that
    interpreter has written its process id: the server and the file holding the id. At the
    end the server's standard input is closed: it must exit 0 and leave ``root`` as it
    found it."""
    pid_file = tmp_path / "interpreter.pid"
    python = _interpreter(root, pid_file, answer_probe)
    before = tree_bytes(root)
    server = _start(root)
    try:
        arguments = {"directory": "downstream", "python": python, "write": True}
        _send(server, 2, "tools/call", {"name": "write_apply", "arguments": arguments})
        assert _wait_for(lambda: _written(pid_file), 30)
        yield server, pid_file
    finally:
        assert server.stdin is not None
        server.stdin.close()
        assert server.wait(timeout=30) == 0
    assert tree_bytes(root) == before


def test_a_slow_interpreter_holds_up_no_other_request(example: Example, tmp_path: Path) -> None:
    """The server asked a call's ``python`` where it installs in the middle of its event
    loop: an interpreter slow to answer held up every other request (``tools/list`` waited
    a minute) and the call could not be cancelled. The question runs as a process of its
    own: the server answers meanwhile, and a cancellation ends it."""
    with _waiting_call(example.root, tmp_path, answer_probe=False) as (server, pid_file):
        _send(server, 3, "tools/list", {})
        reply = _reply(server, 20)
        assert reply is not None and reply["id"] == 3
        _send(server, None, "notifications/cancelled", {"requestId": 2, "reason": "stop"})
        assert _wait_for(lambda: _ended(int(pid_file.read_text())), 20)
        _send(server, 4, "ping", {})
        reply = _reply(server, 20)
        assert reply is not None and reply["id"] == 4


def test_a_cancelled_call_ends_its_command_as_ctrl_c_does(example: Example, tmp_path: Path) -> None:
    """A call the client cancels (``notifications/cancelled``) killed its command at once:
    cut short wherever it was, a write half done, and the processes it had started left
    running (here the interpreter it asked where the upstream is installed, alive a minute
    later under init). The command gets a Ctrl-C instead, and ends as on the command line:
    its writes finished or rolled back, its processes ended."""
    with _waiting_call(example.root, tmp_path, answer_probe=True) as (server, pid_file):
        calls = _children(server.pid)
        assert len(calls) == 1
        _send(server, None, "notifications/cancelled", {"requestId": 2, "reason": "stop"})
        assert _wait_for(lambda: _ended(int(pid_file.read_text())), 20)
        assert _wait_for(lambda: _ended(int(calls[0])), 20)
        _send(server, 3, "ping", {})
        reply = _reply(server, 20)
        assert reply is not None and reply["id"] == 3
