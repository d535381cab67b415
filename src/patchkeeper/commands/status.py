"""``status``: per patch and per file, what is applied, partly applied or drifted
(:mod:`patchkeeper.trees.verify_series`)."""

from __future__ import annotations

from typing import Any

import click

from patchkeeper.commands.cli import config_of, emit
from patchkeeper.commands.options import (
    json_option,
    pristine_option,
    request_from,
    target_options,
)
from patchkeeper.config import Config
from patchkeeper.ledger.target_files import overlay_files
from patchkeeper.trees.results import VerifyResult
from patchkeeper.trees.verify_series import VerifyRequest, verify_series
from patchkeeper.upgrade.own_files import own_files


def run(config: Config, request: VerifyRequest) -> VerifyResult:
    """The state of the series on the target ``request`` names, every hunk shown; works
    without a pristine reference, and keeps no evidence (``verify`` does).

    Raises: as :func:`patchkeeper.trees.verify_series.verify_series`.
    """
    return verify_series(
        config,
        lambda tree: overlay_files(config, tree),
        own_files,
        request,
        detailed=True,
    )


@click.command("status")
@target_options
@pristine_option()
@json_option
@click.pass_context
def command(ctx: click.Context, /, as_json: bool, **_: Any) -> None:
    """Show per patch and per file what is applied, partly applied or drifted."""
    emit(run(config_of(ctx), request_from(ctx, VerifyRequest)), as_json)
