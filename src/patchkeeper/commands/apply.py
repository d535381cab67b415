"""``apply``: the whole series onto a target, atomically (:mod:`patchkeeper.trees.apply_series`).

Its options are built only when the command line asks for the command (:func:`command`):
the short path of :mod:`patchkeeper.__main__` runs :func:`run` without loading click.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from patchkeeper.config import Config
from patchkeeper.ledger.target_files import overlay_files
from patchkeeper.trees.apply_series import apply_series
from patchkeeper.trees.results import ApplyResult

if TYPE_CHECKING:
    import click


def run(config: Config, *, target: Path | None = None, python: Path | None = None) -> ApplyResult:
    """Apply the configured series to the target (``--target DIR`` or an installed upstream).

    Raises: as :func:`patchkeeper.trees.apply_series.apply_series`.
    """
    return apply_series(
        config, lambda tree: overlay_files(config, tree), target=target, python=python
    )


def __getattr__(name: str) -> click.Command:
    """``command``, the click command, made on first use (click is not loaded before)."""
    if name != "command":
        raise AttributeError(name)
    import click

    from patchkeeper.commands.cli import Settings, emit
    from patchkeeper.commands.options import json_option, target_options

    @click.command("apply")
    @target_options
    @json_option
    @click.pass_obj
    def command(settings: Settings, upstream: dict[str, Path | None], as_json: bool) -> None:
        """Apply the whole series to the target, atomically, at fuzz 0."""
        emit(run(settings.config(), **upstream), as_json)

    globals()["command"] = command
    return command
