"""``status``: per patch and per file, what is applied, partly applied or drifted
(:mod:`patchkeeper.trees.verify_series`). While an upgrade of the downstream waits, it also
names the upgrade's next step (a warning; in a downstream of runtime patches alone, which
has no series to show, the error's hint)."""

from __future__ import annotations

from typing import Any

import click

from patchkeeper.commands.cli import config_of, emit, loaded_config
from patchkeeper.commands.options import (
    json_option,
    pristine_option,
    request_from,
    target_options,
)
from patchkeeper.config import Config, runtime_only
from patchkeeper.errors import ConfigError
from patchkeeper.ledger.target_files import overlay_files
from patchkeeper.progress import warn
from patchkeeper.trees.results import VerifyResult
from patchkeeper.trees.verify_series import VerifyRequest, verify_series
from patchkeeper.upgrade.own_files import own_files
from patchkeeper.upgrade.state import in_progress


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
    try:
        config = config_of(ctx)
    except ConfigError as exc:
        # a downstream of runtime patches alone has no series to show; while its upgrade
        # waits, the next step is the upgrade's, not the runtime commands'
        loaded = loaded_config(ctx)
        if loaded is not None and runtime_only(loaded):
            exc.hint = in_progress(loaded.root) or exc.hint
        raise
    upgrade = in_progress(config.root)
    if upgrade is not None:
        warn(upgrade)
    emit(run(config, request_from(ctx, VerifyRequest)), as_json)
