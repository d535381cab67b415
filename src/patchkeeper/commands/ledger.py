"""``ledger [--check]``: write the ledger table from the patch headers, or only compare it."""

from __future__ import annotations

import click

from patchkeeper.commands.cli import Settings, emit
from patchkeeper.commands.options import check_option, json_option
from patchkeeper.config import Config
from patchkeeper.ledger.table import LedgerResult, write_ledger


def run(config: Config, *, check: bool = False, pre_commit: bool = False) -> LedgerResult:
    """Rewrite (``check``: only compare) the table between the ledger file's markers;
    ``pre_commit``: as a pre-commit hook (a rewrite exits 1, messages name pre-commit's
    commands).

    Raises: as :func:`patchkeeper.ledger.table.write_ledger`.
    """
    return write_ledger(config, check=check, pre_commit=pre_commit)


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
@click.pass_obj
def command(settings: Settings, check: bool, pre_commit: bool, as_json: bool) -> None:
    """Write the ledger table from the patch headers (--check: only compare)."""
    emit(run(settings.config(), check=check, pre_commit=pre_commit), as_json)
