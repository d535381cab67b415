"""``import``: commit each patch of the series on a new branch at the pin's tag (the module
is ``import_`` because ``import`` is a Python keyword)."""

from __future__ import annotations

from pathlib import Path

import click

from patchkeeper.commands.cli import Settings, emit
from patchkeeper.commands.options import (
    branch_option,
    checkout_option,
    force_option,
    json_option,
    tag_option,
)
from patchkeeper.config import Config
from patchkeeper.ledger.importer import ImportResult, import_series


def run(
    config: Config,
    *,
    checkout: Path | None = None,
    branch: str | None = None,
    tag: str | None = None,
    force: bool = False,
) -> ImportResult:
    """Make the branch of topic commits (``force``: move it if it exists).

    Raises: as :func:`patchkeeper.ledger.importer.import_series`.
    """
    return import_series(config, checkout=checkout, branch=branch, tag=tag, force=force)


@click.command("import")
@checkout_option()
@tag_option()
@branch_option("The branch to create (default: [tool.patchkeeper.git] branch).")
@force_option("Move the branch if it exists.")
@json_option
@click.pass_obj
def command(
    settings: Settings,
    checkout: Path | None,
    tag: str | None,
    branch: str | None,
    force: bool,
    as_json: bool,
) -> None:
    """Commit each patch of the series on a new branch at the pin's tag."""
    emit(run(settings.config(), checkout=checkout, branch=branch, tag=tag, force=force), as_json)
