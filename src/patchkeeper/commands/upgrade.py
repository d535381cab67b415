"""``upgrade --to NEWPIN``: the whole upgrade of a downstream, as one reviewable piece of work.

Audits the series and the runtime patches, suggests decisions, writes the runtime update,
ports the series in place (stopping at a conflict, like ``port``), writes the audit record,
and says what is left for a person (:mod:`patchkeeper.upgrade.run`). ``--branch NAME`` does
the work on a new git branch, one commit per step; ``--continue`` goes on after a conflict is
resolved; ``--abort`` puts the downstream back.

Exit 0 when the upgrade is done (or aborted), 1 while a conflict waits.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from patchkeeper.commands import audit, decide, port, report, runtime_audit, runtime_port
from patchkeeper.commands.cli import config_of, emit
from patchkeeper.commands.options import (
    RELEASE,
    branch_option,
    from_option,
    json_option,
    pull_request_markdown_option,
    refuse_resume_with,
    request_from,
    resume_options,
    to_option,
)
from patchkeeper.config import Config
from patchkeeper.upgrade.request import UpgradeRequest
from patchkeeper.upgrade.results import UpgradeResult
from patchkeeper.upgrade.run import Steps, upgrade

#: Each step is the function its own command runs.
STEPS = Steps(
    audit=audit.run,
    runtime_audit=runtime_audit.run,
    decide=decide.run,
    runtime_port=runtime_port.run,
    port=port.run,
    report=report.run,
)


def run(config: Config, request: UpgradeRequest) -> UpgradeResult:
    """``upgrade`` (``request.action == "upgrade"``), ``upgrade --continue`` or ``upgrade
    --abort``.

    Raises: as :func:`patchkeeper.upgrade.run.upgrade`.
    """
    return upgrade(config, STEPS, request)


@click.command("upgrade")
@to_option(f"The new upstream: {RELEASE}.")
@from_option("The upstream the downstream is cut against (default: the configured pin).", "source")
@branch_option(
    "Do the work on this new git branch, one commit per step (the downstream must be "
    "in a git checkout with nothing left to commit)."
)
@resume_options("Drop the upgrade: the branch and the work tree put back.")
@pull_request_markdown_option
@json_option
@click.pass_context
def command(ctx: click.Context, /, markdown: Path | None, as_json: bool, **_: Any) -> None:
    """Audit, decide, port and record an upgrade in one go; say what is left for a person."""
    action = refuse_resume_with(ctx, UpgradeRequest.starting(), "the upgrade") or "upgrade"
    result = run(config_of(ctx), request_from(ctx, UpgradeRequest, action=action))
    emit(result, as_json, markdown)
