"""``verify``: which patches are applied, and did anything else change
(:mod:`patchkeeper.trees.verify_series`). Exit 0 only when every patch is applied and
nothing drifted. The command keeps the result in the evidence store.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from patchkeeper.commands.cli import ARGV, config_of, emit
from patchkeeper.commands.common import command_line
from patchkeeper.commands.options import (
    json_option,
    option_name,
    pristine_option,
    request_from,
    request_options,
    save_evidence_option,
    target_options,
)
from patchkeeper.config import Config
from patchkeeper.errors import PatchkeeperError
from patchkeeper.ledger.target_files import downstream_files, overlay_files
from patchkeeper.record import evidence_store
from patchkeeper.trees.results import VerifyResult
from patchkeeper.trees.verify_series import VerifyOptions, VerifyRequest, verify_series

if TYPE_CHECKING:
    from patchkeeper.series.model import Patch
    from patchkeeper.trees.tree import Tree


def options_of(command: click.Command) -> VerifyOptions:
    """How ``command`` (``verify`` or ``status``) spells the options the feature's messages
    name."""
    return VerifyOptions(option_name(command, "target"), option_name(command, "pristine"))


def own_files(config: Config, tree: Tree, patches: Sequence[Patch]) -> frozenset[str]:
    """The downstream's own files under ``tree`` (a tree that holds the downstream: a git
    branch on an upstream tag, a Debian source package), which are no drift: those of
    :func:`patchkeeper.ledger.target_files.downstream_files`, with the files ``decide`` and
    ``report`` write (the decisions file, ``AUDIT.md``, ``AUDIT.html``) and the work
    directories of a stopped ``port`` or ``upgrade``. A ``[report]`` or ``[port]`` table that
    cannot be read adds nothing here: the command that writes those files names the error."""
    from patchkeeper.port.settings import port_settings
    from patchkeeper.record.settings import report_settings
    from patchkeeper.upgrade.state import WORK_DIR as UPGRADE_WORK_DIR

    also: list[Path] = [config.root / UPGRADE_WORK_DIR]
    try:
        report = report_settings(config)
        also += [report.decisions_file, report.audit_file, report.html_file]
    except PatchkeeperError:
        pass
    try:
        also.append(port_settings(config).work_dir)
    except PatchkeeperError:
        pass
    return downstream_files(config, tree, patches, also)


def run(
    config: Config,
    request: VerifyRequest,
    *,
    argv: Sequence[str] | None = None,
    save_evidence: bool = False,
) -> VerifyResult:
    """The state of the configured series on the target ``request`` names
    (:func:`patchkeeper.trees.verify_series.verify_series`), kept in the evidence store when
    ``save_evidence`` (``--save-evidence``) or ``evidence = true`` says so, with ``argv`` (the
    command line; default: the one that asks for this check).

    Raises: as :func:`patchkeeper.trees.verify_series.verify_series`.
    """
    result = verify_series(
        config,
        lambda tree: overlay_files(config, tree),
        own_files,
        options_of(command),
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
def command(ctx: click.Context, /, save_evidence: bool, as_json: bool, **_: Any) -> None:
    """Prove which patches are applied and that nothing else changed (exit 1 otherwise)."""
    request = request_from(ctx, VerifyRequest)
    result = run(config_of(ctx), request, argv=ARGV, save_evidence=save_evidence)
    emit(result, as_json)
