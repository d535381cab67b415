"""``mcp``: serve patchkeeper's commands to a coding agent as Model Context Protocol tools.

The server (:mod:`patchkeeper.agents.server`) needs the ``mcp`` SDK, an optional extra:
without it the command says how to install it. It runs until the client closes standard
input; what it prints on standard output is the protocol, nothing else.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import click

from patchkeeper.agents.pages import MAX_RESULT_CHARS, MIN_RESULT_CHARS
from patchkeeper.errors import PatchkeeperError

#: The SDK the server is built on, when the installed metadata cannot say (the ``mcp``
#: extra's requirement in ``pyproject.toml``).
SDK = "mcp>=2.3,<3"


def sdk_requirement() -> str:
    """The ``mcp`` extra's requirement as the installed patchkeeper declares it
    (``"mcp<3,>=2.3"``), else :data:`SDK`."""
    from importlib.metadata import PackageNotFoundError, requires

    try:
        declared = requires("patchkeeper") or []
    except PackageNotFoundError:
        return SDK
    for line in declared:
        requirement, _, marker = line.partition(";")
        if marker.replace("'", '"').split() == ["extra", "==", '"mcp"']:
            return requirement.strip()
    return SDK


def install_hint() -> str:
    """How to add the SDK to the environment patchkeeper runs in. Not ``pip install
    'patchkeeper[mcp]'``: no package index holds patchkeeper, so that finds nothing (or
    another project of that name); the SDK itself is on the index."""
    requirement = sdk_requirement()
    return (
        f"install it into the environment patchkeeper runs in: {sys.executable} -m pip "
        f"install '{requirement}' (installed with pipx: pipx inject patchkeeper "
        f"'{requirement}'; or install patchkeeper again with its mcp extra, as docs/agents.md "
        "shows)"
    )


def sdk_missing() -> bool:
    """Whether the ``mcp`` SDK cannot be imported."""
    try:
        return importlib.util.find_spec("mcp") is None
    except (ImportError, ValueError):  # a module that is None in sys.modules, a broken spec
        return True


def run(root: Path, group: click.Group, limit: int = MAX_RESULT_CHARS) -> None:
    """Serve the tools of ``group``'s commands, with ``root`` as the one directory calls may
    name paths in, until the client goes away; a result larger than ``limit`` characters of
    JSON comes in pages (:mod:`patchkeeper.agents.pages`).

    Raises:
        PatchkeeperError: the ``mcp`` SDK is not installed, or ``root`` is not a directory.
    """
    if sdk_missing():
        raise PatchkeeperError(
            "the MCP server needs the mcp package, an optional extra of patchkeeper",
            hint=install_hint(),
        )
    if root.exists() and not root.is_dir():
        raise PatchkeeperError(
            "the server's root is a file, not a directory",
            path=root,
            hint="pass --root the directory the tools work in, such as the downstream's "
            "(default: the current directory)",
        )
    if not root.is_dir():
        raise PatchkeeperError(
            "the server's root is not a directory",
            path=root,
            hint="pass --root a directory that exists (default: the current directory)",
        )
    from patchkeeper.agents.server import serve

    serve(root, group, limit)


@click.command("mcp")
@click.option(
    "--root",
    # not click's file_okay=False: a file is refused by run(), in the form of every error
    type=click.Path(path_type=Path),
    metavar="DIRECTORY",
    default=".",
    show_default=True,
    help="The directory the tools work in; a path outside it is refused.",
)
@click.option(
    "--max-result-chars",
    type=click.IntRange(min=MIN_RESULT_CHARS),
    metavar="N",
    default=MAX_RESULT_CHARS,
    show_default=True,
    help="The most characters of JSON a tool call returns; a larger result comes in pages "
    "(the result_page tool).",
)
@click.pass_context
def command(ctx: click.Context, root: Path, max_result_chars: int) -> None:
    """Serve the commands to a coding agent as MCP tools over stdio (patchkeeper[mcp])."""
    group = ctx.find_root().command
    assert isinstance(group, click.Group)
    run(root, group, max_result_chars)
