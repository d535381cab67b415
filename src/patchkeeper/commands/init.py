"""``init``: make the current directory a downstream from the series it already holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from patchkeeper.commands.cli import emit
from patchkeeper.commands.options import json_option, request_from, tag_option, upstream_option
from patchkeeper.constants import OPTION_LEDGER
from patchkeeper.errors import PatchkeeperError
from patchkeeper.start.init import InitRequest, InitResult, interrupted_after_writing
from patchkeeper.start.init import init as start
from patchkeeper.start.plugin import KNOWN_UPSTREAMS, PluginInitResult, RuntimePlugin


def run(root: Path, request: InitRequest) -> InitResult | PluginInitResult:
    """Detect the series form in ``root``, find the pin, write the configuration and ledger
    (a runtime plugin's configuration, in a plugin without a series).

    Raises: as :func:`patchkeeper.start.init.init`.
    """
    return start(root.resolve(), request, patching=patching_plugin)


def patching_plugin(root: Path, upstream: str | None) -> RuntimePlugin | None:
    """The runtime plugin ``root`` is by its modules alone, when ``pyproject.toml`` declares
    none (no entry point, the upstream only in an optional extra): the first package of
    ``root`` (or ``root/src``), in name order, in which the runtime inventory
    (:func:`patchkeeper.runtime.inventory.runtime_inventory.scan_plugin`, whose detection
    this is) finds a patch of ``upstream`` (a distribution name; ``None``: the known
    upstreams, :data:`~patchkeeper.start.plugin.KNOWN_UPSTREAMS`). Its reason names that
    patch's file, line and target; its pin is ``None``. ``None`` when no package patches the
    upstream. It is here, above the runtime layer, which ``init`` (below it) cannot import.

    Raises: nothing; a package the inventory cannot read is passed over.
    """
    from dataclasses import replace

    from patchkeeper.runtime.inventory.runtime_inventory import scan_plugin
    from patchkeeper.runtime.settings import resolve_settings
    from patchkeeper.system.pyproject import source_dirs

    for name in [upstream] if upstream else list(KNOWN_UPSTREAMS):
        module = name.replace("-", "_")  # the import name: no import name holds a "-"
        for base in (root, *source_dirs(root)):
            try:
                packages = sorted(d.name for d in base.iterdir() if (d / "__init__.py").is_file())
            except OSError:
                continue
            for package in packages:
                try:
                    settings = resolve_settings(None, plugin=root, package=package)
                    settings = replace(settings, upstream_packages=(module,))
                    entries = scan_plugin(settings).inventory.entries
                except PatchkeeperError:
                    continue
                found = [e for e in entries if e.target.split(".")[0] == module]
                if found:
                    first = found[0]
                    reason = f"{first.file}:{first.line} patches {first.target} at run time"
                    return RuntimePlugin(name, package, None, reason)
    return None


@click.command("init")
@upstream_option(
    "The upstream project and the version the series is cut against (default: read "
    "from debian/changelog, PKG-INFO, pyproject.toml or the git tag).",
    metavar="NAME==VERSION",
)
@click.option(
    "--patches",
    type=click.Path(path_type=Path),
    help="The series to use: a series file, or a directory of git format-patch files "
    "(default: found here).",
)
@tag_option("Make the series from this git checkout's commits since TAG.")
@click.option(
    OPTION_LEDGER,
    default=InitRequest.ledger,
    show_default=True,
    help="The ledger file to write (file in the [ledger] table of the patchkeeper.toml written).",
)
@click.option(
    "--directory",
    default=InitRequest.directory,
    help="The directory inside the upstream tree that patch paths are relative to "
    "(directory in the patchkeeper.toml written; default: the tree's root).",
)
@json_option
@click.pass_context
def command(ctx: click.Context, /, as_json: bool, **_: Any) -> None:
    """Start a downstream here from a quilt, Debian or git series; never overwrites."""
    result = run(Path.cwd(), request_from(ctx, InitRequest))
    if not isinstance(result, InitResult):
        emit(result, as_json)
        return
    try:
        emit(result, as_json)
    except KeyboardInterrupt:  # the files are written; the report is what was cut short
        raise interrupted_after_writing(result.root, result.written_files) from None
