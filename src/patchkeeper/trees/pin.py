"""Whether the target (an installed upstream, or a directory that says its version) is the
configured pin."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from patchkeeper.config import Config
    from patchkeeper.trees.tree import Tree


def pin_mismatch(config: Config, tree: Tree) -> str:
    """What is wrong when the target's release is not the configured pin, compared as PEP 440
    versions: an installed distribution's version (``pin = "3.4"``, idna 3.7 installed), or
    the version a directory declares as its own (an unpacked sdist's ``PKG-INFO``, a
    checkout's static ``pyproject.toml`` version: flask-cors 4.0.0 unpacked, pin 3.0.10);
    ``""`` when they agree, when either is unknown, for a directory that declares another
    project, or for a tree of another kind.

    The series is cut against the pin: on another release it may apply at other lines or not
    at all (a patch upstream took reads as *applied*, one it changed as *conflict*, and the
    target as partly patched), so the user is told first, with the two ways on: apply the
    series to the pin's tree, or audit the series against this release and move the pin. The
    command goes on.
    """
    from patchkeeper.trees.tree import DIRECTORY, INSTALLED

    if tree.kind not in (INSTALLED, DIRECTORY) or not config.pin or not tree.version:
        return ""
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version

    try:
        same = Version(tree.version) == Version(config.pin)
    except InvalidVersion:
        same = tree.version == config.pin
    if same:
        return ""
    where = f" in {config.source}" if config.source else ""
    if tree.kind == DIRECTORY:
        declared = getattr(tree.label, "name", None)
        if not declared or not config.upstream:
            return ""
        if canonicalize_name(declared) != canonicalize_name(config.upstream):
            return ""
        return (
            f"{tree.root} is {declared} {tree.version} (as its own metadata says), but the "
            f'series is cut against {config.pin} (pin = "{config.pin}"{where}): its patches '
            f"are read on another release; to do: apply the series to a tree of "
            f"{config.upstream}=={config.pin}, or audit the series against this one "
            f"('patchkeeper audit --to {shlex.quote(str(tree.root))}') and move the pin"
        )
    name = tree.dist.name if tree.dist is not None else config.upstream
    return (
        f"{name} {tree.version} is installed, but the series is cut against {name} "
        f'{config.pin} (pin = "{config.pin}"{where}): its patches are read on another release; '
        f"to do: install {name}=={config.pin} and apply the series to it, or audit the series "
        f"against the installed release ('patchkeeper audit --to {name}=={tree.version}') "
        "and move the pin"
    )
