"""``retire NAME [--at VERSION] --why TEXT``: take a patch's line out of the series file, delete
its patch file, and record it in the ledger's Retired table; ``--at`` is the configured pin
when not given (else the installed upstream's version), and the output says which."""

from __future__ import annotations

from typing import Any

import click

from patchkeeper.commands.cli import config_of, emit
from patchkeeper.commands.options import at_option, json_option, request_from
from patchkeeper.config import Config
from patchkeeper.constants import OPTION_WHY
from patchkeeper.ledger.table import RetireRequest, RetireResult, retire


def run(config: Config, request: RetireRequest) -> RetireResult:
    """Retire the series patch ``request.name`` at upstream version ``request.at`` (``None``:
    the configured pin, else the installed upstream's version) for the reason
    ``request.why``.

    Raises: as :func:`patchkeeper.ledger.table.retire`.
    """
    return retire(config, request)


@click.command("retire")
@click.argument("name")
@at_option(
    "The upstream version it retired at (default: the configured pin, else the installed "
    "upstream's version).",
    required=False,
)
@click.option(OPTION_WHY, required=True, help="Why: the upstream change that carries it.")
@json_option
@click.pass_context
def command(ctx: click.Context, /, as_json: bool, **_: Any) -> None:
    """Take a patch's line out of the series file, delete its patch file, and record it in
    the ledger's Retired table."""
    emit(run(config_of(ctx), request_from(ctx, RetireRequest)), as_json)
