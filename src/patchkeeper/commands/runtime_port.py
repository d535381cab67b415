"""``runtime port --from OLD --to NEW``: the mechanical part of the plugin's update, as a
unified diff (merged copies, moved targets, headers), written to the plugin with ``--write``."""

from __future__ import annotations

from pathlib import Path

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
    check_release_option(old, "--from", upstream, source)
    check_release_option(new, "--to", upstream, source)
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
