"""``check-branch [BRANCH]``: prove that the series applied to the pin's tag is the branch."""

from __future__ import annotations

from pathlib import Path

import click

from patchkeeper.commands.cli import Settings, emit
from patchkeeper.commands.options import checkout_option, json_option, tag_option
from patchkeeper.config import Config
from patchkeeper.ledger.check_branch import CheckBranchResult, check_branch


def run(
    config: Config,
    *,
    checkout: Path | None = None,
    branch: str | None = None,
    tag: str | None = None,
) -> CheckBranchResult:
    """Compare the integration branch with the series.

    Raises: as :func:`patchkeeper.ledger.check_branch.check_branch`.
    """
    return check_branch(config, checkout=checkout, branch=branch, tag=tag)


@click.command("check-branch")
@click.argument("branch", required=False)
@checkout_option()
@tag_option()
@json_option
@click.pass_obj
def command(
    settings: Settings,
    branch: str | None,
    checkout: Path | None,
    tag: str | None,
    as_json: bool,
) -> None:
    """Prove that the series applied to the pin's tag is the integration branch."""
    emit(run(settings.config(), checkout=checkout, branch=branch, tag=tag), as_json)
