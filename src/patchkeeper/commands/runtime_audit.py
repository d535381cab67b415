"""``runtime audit --from OLD --to NEW``: retain/update/remove/look per runtime patch,
with evidence, and the stale bindings."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from patchkeeper.commands.cli import ARGV, Settings, emit
from patchkeeper.commands.common import command_line
from patchkeeper.commands.options import (
    RELEASE,
    from_option,
    json_option,
    markdown_option,
    option_name,
    plugin_options,
    plugin_values,
    save_evidence_option,
    spelt,
    to_option,
)
from patchkeeper.config import Config
from patchkeeper.jsonable import JsonReady
from patchkeeper.record import evidence_store
from patchkeeper.runtime import remembered
from patchkeeper.upstream.requirements import check_release_option


def run(
    config: Config | None,
    *,
    old: str,
    new: str,
    plugin: Path | None = None,
    package: str | None = None,
    patch_directory: str | None = None,
    argv: Sequence[str] | None = None,
    save_evidence: bool = False,
) -> JsonReady:
    """Audit the plugin's runtime patches from upstream ``old`` to ``new`` (directories or
    requirements) and keep the result in the evidence store, with ``argv`` (the command line;
    default: the one that asks for this audit).

    Returns:
        The :class:`~patchkeeper.runtime.judge.runtime_audit.RuntimeAudit` with its JSON, or
        the JSON a previous run wrote from the same unchanged files
        (:mod:`patchkeeper.runtime.remembered`; the result object is then computed only when
        asked for).

    Raises: as :func:`patchkeeper.runtime.judge.runtime_audit.audit_runtime`.
    """
    upstream, source = (config.upstream, config.source) if config else (None, None)
    check_release_option(old, option_name(command, "old"), upstream, source)
    check_release_option(new, option_name(command, "new"), upstream, source)
    result = remembered.audit(
        config, old=old, new=new, plugin=plugin, package=package, patch_directory=patch_directory
    )
    values = {"old": old, "new": new, **plugin_values(plugin, package, patch_directory)}
    options = spelt(command, values)
    line = command_line(["runtime", "audit"], options, argv)
    evidence_store.keep(config, "runtime audit", result, line, save_evidence)
    return result


@click.command("audit")
@from_option(f"The old upstream: {RELEASE}.", "old", required=True)
@to_option(f"The new upstream: {RELEASE}.", "new", required=True)
@plugin_options
@markdown_option()
@save_evidence_option
@json_option
@click.pass_obj
def command(
    settings: Settings,
    old: str,
    new: str,
    plugin_location: dict[str, Any],
    markdown: Path | None,
    save_evidence: bool,
    as_json: bool,
) -> None:
    """Suggest retain/update/remove/look per patch, with evidence; list stale bindings."""
    result = run(
        settings.config(),
        old=old,
        new=new,
        **plugin_location,
        argv=ARGV,
        save_evidence=save_evidence,
    )
    emit(result, as_json, markdown)
