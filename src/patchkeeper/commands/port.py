"""``port --to TARGET``: carry the series to a new upstream release, with evidence.

Every patch is carried onto the new pin in series order (:mod:`patchkeeper.port.rebase`):
regenerated when it applies, merged with git's three-way merge when it does not, proposed
for retirement when upstream has it. The first real conflict stops the port, like ``git
rebase``: its files wait in the work directory with conflict markers and their upstream
cause; ``port --continue`` regenerates that patch from the resolved files and carries on;
``port --abort`` drops the work directory. Nothing outside the work directory is written
until every patch is through; then the new series goes to a new directory (default: beside
the series directory, named after the new pin) or, with ``--in-place``, over the old one.
The session itself is :mod:`patchkeeper.port.session`.

Exit 0 when the port is done (or aborted), 1 when it stopped at a conflict.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from patchkeeper.commands.cli import ARGV, CHECKOUT_PATH, DirectoryPath, config_of, emit
from patchkeeper.commands.common import command_line, recorded_argv
from patchkeeper.commands.options import (
    RELEASE,
    from_option,
    json_option,
    output_option,
    pull_request_markdown_option,
    refuse_resume_with,
    request_from,
    request_options,
    resume_options,
    save_evidence_option,
    to_option,
)
from patchkeeper.config import Config
from patchkeeper.constants import MCP_CALL_ENV, OPTION_FROM, OPTION_TO
from patchkeeper.port.context import port_base
from patchkeeper.port.instructions import TERMINAL, GoOn
from patchkeeper.port.request import PortRequest
from patchkeeper.port.results import PortResult
from patchkeeper.port.session import port_series
from patchkeeper.port.settings import port_settings
from patchkeeper.port.workdir import PortState, PortStateError, WorkDir
from patchkeeper.record import evidence_store


def run(
    config: Config,
    request: PortRequest,
    *,
    argv: Sequence[str] | None = None,
    save_evidence: bool | None = None,
) -> PortResult:
    """``port`` (``request.action == "port"``), ``port --continue`` or ``port --abort``; the
    result of a port or a ``--continue`` is kept in the evidence store, with ``argv`` (the
    command line; default: the one that asks for ``request``), to which a port started
    without ``--from`` adds ``--from`` and the configured pin it read
    (:func:`patchkeeper.port.context.port_base`), and a ``--continue`` the ``--to`` and
    ``--from`` the port was started with, so that every run's evidence names both trees.

    A ``--continue`` of a port whose stop is the saved evidence (a port started with
    ``--save-evidence``, as ``upgrade`` starts it) saves its own result over it without
    ``--save-evidence`` too (:func:`_stop_saved`): evidence left saying the port waits at
    a conflict would keep the record telling that stop, and ``decide`` (and ``upgrade``)
    suggesting an update of the patches the port has carried since. ``--no-save-evidence``
    does not keep the stop there either (a warning says so): the stop is the state the
    record, and an upgrade's ``--continue``, read the port by, not evidence of one run.

    Raises: as :func:`patchkeeper.port.session.port_series`.
    """
    started = _started(config) if request.action == "continue" else None
    over_stop = started is not None and _stop_saved(config, started)
    refused = over_stop and save_evidence is False
    if over_stop:
        save_evidence = True
    try:
        result = port_series(config, request, _go_on())
    except PortStateError as exc:
        _upgrade_next(config, request, exc)
        raise
    if refused:
        from patchkeeper.progress import warn

        stored = evidence_store.evidence_dir(config) / evidence_store.file_name("port")
        warn(
            f"the port's result is saved over {stored} though --no-save-evidence was given: "
            "that file held this port's stop, which the record (and an upgrade in progress) "
            "reads as the port's state; left there, it would say the port still waits"
        )
    if request.action == "abort":
        return result
    options = request_options(command, request, resume=request.action == "continue")
    line = command_line(["port"], options, argv)
    if request.action == "port":
        # --from defaulted to the configured pin: the evidence names the tree the port read
        line = recorded_argv(line, request.source, port_base(config, request.source))
    elif started is not None:
        # a --continue takes neither: the evidence names the trees the port started with
        line = [*line, OPTION_TO, started.new, OPTION_FROM, started.old]
    evidence_store.keep(config, "port", result, line, save_evidence)
    return result


def _upgrade_next(config: Config, request: PortRequest, exc: PortStateError) -> None:
    """A ``--continue`` or ``--abort`` that finds no port while an upgrade is in progress:
    the port the upgrade started has finished (a ``port --continue`` carried it through),
    and what is next is the upgrade's own ``--continue``, which the hint says instead of
    starting another port."""
    if request.action == "port" or WorkDir(port_settings(config).work_dir).exists:
        return
    from patchkeeper.upgrade.results import StepName, StepStatus
    from patchkeeper.upgrade.state import UpgradeDir, UpgradeStateError, in_progress, state_dir

    upgrade = in_progress(config.root)
    if upgrade is None:
        return
    try:
        port = UpgradeDir(state_dir(config.root)).load().steps.get(StepName.PORT, {})
    except UpgradeStateError:
        port = {}
    if port.get("status") != StepStatus.STOPPED:
        exc.hint = upgrade  # the upgrade has not started its port: it says where it is
        return
    exc.hint = (
        "the port the upgrade in progress here started has finished (a 'patchkeeper port "
        "--continue' carried it through): the next step is 'patchkeeper upgrade --continue', "
        "which goes on with the upgrade's steps after its port (or 'patchkeeper upgrade "
        "--abort' to put the downstream back)"
    )


def _go_on() -> GoOn:
    """How a stop's ``INSTRUCTIONS.md`` names the ways on: the tools of the MCP server when
    one runs this command for a tool call (it sets :data:`MCP_CALL_ENV`), so that the agent
    reading the file is told which tool to call; else the command lines. A port started by
    ``upgrade`` is told the same way, the upgrade's command line being the one run."""
    if os.environ.get(MCP_CALL_ENV) != "1":
        return TERMINAL
    ctx = click.get_current_context(silent=True)
    group = ctx.find_root().command if ctx is not None else None
    if not isinstance(group, click.Group):
        return TERMINAL
    from patchkeeper.agents.hints import port_go_on

    return port_go_on(group, ARGV)


