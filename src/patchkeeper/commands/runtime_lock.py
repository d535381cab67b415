"""``runtime lock --at RELEASE``: each patched target's sha256 at the audited release, for
:func:`patchkeeper.guard.check` to compare at import time; ``--at`` is the configured
``upstream==pin`` when not given."""

from __future__ import annotations

from typing import Any

import click

from patchkeeper.commands.cli import config_of, emit
from patchkeeper.commands.common import configured_old, plugin_requirement
from patchkeeper.commands.options import (
    RELEASE,
    at_option,
    json_option,
    output_option,
    plugin_options,
    request_from,
)
from patchkeeper.config import Config
from patchkeeper.constants import OPTION_AT
from patchkeeper.runtime.live.lock import LockRequest, LockResult, write_lock
from patchkeeper.upstream.requirements import check_release_option


def run(config: Config | None, request: LockRequest) -> LockResult:
    """Write the plugin's lock file at the upstream release ``request.at`` (a directory or
    ``vllm==X``) to ``request.output`` (default: ``<patch-directory>/patchkeeper.lock``).

    Raises: as :func:`patchkeeper.runtime.live.lock.write_lock`.
    """
    upstream, source = (config.upstream, config.source) if config else (None, None)
    check_release_option(request.at, OPTION_AT, upstream, source)
    return write_lock(config, request)


@click.command("lock")
@at_option(f"The audited upstream: {RELEASE} (default: upstream==pin).", required=False)
@output_option("The lock file to write (default: <patch-dir>/patchkeeper.lock).")
@plugin_options
@json_option
@click.pass_context
def command(ctx: click.Context, /, as_json: bool, **_: Any) -> None:
    """Write each patched target's sha256 at the audited release, for patchkeeper.guard."""
    config = config_of(ctx)
    at = configured_old(
        config,
        ctx.params["at"],
        "runtime lock",
        OPTION_AT,
        "the audited upstream",
        lambda: plugin_requirement(config, ctx.params),
    )
    emit(run(config, request_from(ctx, LockRequest, at=at)), as_json)
