"""``runtime lock --at RELEASE``: each patched target's sha256 at the audited release, for
:func:`patchkeeper.guard.check` to compare at import time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from patchkeeper.commands.cli import Settings, emit
from patchkeeper.commands.options import (
    RELEASE,
    at_option,
    json_option,
    option_name,
    output_option,
    plugin_options,
)
from patchkeeper.config import Config
from patchkeeper.runtime.live.lock import LockResult, write_lock
from patchkeeper.upstream.requirements import check_release_option


def run(
    config: Config | None,
    *,
    at: str,
    output: Path | None = None,
    plugin: Path | None = None,
    package: str | None = None,
    patch_directory: str | None = None,
) -> LockResult:
    """Write the plugin's lock file at the upstream release ``at`` (a directory or
    ``vllm==X``) to ``output`` (default: ``<patch-directory>/patchkeeper.lock``).

    Raises: as :func:`patchkeeper.runtime.live.lock.write_lock`.
    """
    upstream, source = (config.upstream, config.source) if config else (None, None)
    check_release_option(at, option_name(command, "at"), upstream, source)
    return write_lock(
        config,
        at=at,
        output=output,
        plugin=plugin,
        package=package,
        patch_directory=patch_directory,
    )


@click.command("lock")
@at_option(f"The audited upstream: {RELEASE}.")
@output_option("The lock file.")
@plugin_options
@json_option
@click.pass_obj
def command(
    settings: Settings,
    at: str,
    output: Path | None,
    plugin_location: dict[str, Any],
    as_json: bool,
) -> None:
    """Write each patched target's sha256 at the audited release, for patchkeeper.guard."""
    emit(run(settings.config(), at=at, output=output, **plugin_location), as_json)