def _stop_saved(config: Config, started: PortState) -> bool:
    """Whether the saved ``port`` evidence is this port's stop: a stopped port, at the
    patch the port in progress waits at. Unreadable evidence is no stop (saving over it is
    the flag's choice, as before)."""
    from patchkeeper.errors import PatchkeeperError
    from patchkeeper.port.finish import STOPPED
    from patchkeeper.record.stored_results import port_result

    try:
        saved = port_result(evidence_store.load_all(config))
    except PatchkeeperError:
        return False
    return (
        saved is not None
        and saved.outcome == STOPPED
        and saved.stopped_at is not None
        and saved.stopped_at == started.stopped
    )


def _started(config: Config) -> PortState | None:
    """What the port in progress was started with (its ``--to`` and ``--from``, the
    latter the configured pin when it was not given), read before ``--continue`` finishes
    it and removes its work directory; ``None`` when no port is in progress."""
    work = WorkDir(port_settings(config).work_dir)
    return work.load() if work.exists else None


@click.command("port")
@to_option(f"The new upstream: {RELEASE}.")
@from_option("The upstream the series is cut against (default: the configured pin).", "source")
@click.option("--in-place", is_flag=True, help="Rewrite the series where it is.")
@output_option(
    "The new series directory (default: the series directory's name plus the new pin).",
    type=DirectoryPath("the new series is written into a directory: pass a directory's path"),
)
@click.option(
    "--retire",
    is_flag=True,
    help="Record upstreamed patches in the ledger's Retired section (with --in-place).",
)
@click.option(
    "--upstream-repo",
    type=CHECKOUT_PATH,
    help="An upstream git checkout with both pins' tags, for history evidence.",
)
@resume_options("Drop the port in progress (nothing else was written).")
@pull_request_markdown_option
@save_evidence_option
@json_option
@click.pass_context
def command(
    ctx: click.Context,
    /,
    markdown: Path | None,
    save_evidence: bool | None,
    as_json: bool,
    **_: Any,
) -> None:
    """Carry the series to a new upstream release: refresh, merge, retire; stop at conflicts."""
    action = refuse_resume_with(ctx, PortRequest.starting(), "the port") or "port"
    request = request_from(ctx, PortRequest, action=action)
    result = run(config_of(ctx), request, argv=ARGV, save_evidence=save_evidence)
    emit(result, as_json, markdown)
