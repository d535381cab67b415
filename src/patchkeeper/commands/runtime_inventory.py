"""``runtime inventory``: every runtime patch of the plugin, its mechanism and activation."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from patchkeeper.commands.cli import ARGV, config_of, emit
from patchkeeper.commands.common import command_line
from patchkeeper.commands.options import (
    json_option,
    markdown_option,
    plugin_options,
    request_from,
    request_options,
    save_evidence_option,
)
from patchkeeper.config import Config
from patchkeeper.jsonable import JsonReady
from patchkeeper.record import evidence_store
from patchkeeper.runtime import remembered
from patchkeeper.runtime.settings import PluginLocation


def run(
    config: Config | None,
    location: PluginLocation,
    *,
    argv: Sequence[str] | None = None,
    save_evidence: bool | None = None,
) -> JsonReady:
    """Inventory the runtime patches of the plugin ``location`` names (its fields override
    ``[tool.patchkeeper.runtime]``) and keep the result in the evidence store, with ``argv``
    (the command line; default: the one that asks for this inventory).

    Returns:
        The :class:`patchkeeper.runtime.model.Inventory` with its JSON, or the JSON a
        previous run wrote from the same unchanged files (:mod:`patchkeeper.runtime.
        remembered`; the result object is then computed only when asked for).

    Raises: as :func:`patchkeeper.runtime.inventory.runtime_inventory.take_inventory`.
    """
    result = remembered.inventory(config, location)
    line = command_line(["runtime", "inventory"], request_options(command, location), argv)
    evidence_store.keep(config, "runtime inventory", result, line, save_evidence)
    return result


@click.command("inventory")
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
    """List every runtime patch, its mechanism and activation; check headers and ledger."""
    location = request_from(ctx, PluginLocation)
    result = run(config_of(ctx), location, argv=ARGV, save_evidence=save_evidence)
    emit(result, as_json, markdown)
