"""``runtime port --from OLD --to NEW``: the mechanical part of the plugin's update, as a
unified diff (merged copies, moved targets, headers), written to the plugin with ``--write``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from patchkeeper.commands.cli import Settings, emit
from patchkeeper.commands.options import (
    RELEASE,
    from_option,
    json_option,
    option_name,
    output_option,
    plugin_options,
    to_option,
)
from patchkeeper.config import Config
from patchkeeper.runtime.port.runtime_port import RuntimePort, port_runtime
from patchkeeper.upstream.requirements import check_release_option


def run(
    config: Config | None,
    *,
    old: str,
    new: str,
    write: bool = False,
    output: Path | None = None,
    plugin: Path | None = None,
    package: str | None = None,
    patch_directory: str | None = None,
) -> RuntimePort:
    """Port the plugin's runtime patches from upstream ``old`` to ``new`` (directories or
    requirements); ``write`` applies the diff to the plugin's files atomically, ``output``
    also writes it to a file.

    Raises: as :func:`patchkeeper.runtime.port.runtime_port.port_runtime`.
    """
    upstream, source = (config.upstream, config.source) if config else (None, None)
    check_release_option(old, option_name(command, "old"), upstream, source)
    check_release_option(new, option_name(command, "new"), upstream, source)
    return port_runtime(
        config,
        old=old,
        new=new,
        write=write,
        output=output,
        plugin=plugin,
        package=package,
        patch_directory=patch_directory,
    )


@click.command("port")
@from_option(f"The old upstream: {RELEASE}.", "old", required=True)
@to_option(f"The new upstream: {RELEASE}.", "new", required=True)
@click.option("--write", is_flag=True, help="Apply the update to the plugin's files.")
@output_option("Diff file.")
@plugin_options
@json_option
@click.pass_obj
def command(
    settings: Settings,
    old: str,
    new: str,
    write: bool,
    output: Path | None,
    plugin_location: dict[str, Any],
    as_json: bool,
) -> None:
    """Write the mechanical update: merged copies, moved targets, gates, headers (a diff)."""
    result = run(settings.config(), old=old, new=new, write=write, output=output, **plugin_location)
    emit(result, as_json)
