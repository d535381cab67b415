"""``runtime inventory``: every runtime patch of the plugin, its mechanism and activation."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from patchkeeper.commands.cli import ARGV, Settings, emit
from patchkeeper.commands.common import command_line
from patchkeeper.commands.options import (
    json_option,
    markdown_option,
    plugin_options,
    plugin_values,
    save_evidence_option,
    spelt,
)
from patchkeeper.config import Config
from patchkeeper.jsonable import JsonReady
from patchkeeper.record import evidence_store
from patchkeeper.runtime import remembered


def run(
    config: Config | None,
    *,
    plugin: Path | None = None,
    package: str | None = None,
    patch_directory: str | None = None,
    argv: Sequence[str] | None = None,
    save_evidence: bool = False,
) -> JsonReady:
    """Inventory the plugin's runtime patches (the options override ``[tool.patchkeeper.
    runtime]``) and keep the result in the evidence store, with ``argv`` (the command line;
    default: the one that asks for this inventory).

    Returns:
        The :class:`patchkeeper.runtime.model.Inventory` with its JSON, or the JSON a
        previous run wrote from the same unchanged files (:mod:`patchkeeper.runtime.
        remembered`; the result object is then computed only when asked for).

    Raises: as :func:`patchkeeper.runtime.inventory.runtime_inventory.take_inventory`.
    """
    result = remembered.inventory(
        config, plugin=plugin, package=package, patch_directory=patch_directory
    )
    options = spelt(command, plugin_values(plugin, package, patch_directory))
    line = command_line(["runtime", "inventory"], options, argv)
    evidence_store.keep(config, "runtime inventory", result, line, save_evidence)
    return result


@click.command("inventory")
@plugin_options
@markdown_option()
@save_evidence_option
@json_option
@click.pass_obj
def command(
    settings: Settings,
    plugin_location: dict[str, Any],
    markdown: Path | None,
    save_evidence: bool,
    as_json: bool,
) -> None:
    """List every runtime patch, its mechanism and activation; check headers and ledger."""
    result = run(settings.config(), **plugin_location, argv=ARGV, save_evidence=save_evidence)
    emit(result, as_json, markdown)
