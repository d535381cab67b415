"""``patchkeeper mcp``: the Model Context Protocol server, over standard input and output.

Built on the ``mcp`` SDK's low-level server (``mcp.server.lowlevel.Server``, 2.x), which takes
the ``tools/list`` and ``tools/call`` handlers at construction. ``tools/list`` answers the
tools of :data:`patchkeeper.agents.tools.TOOLS`, each with its input schema (read from the
click command), its output schema (cut from the ``--json`` contract) and its MCP annotations.
``tools/call`` checks the call (:mod:`patchkeeper.agents.calls`), then runs the command as
``python -m patchkeeper ... --json`` in a subprocess whose working directory is the root: the
server keeps no state of the commands', and each call is the command line's very run, with
its output, locks and exit code. The answer carries the envelope as structured content and
as JSON text; an envelope with an ``error`` (exit code 2, 3 or 130), or a refused call, is an
MCP tool error (``isError: true``) whose first text says the error's file, line and hint.
Every result's advice (hints, next steps) names tools and arguments, not command lines
(:mod:`patchkeeper.agents.hints`).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from patchkeeper import __version__
from patchkeeper.agents.calls import (
    ENVIRONMENT_PROBE,
    CallRefused,
    check_arguments,
    check_configured_places,
    check_environment,
    check_installed_target,
    check_paths,
    check_write,
    command_line,
)
from patchkeeper.agents.hints import translate, translate_envelope
from patchkeeper.agents.pages import KEPT, MAX_RESULT_CHARS, PAGE_SCHEMA, PAGE_TOOL, Pages
from patchkeeper.agents.schemas import output_schema
from patchkeeper.agents.tools import (
    TOOLS,
    ToolSpec,
    description,
    find_tool,
    input_schema,
    open_world,
)
from patchkeeper.constants import MCP_CALL_ENV
from patchkeeper.errors import PatchkeeperError
from patchkeeper.jsonable import json_text
from patchkeeper.render.envelope import error_envelope
from patchkeeper.system.refusals import machine_refused

#: What the server tells the client about itself at initialisation.
INSTRUCTIONS = (
    "patchkeeper keeps a downstream patch series (and runtime monkey patches) true against "
    "upstream releases. Read-only tools (audit, horizon, verify, status, lint, ledger_check, "
    "runtime_inventory, runtime_audit, runtime_port, report_check) write nothing; the "
    "write_* tools change files and run only when the call says write: true. Every path "
    "must be inside the "
    "server's root; relative paths are read from the directory argument (-C), itself "
    "relative to the root. A result too large for one call comes in pages: its page key "
    "says which items of its lists it holds, and result_page takes its next_cursor for the "
    "next. The skill skills/patchkeeper-upgrade/SKILL.md describes the upgrade workflow."
)


def error_text(envelope: dict[str, Any]) -> str:
    """An envelope's ``error`` as the command line prints it: ``FILE:LINE: message`` and the
    hint on a line of its own.

    >>> error_text({"error": {"message": "no", "file": "s", "line": 3, "hint": "fix it"}})
    'patchkeeper: error: s:3: no\\n  hint: fix it'
    """
    error = envelope.get("error") or {}
    where = error.get("file") or ""
    if where and error.get("line") is not None:
        where = f"{where}:{error['line']}"
    text = f"{where}: {error.get('message')}" if where else str(error.get("message"))
    if error.get("hint"):
        text += f"\n  hint: {error['hint']}"
    return f"patchkeeper: error: {text}"


def describe(tool: ToolSpec, group: click.Group) -> Any:
    """The MCP ``Tool`` of ``tool``: name, description, schemas and annotations. The
    options its summary and its parameters' help mention are said as the tool's arguments
    (:func:`patchkeeper.agents.hints.translate`: ``--branch`` reads `` `branch` ``), as the
    advice in its results is: a call passes arguments, never options."""
    from mcp import types

    def say(text: str) -> str:
        return translate(text, tool, group)

    return types.Tool(
        name=tool.name,
        title=f"patchkeeper {' '.join([*tool.path, *tool.fixed])}",
        description=description(tool, group, say),
        input_schema=input_schema(tool, group, say),
        output_schema=_with_page(output_schema(tool.command)),
        annotations=types.ToolAnnotations(
            read_only_hint=not tool.writes,
            destructive_hint=tool.destructive if tool.writes else None,
            idempotent_hint=not tool.writes or tool.idempotent,
            open_world_hint=open_world(tool, group),
        ),
    )


def _with_page(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's output schema with the ``page`` key of a result cut into pages
    (:data:`~patchkeeper.agents.pages.PAGE_SCHEMA`)."""
    schema["properties"]["page"] = PAGE_SCHEMA
    return schema


