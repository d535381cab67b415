"""Whether an installed upstream is the configured pin."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from patchkeeper.config import Config
    from patchkeeper.trees.tree import Tree


def pin_mismatch(config: Config, tree: Tree) -> str:
    """What is wrong when an installed distribution's version is not the configured pin
    (``pin = "3.4"``, idna 3.7 installed), compared as PEP 440 versions; ``""`` when they
    agree, when either is unknown, or for a tree that is not an installed distribution.

    The series is cut against the pin: on another release it may apply at other lines or not
    at all (a patch upstream took reads as *conflict* there), so the user is told first, with
    the two ways on: install the pin and apply the series to it, or audit the series against
    the installed release and move the pin. The command goes on.
    """
    from patchkeeper.trees.tree import INSTALLED

    if tree.kind != INSTALLED or not config.pin or not tree.version:
        return ""
    from packaging.version import InvalidVersion, Version

    try:
        same = Version(tree.version) == Version(config.pin)
    except InvalidVersion:
        same = tree.version == config.pin
    if same:
        return ""
    name = tree.dist.name if tree.dist is not None else config.upstream
    where = f" in {config.source}" if config.source else ""
    return (
        f"{name} {tree.version} is installed, but the series is cut against {name} "
        f'{config.pin} (pin = "{config.pin}"{where}): its patches are read on another release; '
        f"to do: install {name}=={config.pin} and apply the series to it, or audit the series "
        f"against the installed release ('patchkeeper audit --to {name}=={tree.version}') "
        "and move the pin"
    )
