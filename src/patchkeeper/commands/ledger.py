"""``ledger [--check]``: write the ledger table from the patch headers, or only compare it."""

from __future__ import annotations

from typing import Any

import click

from patchkeeper.commands.cli import config_of, emit
from patchkeeper.commands.options import check_option, json_option, request_from
from patchkeeper.config import Config
from patchkeeper.ledger.table import LedgerRequest, LedgerResult, write_ledger


def run(config: Config, request: LedgerRequest) -> LedgerResult:
    """Rewrite (``request.check``: only compare) the table between the ledger file's
    markers; ``request.pre_commit``: as a pre-commit hook (a rewrite exits 1, messages name
    pre-commit's commands).

    Raises: as :func:`patchkeeper.ledger.table.write_ledger`.
    """
    return write_ledger(config, request)


@click.command("ledger")
@check_option("Change nothing; exit 1 with a diff if stale.")
@click.option(
    "--pre-commit",
    "pre_commit",
    is_flag=True,
    help="Run as a pre-commit hook: exit 1 when the table was rewritten too, and name "
    "pre-commit's commands in the messages.",
)
@json_option
@click.pass_context
def command(ctx: click.Context, /, as_json: bool, **_: Any) -> None:
    """Write the ledger table from the patch headers (--check: only compare)."""
    emit(run(config_of(ctx), request_from(ctx, LedgerRequest)), as_json)