def _result(
    envelope: dict[str, Any],
    tool: ToolSpec | None,
    group: click.Group,
    warnings: str = "",
    refused: bool = False,
    given: tuple[str, ...] = (),
    pages: Pages | None = None,
) -> Any:
    """The ``CallToolResult`` of an envelope, an error when it has ``error``: its advice (the
    error's hint, an upgrade's or a port's next steps) said in tools and arguments
    (:func:`patchkeeper.agents.hints.translate_envelope`; ``tool``: the tool called, whose
    arguments a lone option names), then its JSON text. ``warnings`` is the command's
    standard error: under ``--json`` only its warnings (``patchkeeper: warning: ...`` and
    their hints, translated too; progress is drawn on a terminal only), given as one more
    text block when the call succeeded (a failed call's standard error is its error, given
    already). ``given``: the call's argument values, which the advice quotes as given.
    ``pages``: where a result too large for one call is kept and cut into pages
    (:mod:`patchkeeper.agents.pages`): the answer is its first page."""
    envelope = translate_envelope(envelope, tool, group, given)
    if pages is not None:
        envelope = pages.first(envelope)
    said = translate(warnings, tool, group, given) if warnings else ""
    return _answer(envelope, said, refused)


def _answer(envelope: dict[str, Any], warnings: str = "", refused: bool = False) -> Any:
    """The ``CallToolResult`` of an envelope (or a page of one) whose advice is said in
    tools: its JSON text, the warnings after it, the error's text before it, and a page's
    hint before everything, so that a client showing the text alone says it first."""
    from mcp import types

    text = json_text(envelope, latin1=True)
    failed = refused or "error" in envelope
    content: list[Any] = [types.TextContent(text=text)]
    if warnings and not failed:
        content.append(types.TextContent(text=warnings))
    if failed:
        content.insert(0, types.TextContent(text=error_text(envelope)))
    page = envelope.get("page")
    if isinstance(page, dict) and isinstance(page.get("hint"), str):
        content.insert(0, types.TextContent(text=f"patchkeeper: {page['hint']}"))
    return types.CallToolResult(content=content, structured_content=envelope, is_error=failed)


def _given(arguments: Any) -> tuple[str, ...]:
    """The text values of a call's arguments (each item of a list too), which its result's
    advice quotes as they were given."""
    if not isinstance(arguments, dict):
        return ()
    values = [
        v for value in arguments.values() for v in (value if isinstance(value, list) else [value])
    ]
    return tuple(value for value in values if isinstance(value, str))


def _refusal(
    tool: ToolSpec | None, group: click.Group, error: PatchkeeperError, given: tuple[str, ...] = ()
) -> Any:
    """The tool error of a call of ``tool`` (``None``: no such tool) refused before it ran:
    an envelope with exit code 2."""
    envelope = error_envelope(tool.command if tool else "", error, error.exit_code)
    return _result(envelope, tool, group, refused=True, given=given)


async def run_call(
    tool: ToolSpec, group: click.Group, root: Path, arguments: Any, pages: Pages | None = None
) -> Any:
    """Check and run one call of ``tool``; the ``CallToolResult`` (its first page when the
    result is larger than a call returns and ``pages`` keeps it)."""
    arguments = arguments or {}
    try:
        check_arguments(tool, group, arguments)
        check_write(tool, arguments)
        check_paths(tool, group, arguments, root)
        check_configured_places(tool, arguments, root)
        python = check_installed_target(tool, group, arguments, root)
        if python is not None:
            await _check_interpreter(tool, python, root)
    except CallRefused as refused:
        return _refusal(tool, group, refused, _given(arguments))
    except OSError as exc:  # the machine refused to look at a path the call names
        return _refusal(tool, group, _machine_refusal(exc), _given(arguments))
    argv = [sys.executable, "-m", "patchkeeper", *command_line(tool, group, arguments)]
    done = await _run_command(argv, root, env={**os.environ, MCP_CALL_ENV: "1"})
    out = done.stdout.decode("utf-8", "replace")
    try:
        envelope = json.loads(out)
    except ValueError:
        envelope = None
    if not isinstance(envelope, dict):
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-5:]
        problem = PatchkeeperError(
            f"the command gave no JSON envelope (exit code {done.returncode}): "
            + (" / ".join(tail) or "no output"),
            hint="run the same command line in a terminal to see its output: " + " ".join(argv[3:]),
        )
        envelope = error_envelope(tool.command, problem, 3)
        return _result(envelope, tool, group, refused=True, given=_given(arguments))
    warnings = done.stderr.decode("utf-8", "replace").strip()
    return _result(envelope, tool, group, warnings, given=_given(arguments), pages=pages)


