"""``runtime check --python PY``: run the plugin's entry points in a fresh interpreter and
check that every patch is live."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from patchkeeper.commands.common import command_line
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
    options = {
        "--python": python,
        "--timeout": timeout,
        "--plugin": plugin,
        "--package": package,
        "--patch-dir": patch_directory,
    }
    line = command_line(["runtime", "check"], options, argv)
    evidence_store.keep(config, "runtime check", result, line, save_evidence)
    return result
