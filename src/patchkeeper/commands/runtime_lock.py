"""``runtime lock --at RELEASE``: each patched target's sha256 at the audited release, for
:func:`patchkeeper.guard.check` to compare at import time."""

from __future__ import annotations

from pathlib import Path

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
    check_release_option(at, "--at", upstream, source)
    return write_lock(
        config,
        at=at,
        output=output,
        plugin=plugin,
        package=package,
        patch_directory=patch_directory,
    )