def page_call(pages: Pages, arguments: Any) -> Any:
    """A call of :data:`~patchkeeper.agents.pages.PAGE_TOOL`: the page its ``cursor`` names
    of a result kept, else a tool error saying what to do."""
    cursor = arguments.get("cursor") if isinstance(arguments, dict) else None
    extra = sorted(set(arguments or {}) - {"cursor"}) if isinstance(arguments, dict) else []
    if not isinstance(cursor, str) or extra:
        problem = CallRefused(
            f"{PAGE_TOOL} takes one argument, cursor (a string)",
            hint="pass the next_cursor of the page before, as its page key gives it",
        )
        return _answer(error_envelope("", problem, problem.exit_code), refused=True)
    page = pages.next(cursor)
    if page is None:
        problem = CallRefused(
            f"no result is kept for the cursor {cursor!r}",
            hint=f"the server keeps the last {KEPT} results cut into pages, for as long as it "
            "runs: call the tool again for its result and go on from that one's next_cursor",
        )
        return _answer(error_envelope("", problem, problem.exit_code), refused=True)
    return _answer(page)


def page_tool(limit: int) -> Any:
    """The MCP ``Tool`` that returns the next page of a result larger than ``limit``
    characters of JSON."""
    from mcp import types

    return types.Tool(
        name=PAGE_TOOL,
        title="the next page of a result",
        description=(
            f"A result larger than {limit} characters of JSON comes in pages: its "
            "page key says which items of its lists it holds and gives next_cursor; call this "
            "tool with that cursor for the next page (every key but the lists is whole on "
            "each page). Nothing is run again: the pages are one result, kept by the server "
            f"(the last {KEPT}, while it runs). Read-only: writes nothing."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "cursor": {
                    "type": "string",
                    "description": "The next_cursor of the page before (its page key).",
                }
            },
            "required": ["cursor"],
            "additionalProperties": False,
        },
        annotations=types.ToolAnnotations(
            read_only_hint=True, idempotent_hint=True, open_world_hint=False
        ),
    )


def _machine_refusal(exc: OSError) -> PatchkeeperError:
    """The refusal of a call whose path checks the machine stopped (a ``directory`` longer
    than the file system allows, one this user may not look into): the path and what to do,
    as the command line says it (:func:`~patchkeeper.system.refusals.machine_refused`),
    never a failed request. Nothing was run."""
    refused = machine_refused(exc)
    if refused is not None:
        return refused
    return PatchkeeperError(
        f"{exc.strerror or exc}; the call was not run",
        path=exc.filename if isinstance(exc.filename, str) else None,
        hint="check the argument that names this path",
    )


#: How long the interpreter a writing call names (``python``) may take to say where it
#: installs, in seconds; one that does not answer in time is left to the command, which
#: names the problem (as for one that does not run).
PROBE_TIMEOUT = 60.0


async def _check_interpreter(tool: ToolSpec, python: Path, root: Path) -> None:
    """Run ``python`` to learn where it installs and refuse the call when that is outside
    the root (:func:`check_environment`). It runs as a process of the server's own, awaited:
    while it runs, the server answers other requests, and a cancellation or Ctrl-C reaches
    it, as a call's command.

    Raises:
        CallRefused: the interpreter installs outside the root.
    """
    import anyio

    done = None
    with anyio.move_on_after(PROBE_TIMEOUT):
        try:
            done = await _run_command([str(python), *ENVIRONMENT_PROBE], root, grace=5.0)
        except OSError:
            return
    if done is not None and done.returncode == 0:
        check_environment(tool, python, done.stdout.decode("utf-8", "replace"), root)


#: The process ids of the tool calls running now: a Ctrl-C is passed on to them.
_RUNNING: set[int] = set()


@dataclass
class _Starting:
    """Tool calls whose process is being started (not yet in :data:`_RUNNING`), and
    whether a Ctrl-C came meanwhile: it is passed on once every such process is known, or
    a process started in that moment would miss it and outlive the server."""

    count: int = 0
    interrupted: bool = False


_STARTING = _Starting()


