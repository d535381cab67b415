"""``verify``: which patches are applied, and did anything else change
(:mod:`patchkeeper.trees.verify_series`). Exit 0 only when every patch is applied and
nothing drifted. The command keeps the result in the evidence store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from patchkeeper.commands.cli import ARGV, config_of, emit
from patchkeeper.commands.common import command_line
from patchkeeper.commands.options import (
    json_option,
    pristine_option,
    request_from,
    request_options,
    save_evidence_option,
    target_options,
)
from patchkeeper.config import Config
from patchkeeper.ledger.target_files import overlay_files
from patchkeeper.record import evidence_store
from patchkeeper.trees.results import VerifyResult
from patchkeeper.trees.verify_series import VerifyRequest, verify_series
from patchkeeper.upgrade.own_files import own_files


def run(
    config: Config,
    request: VerifyRequest,
    *,
    argv: Sequence[str] | None = None,
    save_evidence: bool | None = None,
) -> VerifyResult:
    """The state of the configured series on the target ``request`` names
    (:func:`patchkeeper.trees.verify_series.verify_series`), kept in the evidence store when
    ``save_evidence`` (``--save-evidence``) or ``evidence = true`` says so, never when
    ``save_evidence`` is false (``--no-save-evidence``), with ``argv`` (the
    command line; default: the one that asks for this check).

    Raises: as :func:`patchkeeper.trees.verify_series.verify_series`.
    """
    result = verify_series(
        config,
        lambda tree: overlay_files(config, tree),
        own_files,
        request,
    )
    options = request_options(command, request)
    evidence_store.keep(
        config, "verify", result, command_line(["verify"], options, argv), save_evidence
    )
    return result


@click.command("verify")
@target_options
@pristine_option()
@save_evidence_option
@json_option
@click.pass_context
def command(ctx: click.Context, /, save_evidence: bool | None, as_json: bool, **_: Any) -> None:
    """Prove which patches are applied and that nothing else changed (exit 1 otherwise)."""
    request = request_from(ctx, VerifyRequest)
    result = run(config_of(ctx), request, argv=ARGV, save_evidence=save_evidence)
    emit(result, as_json)
