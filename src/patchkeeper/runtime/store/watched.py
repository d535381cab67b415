"""What a remembered result of ``runtime inventory`` or ``runtime audit`` is read from: the
paths whose stat data :mod:`patchkeeper.runtime.remembered` keeps beside the JSON and
compares on the next run (its *dependencies*).

The lists are built from the settings and the tree roots alone, before the result is
computed: a folder's listing stands for the files added to it or removed from it later.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from patchkeeper.runtime.settings import RuntimeSettings, wheel_root


def python_tree(directory: Path) -> list[str]:
    """Every folder under ``directory`` (itself included; symbolic links to folders not
    followed, as :func:`os.walk`) and every ``*.py`` file in them, folders first in walk
    order. A ``directory`` that does not exist is itself (recorded as absent). The
    ``__pycache__`` folders are left out: they hold no source, and the interpreter writes
    into them as it imports."""
    paths: list[str] = []
    files: list[str] = []
    for folder, subfolders, names in os.walk(directory):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        paths.append(folder)
        files.extend(f"{folder}/{name}" for name in sorted(names) if name.endswith(".py"))
    return paths + files if paths else [str(directory)]


def code_paths() -> list[str]:
    """patchkeeper's own code: every folder and ``*.py`` file of the installed package (a
    result is computed and written by it)."""
    return python_tree(Path(__file__).resolve().parents[2])


def plugin_paths(settings: RuntimeSettings) -> list[str]:
    """What an inventory of ``settings``' plugin reads: the folders and ``*.py`` files of the
    plugin's top-level package and of the patch directory, the root (a new ``*.egg-info``
    appears in its listing) and its ``*.py`` modules, the files that declare entry points
    (absent ones included: one created later is read), and the ledger file."""
    root = settings.root
    paths = python_tree(root / settings.package.split(".")[0])
    patches = root / settings.patch_directory
    if not f"{patches}/".startswith(f"{paths[0]}/"):
        paths += python_tree(patches)
    paths += [str(root), *(str(root / n) for n in ("pyproject.toml", "setup.cfg", "setup.py"))]
    try:
        names = sorted(os.listdir(root))
    except OSError:
        names = []
    for name in names:
        if name.endswith((".egg-info", ".dist-info")):
            paths += [str(root / name), str(root / name / "entry_points.txt")]
        elif name.endswith(".py"):
            paths.append(str(root / name))
    wheel = wheel_root(root)  # a package under NAME.data/purelib: the .dist-info above it
    if wheel is not None:
        paths.append(str(wheel))
        for info in sorted(wheel.glob("*.dist-info")):
            paths += [str(info), str(info / "entry_points.txt"), str(info / "METADATA")]
    if settings.ledger_file:
        paths.append(str(root / settings.ledger_file))
    return paths


def upstream_paths(root: Path, packages: Iterable[str]) -> list[str]:
    """What the audit reads of one upstream tree: the folders and ``*.py`` files of its
    ``packages``, the root and its ``*.py`` modules, ``PKG-INFO`` and ``pyproject.toml``
    (the release's version)."""
    paths = [str(root), str(root / "PKG-INFO"), str(root / "pyproject.toml")]
    try:
        paths += sorted(str(root / n) for n in os.listdir(root) if n.endswith(".py"))
    except OSError:
        pass
    for package in packages:
        paths += python_tree(root / package)
    return paths
