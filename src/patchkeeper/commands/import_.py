"""``import``: commit each patch of the series on a new branch at the pin's tag (the module
is ``import_`` because ``import`` is a Python keyword)."""

from __future__ import annotations

from typing import Any

import click

from patchkeeper.commands.cli import config_of, emit
from patchkeeper.commands.options import (
    branch_option,
    checkout_option,
    force_option,
    json_option,
    request_from,
    tag_option,
)
from patchkeeper.config import Config
from patchkeeper.ledger.importer import ImportRequest, ImportResult, import_series


def run(config: Config, request: ImportRequest) -> ImportResult:
    """Make the branch of topic commits (``request.force``: move it if it exists).

    Raises: as :func:`patchkeeper.ledger.importer.import_series`.
    """
    return import_series(config, request)


@click.command("import")
@checkout_option()
@tag_option()
@branch_option("The branch to create (default: [tool.patchkeeper.git] branch).")
@force_option("Move the branch if it exists.")
@json_option
@click.pass_context
def command(ctx: click.Context, /, as_json: bool, **_: Any) -> None:
    """Commit each patch of the series on a new branch at the pin's tag."""
    emit(run(config_of(ctx), request_from(ctx, ImportRequest)), as_json)
