"""``runtime check --python PY``: run the plugin's entry points in a fresh interpreter and
check that every patch is live."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from patchkeeper.commands.cli import ARGV, Settings, emit
from patchkeeper.commands.common import command_line
from patchkeeper.commands.options import (
    json_option,
    plugin_options,
    plugin_values,
    python_option,
    save_evidence_option,
    spelt,
)
from patchkeeper.config import Config
from patchkeeper.record import evidence_store
from patchkeeper.runtime.live.check import LiveCheck, check_live


def run(
    config: Config | None,
    *,
    python: Path,
    timeout: float = 120.0,
    plugin: Path | None = None,
    package: str | None = None,
    patch_directory: str | None = None,
    argv: Sequence[str] | None = None,
    save_evidence: bool = False,
) -> LiveCheck:
    """Check the plugin's patches live in ``python``'s environment (``timeout`` in seconds)
    and keep the result in the evidence store, with ``argv`` (the command line; default: the
    one that asks for this check).

    Raises: as :func:`patchkeeper.runtime.live.check.check_live`.
    """
    result = check_live(
        config,
        python=python,
        timeout=timeout,
        plugin=plugin,
        package=package,
        patch_directory=patch_directory,
    )
    values = {"python": python, "timeout": timeout}
    options = spelt(command, values | plugin_values(plugin, package, patch_directory))
    line = command_line(["runtime", "check"], options, argv)
    evidence_store.keep(config, "runtime check", result, line, save_evidence)
    return result


@click.command("check")
@python_option(
    "The interpreter of the environment where the plugin and upstream are installed.",
    required=True,
)
@click.option("--timeout", default=120.0, show_default=True, help="Seconds before giving up.")
@plugin_options
@save_evidence_option
@json_option
@click.pass_obj
def command(
    settings: Settings,
    python: Path,
    timeout: float,
    plugin_location: dict[str, Any],
    save_evidence: bool,
    as_json: bool,
) -> None:
    """Run the plugin's entry points in a fresh interpreter and check every patch is live."""
    result = run(
        settings.config(),
        python=python,
        timeout=timeout,
        **plugin_location,
        argv=ARGV,
        save_evidence=save_evidence,
    )
    emit(result, as_json)
