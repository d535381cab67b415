"""``apply``: the whole series onto a target, atomically (:mod:`patchkeeper.trees.apply_series`).

Its options are built only when the command line asks for the command (:func:`command`):
the short path of :mod:`patchkeeper.__main__` runs :func:`run` without loading click.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from patchkeeper.config import Config
from patchkeeper.ledger.target_files import overlay_files
from patchkeeper.trees.apply_series import apply_series
from patchkeeper.trees.results import ApplyResult
from patchkeeper.trees.tree import TargetChoice

if TYPE_CHECKING:
    import click


def run(config: Config, choice: TargetChoice) -> ApplyResult:
    """Apply the configured series to the target ``choice`` names (``--target DIR`` or an
    installed upstream).

    Raises: as :func:`patchkeeper.trees.apply_series.apply_series`.
    """
    return apply_series(config, lambda tree: overlay_files(config, tree), choice)


def __getattr__(name: str) -> click.Command:
    """``command``, the click command, made on first use (click is not loaded before)."""
    if name != "command":
        raise AttributeError(name)
    import click

    from patchkeeper.commands.cli import config_of, emit
    from patchkeeper.commands.options import json_option, request_from, target_options

    @click.command("apply")
    @target_options
    @json_option
    @click.pass_context
    def command(ctx: click.Context, /, as_json: bool, **_: Any) -> None:
        """Apply the whole series to the target, atomically, at fuzz 0.

        A directory target is compared with no pristine tree (run verify for drift first);
        an installed one is checked against its RECORD.
        """
        emit(run(config_of(ctx), request_from(ctx, TargetChoice)), as_json)

    globals()["command"] = command
    return command
