"""``runtime port --from OLD --to NEW``: the mechanical part of the plugin's update, as a
unified diff (merged copies, moved targets, headers), written to the plugin with ``--write``;
``--from`` is the configured ``upstream==pin`` when not given."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from patchkeeper.commands.cli import config_of, emit
from patchkeeper.commands.common import configured_old, plugin_requirement
from patchkeeper.commands.options import (
    RELEASE,
    from_option,
    json_option,
    output_option,
    plugin_options,
    request_from,
    to_option,
)
from patchkeeper.config import Config
from patchkeeper.constants import OPTION_FROM, OPTION_TO, OPTION_WRITE
from patchkeeper.runtime.port.runtime_port import RuntimePort, RuntimePortRequest, port_runtime
from patchkeeper.upstream.requirements import check_release_option, check_same_project


def run(config: Config | None, request: RuntimePortRequest) -> RuntimePort:
    """Port the plugin's runtime patches from upstream ``request.old`` to ``request.new``
    (directories or requirements); ``request.write`` applies the diff to the plugin's files
    atomically, ``request.output`` also writes it to a file.

    Raises: as :func:`patchkeeper.runtime.port.runtime_port.port_runtime`.
    """
    upstream, source = (config.upstream, config.source) if config else (None, None)
    check_release_option(request.old, OPTION_FROM, upstream, source)
    check_release_option(request.new, OPTION_TO, upstream, source)
    check_same_project(request.old, request.new)
    refuse_the_same_release(config, request)
    return port_runtime(config, request)


def refuse_the_same_release(config: Config | None, request: RuntimePortRequest) -> None:
    """Refuse ``--to`` the release the plugin is ported from (``--from``, as versions: the
    requirement's pin, or the tree's ``PKG-INFO``/``pyproject.toml``), before anything is
    fetched or written, as ``port`` and ``upgrade`` refuse it: upstream changed nothing
    between the two, so there is nothing to merge, move or cut. When ``--from`` is the
    configured pin, the message names the pin's line.

    Raises:
        ConfigError: both versions are known and the same.
    """
    from patchkeeper.port.context import check_a_newer_release, same_release
    from patchkeeper.runtime.syntax.gates import release_version

    old = release_version(request.old, Path(request.old))
    pinned = config is not None and same_release(old, config.pin)
    check_a_newer_release(
        config,
        release_version(request.new, Path(request.new)),
        old,
        configured=pinned,
        command="port",
        at="the release the plugin is ported from (--from)",
        hint="to list the plugin's patches as they stand, run 'patchkeeper runtime inventory'",
    )


@click.command("port")
@from_option(f"The old upstream: {RELEASE} (default: upstream==pin).", "old")
@to_option(f"The new upstream: {RELEASE}.", "new", required=True)
@click.option(OPTION_WRITE, is_flag=True, help="Apply the update to the plugin's files.")
@output_option("Write the diff to this file (default: print it on standard output).")
@plugin_options
@json_option
@click.pass_context
def command(ctx: click.Context, /, as_json: bool, **_: Any) -> None:
    """Write the mechanical update: merged copies, moved targets, gates, headers (a diff)."""
    config = config_of(ctx)
    old = configured_old(
        config,
        ctx.params["old"],
        "runtime port",
        required=lambda: plugin_requirement(config, ctx.params),
    )
    result = run(config, request_from(ctx, RuntimePortRequest, old=old))
    emit(result, as_json)
