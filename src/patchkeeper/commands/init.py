"""``init``: make the current directory a downstream from the series it already holds."""

from __future__ import annotations

from pathlib import Path

import click

from patchkeeper.commands.cli import emit
from patchkeeper.commands.options import json_option, tag_option, upstream_option
from patchkeeper.start.init import LEDGER_FILE, InitResult
from patchkeeper.start.init import init as start


def run(
    root: Path,
    *,
    upstream: str | None = None,
    patches: Path | None = None,
    tag: str | None = None,
    ledger: str = LEDGER_FILE,
    directory: str = "",
) -> InitResult:
    """Detect the series form in ``root``, find the pin, write the configuration and ledger.

    Raises: as :func:`patchkeeper.start.init.init`.
    """
    return start(
        root.resolve(),
        upstream=upstream,
        patches=patches,
        tag=tag,
        ledger=ledger,
        directory=directory,
    )


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
    "--ledger",
    "ledger_file",
    default="PATCHES.md",
    show_default=True,
    help="The ledger file to write (file in the [ledger] table of the patchkeeper.toml written).",
)
@click.option(
    "--directory",
    "directory",
    default="",
    help="The directory inside the upstream tree that patch paths are relative to "
    "(directory in the patchkeeper.toml written; default: the tree's root).",
)
@json_option
def command(
    upstream: str | None,
    patches: Path | None,
    tag: str | None,
    ledger_file: str,
    directory: str,
    as_json: bool,
) -> None:
    """Start a downstream here from a quilt, Debian or git series; never overwrites."""
    result = run(
        Path.cwd(),
        upstream=upstream,
        patches=patches,
        tag=tag,
        ledger=ledger_file,
        directory=directory,
    )
    emit(result, as_json)