async def _run_command(
    argv: list[str], root: Path, grace: float | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run one tool call's command line in ``root`` and collect both outputs, its process id
    kept in :data:`_RUNNING` while it runs.

    A cancelled call (the client's ``notifications/cancelled``, or a time limit) passes a
    Ctrl-C to its process and waits for it to end, as the command line's Ctrl-C does: the
    command finishes or rolls back its writes and ends the processes it started, then the
    cancellation goes on. Ended at once, the command would be cut short in the middle of a
    write and its own processes left running. ``grace``: seconds to wait after the Ctrl-C
    before the process is killed (``None``: wait for it, as for a command, which always
    ends on Ctrl-C; an interpreter the call names may not). ``env``: the process's
    environment (default: the server's); a tool call's command gets :data:`MCP_CALL_ENV`
    too, so that a text it writes for its reader names tools."""
    import anyio

    _STARTING.count += 1
    try:
        process = await anyio.open_process(
            argv,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        _RUNNING.add(process.pid)
    finally:
        _STARTING.count -= 1
        if _STARTING.interrupted and not _STARTING.count:
            _interrupted(signal.SIGINT, None)
    chunks: dict[str, list[bytes]] = {"out": [], "err": []}

    async def drain(stream: Any, sink: list[bytes]) -> None:
        async for chunk in stream:
            sink.append(chunk)

    async def collect() -> int:
        async with anyio.create_task_group() as group:
            group.start_soon(drain, process.stdout, chunks["out"])
            group.start_soon(drain, process.stderr, chunks["err"])
        return await process.wait()

    try:
        async with process:
            try:
                code = await collect()
            except anyio.get_cancelled_exc_class():
                with anyio.CancelScope(shield=True):
                    await _interrupt_process(process, grace, collect)
                raise
    finally:
        _RUNNING.discard(process.pid)
    return subprocess.CompletedProcess(argv, code, b"".join(chunks["out"]), b"".join(chunks["err"]))


async def _interrupt_process(
    process: Any, grace: float | None, collect: Callable[[], Awaitable[int]]
) -> None:
    """Pass a Ctrl-C to ``process`` and wait until it has ended (its output read, so that it
    never blocks on a full pipe), killing it after ``grace`` seconds when that is given."""
    import anyio

    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGINT)
    if grace is None:
        await collect()
        return
    with anyio.move_on_after(grace):
        await collect()
        return
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    await process.wait()


def _interrupted(signum: int, frame: object) -> None:
    """Ctrl-C: pass it on to the running tool calls, wait for them (each one finishes or
    rolls back its writes and exits 130, as on the command line), then end the server with
    exit code 130. While a call's process is being started the Ctrl-C is kept
    (:class:`_Starting`) and handled as soon as that process is known.

    The server cannot end by raising ``KeyboardInterrupt`` as the other commands do: the
    SDK reads standard input in a worker thread, a read no cancellation reaches, so the
    server would live on until the client closed its input. It holds no state of its own
    (every write happens in a call's process), so it ends at once.
    """
    import logging

    if _STARTING.count:
        _STARTING.interrupted = True
        return
    # The waits below reap the calls' processes, which asyncio's child watcher thread also
    # waits for: it would log "Unknown child process pid N" on standard error as the server
    # ends, a race that depends on which of the two waits first.
    logging.getLogger("asyncio").disabled = True
    for pid in sorted(_RUNNING):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGINT)
    for pid in sorted(_RUNNING):
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write("patchkeeper: interrupted\n")
        sys.stderr.flush()
    os._exit(130)


def build_server(root: Path, group: click.Group, limit: int = MAX_RESULT_CHARS) -> Any:
    """The low-level MCP server of the tools, running commands in ``root`` (absolute,
    resolved); ``group`` is the command line (``patchkeeper.main.cli``), whose commands the
    tools' schemas are read from; ``limit``: the most characters of JSON a call returns
    before its result comes in pages."""
    from mcp import types
    from mcp.server.lowlevel import Server

    tools = [*(describe(tool, group) for tool in TOOLS), page_tool(limit)]
    pages = Pages(limit)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == PAGE_TOOL:
            paged: types.CallToolResult = page_call(pages, params.arguments)
            return paged
        tool = find_tool(params.name)
        if tool is None:
            names = ", ".join(spec.name for spec in TOOLS)
            problem = CallRefused(f"no tool {params.name!r}", hint=f"the tools are: {names}")
            result: types.CallToolResult = _refusal(None, group, problem)
            return result
        result = await run_call(tool, group, root, params.arguments, pages)
        return result

    return Server(
        "patchkeeper",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve(root: Path, group: click.Group, limit: int = MAX_RESULT_CHARS) -> None:
    """Serve the tools over standard input and output until the client closes them, or a
    Ctrl-C ends the server (:func:`_interrupted`, exit code 130); ``limit``: as
    :func:`build_server`'s."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(root.resolve(), group, limit)
    signal.signal(signal.SIGINT, _interrupted)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
