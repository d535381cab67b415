"""``check-branch [BRANCH]``: prove that the series applied to the pin's tag is the branch."""

from __future__ import annotations

from typing import Any

import click

from patchkeeper.commands.cli import config_of, emit
from patchkeeper.commands.options import checkout_option, json_option, request_from, tag_option
from patchkeeper.config import Config
from patchkeeper.ledger.check_branch import CheckBranchRequest, CheckBranchResult, check_branch


def run(config: Config, request: CheckBranchRequest) -> CheckBranchResult:
    """Compare the integration branch with the series.

    Raises: as :func:`patchkeeper.ledger.check_branch.check_branch`.
    """
    return check_branch(config, request)


@click.command("check-branch")
@click.argument("branch", required=False)
@checkout_option()
@tag_option()
@json_option
@click.pass_context
def command(ctx: click.Context, /, as_json: bool, **_: Any) -> None:
    """Prove that the series applied to the pin's tag is the integration branch."""
    emit(run(config_of(ctx), request_from(ctx, CheckBranchRequest)), as_json)
