"""``runtime audit --from OLD --to NEW``: retain/update/remove/look per runtime patch,
with evidence, and the stale bindings; ``--from`` is the configured ``upstream==pin`` when
not given."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from patchkeeper.commands.cli import ARGV, config_of, emit
from patchkeeper.commands.common import (
    command_line,
    configured_old,
    plugin_requirement,
    recorded_argv,
)
from patchkeeper.commands.options import (
    RELEASE,
    from_option,
    json_option,
    markdown_option,
    plugin_options,
    request_from,
    request_options,
    save_evidence_option,
    to_option,
)
from patchkeeper.config import Config
from patchkeeper.constants import OPTION_FROM, OPTION_TO
from patchkeeper.jsonable import JsonReady
from patchkeeper.progress import warn
from patchkeeper.record import evidence_store
from patchkeeper.runtime import remembered
from patchkeeper.runtime.inventory.unparsed import refuse_unparsed, unparsed_audited
from patchkeeper.runtime.settings import RuntimeAuditRequest, located_settings
from patchkeeper.upstream.requirements import check_release_option, check_same_project, downgrade


def run(
    config: Config | None,
    request: RuntimeAuditRequest,
    *,
    argv: Sequence[str] | None = None,
    save_evidence: bool | None = None,
    refuse_unparsed_as: str | None = None,
) -> JsonReady:
    """Audit the plugin's runtime patches from upstream ``request.old`` to ``request.new``
    (directories or requirements) and keep the result in the evidence store, with ``argv``
    (the command line; default: the one that asks for this audit). With
    ``refuse_unparsed_as`` (the command to name, ``"runtime audit"``), a patch file Python
    cannot read stops the audit before its result is kept (:func:`patchkeeper.runtime.
    inventory.unparsed.refuse_unparsed`), found by the audit's own scan of the plugin.

    Returns:
        The :class:`~patchkeeper.runtime.judge.runtime_audit.RuntimeAudit` with its JSON, or
        the JSON a previous run wrote from the same unchanged files
        (:mod:`patchkeeper.runtime.remembered`; the result object is then computed only when
        asked for).

    When both releases are requirements and ``request.new`` is older than ``request.old``,
    a warning says so on standard error (:func:`patchkeeper.upstream.requirements.
    downgrade`); the audit still runs.

    Raises: as :func:`patchkeeper.runtime.judge.runtime_audit.audit_runtime`;
        :class:`~patchkeeper.errors.TargetError`: as ``refuse_unparsed_as`` asks.
    """
    upstream, source = (config.upstream, config.source) if config else (None, None)
    check_release_option(request.old, OPTION_FROM, upstream, source)
    check_release_option(request.new, OPTION_TO, upstream, source)
    check_same_project(request.old, request.new)
    backwards = downgrade(request.old, request.new)
    if backwards:
        warn(backwards)
    result = remembered.audit(config, request)
    if refuse_unparsed_as is not None:
        root = located_settings(config, request).root
        refuse_unparsed(unparsed_audited(result), root, refuse_unparsed_as)
    line = command_line(["runtime", "audit"], request_options(command, request), argv)
    evidence_store.keep(config, "runtime audit", result, line, save_evidence)
    return result


@click.command("audit")
@from_option(f"The old upstream: {RELEASE} (default: upstream==pin).", "old")
@to_option(f"The new upstream: {RELEASE}.", "new", required=True)
@plugin_options
@markdown_option()
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
    """Suggest retain/update/remove/look per patch, with evidence; list stale bindings."""
    config, given = config_of(ctx), ctx.params["old"]
    old = configured_old(
        config, given, "runtime audit", required=lambda: plugin_requirement(config, ctx.params)
    )
    request = request_from(ctx, RuntimeAuditRequest, old=old)
    argv = recorded_argv(ARGV, given, old)
    result = run(config, request, argv=argv, save_evidence=save_evidence)
    emit(result, as_json, markdown)
