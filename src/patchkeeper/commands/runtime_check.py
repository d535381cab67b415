"""``runtime check --python PY``: run the plugin's entry points in a fresh interpreter and
check that every patch is live."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from patchkeeper.commands.cli import ARGV, config_of, emit
from patchkeeper.commands.common import command_line
from patchkeeper.commands.options import (
    SECONDS,
    json_option,
    plugin_options,
    python_option,
    request_from,
    request_options,
    save_evidence_option,
)
from patchkeeper.config import Config
from patchkeeper.record import evidence_store
from patchkeeper.runtime.live.check import LiveCheck, LiveCheckRequest, check_live


def run(
    config: Config | None,
    request: LiveCheckRequest,
    *,
    argv: Sequence[str] | None = None,
    save_evidence: bool | None = None,
) -> LiveCheck:
    """Check the plugin's patches live in the environment of ``request.python`` (within
    ``request.timeout`` seconds) and keep the result in the evidence store, with ``argv``
    (the command line; default: the one that asks for this check).

    Raises: as :func:`patchkeeper.runtime.live.check.check_live`.
    """
    result = check_live(config, request)
    line = command_line(["runtime", "check"], request_options(command, request), argv)
    evidence_store.keep(config, "runtime check", result, line, save_evidence)
    return result


@click.command("check")
@python_option(
    "The interpreter of the environment where the plugin and upstream are installed.",
    required=True,
)
@click.option(
    "--timeout",
    default=120.0,
    type=SECONDS,
    metavar="SECONDS",
    show_default=True,
    help="Seconds before giving up.",
)
@plugin_options
@save_evidence_option
@json_option
@click.pass_context
def command(ctx: click.Context, /, save_evidence: bool | None, as_json: bool, **_: Any) -> None:
    """Run the plugin's entry points in a fresh interpreter and check every patch is live."""
    request = request_from(ctx, LiveCheckRequest)
    result = run(config_of(ctx), request, argv=ARGV, save_evidence=save_evidence)
    emit(result, as_json)
