"""``status``: per patch and per file, what is applied, partly applied or drifted
(:mod:`patchkeeper.trees.verify_series`)."""

from __future__ import annotations

from pathlib import Path

import click

from patchkeeper.commands.cli import Settings, emit
from patchkeeper.commands.options import json_option, pristine_option, target_options
from patchkeeper.commands.verify import options_of
from patchkeeper.config import Config
from patchkeeper.ledger.target_files import downstream_files, overlay_files
from patchkeeper.trees.results import VerifyResult
from patchkeeper.trees.verify_series import verify_series


def run(
    config: Config,
    *,
    target: Path | None = None,
    python: Path | None = None,
    pristine: str | None = None,
) -> VerifyResult:
    """The state of the series on the target, every hunk shown; works without a pristine
    reference, and keeps no evidence (``verify`` does).

    Raises: as :func:`patchkeeper.trees.verify_series.verify_series`.
    """
    return verify_series(
        config,
        lambda tree: overlay_files(config, tree),
        downstream_files,
        options_of(command),
        target=target,
        python=python,
        pristine=pristine,
        detailed=True,
    )


@click.command("status")
@target_options
@pristine_option()
@json_option
@click.pass_obj
def command(
    settings: Settings, upstream: dict[str, Path | None], pristine: str | None, as_json: bool
) -> None:
    """Show per patch and per file what is applied, partly applied or drifted."""
    emit(run(settings.config(), **upstream, pristine=pristine), as_json)
