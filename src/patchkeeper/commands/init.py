"""``init``: make the current directory a downstream from the series it already holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from patchkeeper.commands.cli import emit
from patchkeeper.commands.options import json_option, request_from, tag_option, upstream_option
from patchkeeper.constants import OPTION_LEDGER
from patchkeeper.start.init import InitRequest, InitResult
from patchkeeper.start.init import init as start
from patchkeeper.start.plugin import PluginInitResult


def run(root: Path, request: InitRequest) -> InitResult | PluginInitResult:
    """Detect the series form in ``root``, find the pin, write the configuration and ledger
    (a runtime plugin's configuration, in a plugin without a series).

    Raises: as :func:`patchkeeper.start.init.init`.
    """
    return start(root.resolve(), request)


@click.command("init")
@upstream_option(
    "The upstream project and the version the series is cut against (default: read "
    "from debian/changelog, PKG-INFO, pyproject.toml or the git tag).",
    metavar="NAME==VERSION",
)
@click.option(
    "--patches",
    type=click.Path(path_type=Path),
    help="The series to use: a series file, or a directory of git format-patch files "
    "(default: found here).",
)
@tag_option("Make the series from this git checkout's commits since TAG.")
@click.option(
    OPTION_LEDGER,
    default=InitRequest.ledger,
    show_default=True,
    help="The ledger file to write (file in the [ledger] table of the patchkeeper.toml written).",
)
@click.option(
    "--directory",
    default=InitRequest.directory,
    help="The directory inside the upstream tree that patch paths are relative to "
    "(directory in the patchkeeper.toml written; default: the tree's root).",
)
@json_option
@click.pass_context
def command(ctx: click.Context, /, as_json: bool, **_: Any) -> None:
    """Start a downstream here from a quilt, Debian or git series; never overwrites."""
    emit(run(Path.cwd(), request_from(ctx, InitRequest)), as_json)
