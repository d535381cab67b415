"""``retire NAME --at VERSION --why TEXT``: take a patch out of the series and the tree, and
record it in the ledger's Retired table."""

from __future__ import annotations

import click

from patchkeeper.commands.cli import Settings, emit
from patchkeeper.commands.options import at_option, json_option
from patchkeeper.config import Config
from patchkeeper.ledger.table import RetireResult, retire


def run(config: Config, name: str, *, at: str, why: str) -> RetireResult:
    """Retire the series patch ``name`` at upstream version ``at`` for the reason ``why``.

    Raises: as :func:`patchkeeper.ledger.table.retire`.
    """
    return retire(config, name, at=at, why=why)


@click.command("retire")
@click.argument("name")
@at_option("The upstream version it retired at.")
@click.option("--why", required=True, help="Why: the upstream change that carries it.")
@json_option
@click.pass_obj
def command(settings: Settings, name: str, at: str, why: str, as_json: bool) -> None:
    """Take a patch out of the series and the tree; record it in the Retired table."""
    emit(run(settings.config(), name, at=at, why=why), as_json)
