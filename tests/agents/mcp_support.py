"""Talking to ``patchkeeper mcp`` as an agent does: the SDK's own stdio client and session,
the server started as a subprocess of this interpreter."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

T = TypeVar("T")


def server_parameters(root: Path, *options: str) -> StdioServerParameters:
    """How the tests start ``patchkeeper mcp --root ROOT``: with this interpreter, in
    ``root``'s parent (so that ``--root`` does the work, not the current directory), the
    whole environment passed on (the SDK passes a few variables only), the tests' isolated
    git configuration with it. ``options``: more options of ``patchkeeper mcp``."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "patchkeeper", "mcp", "--root", str(root), *options],
        env=dict(os.environ),
        cwd=root.parent,
    )


@asynccontextmanager
async def session(root: Path, *options: str) -> AsyncIterator[ClientSession]:
    """An initialised client session with a server for ``root`` started as
    :func:`server_parameters` says, with ``options``."""
    params = server_parameters(root, *options)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        yield client


def talk(root: Path, conversation: Callable[[ClientSession], Awaitable[T]], *options: str) -> T:
    """Run ``conversation`` with a session of a server for ``root`` (started with
    ``options``); its result."""

    async def main() -> T:
        async with session(root, *options) as client:
            return await conversation(client)

    return anyio.run(main)


def texts(result: Any) -> list[str]:
    """The text blocks of a ``CallToolResult``."""
    return [block.text for block in result.content]
