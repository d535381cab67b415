"""Where a patch's files are when none of them is where the patch says: a target one level
too high (``--target`` the directory an sdist was unpacked into, which holds
``Jinja2-3.1.2/``), one level too deep, a ``directory`` setting that does not match the
patch paths, or paths with one more leading directory than the strip level removes.

The engine reports each such file as missing; this module only looks at the file system to
say which of those slips it is, so the user is told what to pass or set instead.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

#: Never where an upstream tree is: version control data, patchkeeper's state, caches.
_NOT_TREES = frozenset({".git", ".hg", ".svn", ".patchkeeper", "__pycache__"})

#: Files at the root of an unpacked sdist or a checkout: a subdirectory holding one is a
#: whole tree (the target is one level too high), not a package directory.
_PROJECT_FILES = ("PKG-INFO", "pyproject.toml", "setup.py", "setup.cfg")


def _all_under(base: Path, paths: Sequence[str]) -> bool:
    try:
        return all(os.path.isfile(base / path) for path in paths)
    except (OSError, ValueError):
        return False


def _subdirectories(base: Path) -> list[Path]:
    try:
        with os.scandir(base) as entries:
            names = sorted(e.name for e in entries if e.is_dir() and e.name not in _NOT_TREES)
    except OSError:
        return []
    return [base / name for name in names]


def _whole_tree(directory: Path) -> bool:
    return any((directory / name).is_file() for name in _PROJECT_FILES)


def sole_tree(root: Path) -> Path | None:
    """The one subdirectory of ``root`` when ``root`` holds nothing else and is no tree
    itself while that subdirectory is a whole tree (``PKG-INFO``, ``pyproject.toml``,
    ``setup.py`` or ``setup.cfg``): the directory an sdist archive was unpacked into,
    holding ``urllib3-1.26.12/``; else ``None``."""
    if _whole_tree(root):
        return None
    try:
        with os.scandir(root) as entries:
            names = [e.name for e in entries if e.name not in _NOT_TREES]
    except OSError:
        return None
    if len(names) != 1 or not (root / names[0]).is_dir():
        return None
    return root / names[0] if _whole_tree(root / names[0]) else None


def layout_hint(root: Path, directory: str, missing: Sequence[str], option: str) -> str:
    """One sentence saying where the files ``missing`` are, or ``""`` when they are not all
    in one place nearby.

    Args:
        root: the target's root directory.
        directory: the configured ``directory`` (``""``: patch paths start at ``root``).
        missing: the patch's files (patch paths, relative to ``root / directory``) that do
            not exist there; at least one.
        option: how the user names the tree, for the advice (``"--target"``).

    Returns:
        The first that holds every file: one subdirectory ``S`` of ``root`` that is a whole
        tree (``PKG-INFO``, ``pyproject.toml``, ``setup.py`` or ``setup.cfg``): "pass
        --target ROOT/S"; several such (a directory of unpacked releases): each named;
        ``root`` itself or one other subdirectory of it, under the patch paths as they are:
        "set directory"; ``root``'s parent: "pass --target PARENT";
        ``root / directory`` once each path's first directory is dropped: "strip one more";
        else ``""``.
    """
    base = root / directory if directory else root
    if not missing or _all_under(base, missing):
        return ""
    subdirectories = _subdirectories(root)
    trees = [sub for sub in subdirectories if _whole_tree(sub)]
    found = [sub for sub in trees if _all_under(sub / directory, missing)]
    if len(found) == 1:
        return f"hint: these files are under {found[0]}: pass {option} {found[0]}"
    if found:  # a directory of unpacked releases
        names = ", ".join(str(sub) for sub in found)
        return f"hint: these files are under each of {names}: pass {option} the one you mean"
    if directory and _all_under(root, missing):
        return f'hint: these files are under {root} itself: set directory = "" (not "{directory}")'
    found = [sub for sub in subdirectories if sub not in trees and _all_under(sub, missing)]
    if len(found) == 1 and found[0] != base:
        name = found[0].relative_to(root).as_posix()
        return f'hint: these files are under {found[0]}: set directory = "{name}"'
    if _all_under(root.parent / directory, missing):
        return f"hint: these files are under {root.parent}: pass {option} {root.parent}"
    shorter = [path.split("/", 1)[1] if "/" in path else "" for path in missing]
    if all(shorter) and _all_under(base, shorter):
        first = missing[0].split("/", 1)[0]
        return (
            f"hint: these files are under {base} without their first directory ({first}/): "
            "strip one more leading directory (-pN on the patch's series line, or strip)"
        )
    return ""


def installed_layout_hint(base: Path, missing: Sequence[str]) -> str:
    """One sentence saying where the files ``missing`` are in an installed distribution, or
    that it lacks them, or ``""`` when they are all there.

    A series cut against a source tree names its files as that tree lays them out: a Debian
    series of a project with a ``src/`` layout patches ``src/filelock/_unix.py``, which an
    installed distribution has as ``filelock/_unix.py``. The engine reports each such file as
    missing; this says so, and what to do.

    Args:
        base: where patch paths start in the installed distribution (``site-packages``, or
            ``site-packages/<directory>``).
        missing: the patch's files (patch paths) that do not exist under ``base``; at least
            one.

    Returns:
        When dropping the same number (one or more) of leading directories from every path
        names a file under ``base``: a hint naming those directories, to pass ``--target``
        an unpacked sdist or to strip that many more; when that names some of the files
        and the others are nowhere (a Debian CVE fix of ``src/waitress/channel.py`` with
        its ``tests/test_channel.py``): a hint saying both, since stripping would not find
        the others, to pass ``--target`` an unpacked sdist; else a hint naming the files (a
        Debian series changes ``tests/`` and ``docs/``, which a wheel does not install), to
        pass ``--target`` an unpacked sdist; ``""`` when they are all there.
    """
    if not missing or _all_under(base, missing):
        return ""
    depth = min(path.count("/") for path in missing)
    for drop in range(1, depth + 1):
        shorter = [path.split("/", drop)[drop] for path in missing]
        if not _all_under(base, shorter):
            continue
        prefixes = sorted({"/".join(path.split("/")[:drop]) + "/" for path in missing})
        named = ", ".join(prefixes)
        more = "one more leading directory" if drop == 1 else f"{drop} more leading directories"
        return (
            f"hint: these files are under {base} without their leading {named}: the series "
            "names them as a source tree (an sdist) lays them out, and the installed "
            f"distribution has no {named}; pass --target an unpacked sdist of the pin instead, "
            f"or, to patch the installed files, strip {more} (-pN on the patch's series "
            "line, or strip)"
        )
    moved = {path: prefix for path in missing if (prefix := installed_prefix(base, path))}
    absent = [path for path in missing if path not in moved]
    if moved:
        leading = ", ".join(sorted(set(moved.values())))
        return (
            f"hint: {_listed(list(moved))} {'is' if len(moved) == 1 else 'are'} under {base} "
            f"without the leading {leading} (the series names files as a source tree, an "
            f"sdist, lays them out), and the installed distribution has no {_listed(absent)} "
            "(a wheel installs no tests, docs or setup files); pass --target an unpacked sdist "
            "of the pin instead"
        )
    return (
        f"hint: the installed distribution has no {_listed(missing)}: it holds what its wheel "
        "installed, not the source tree's tests, docs or setup files the series also "
        "changes; pass --target an unpacked sdist of the pin instead"
    )


def installed_prefix(base: Path, path: str) -> str:
    """The fewest leading directories of ``path`` (``"src/"``) without which it names a file
    under ``base`` (an installed distribution or an unpacked wheel: ``src/pkg/mod.py`` of a
    ``src/`` layout is ``pkg/mod.py`` there), or ``""``."""
    parts = path.split("/")
    for drop in range(1, len(parts)):
        if _all_under(base, ["/".join(parts[drop:])]):
            return "/".join(parts[:drop]) + "/"
    return ""


def _listed(paths: Sequence[str]) -> str:
    """The first three of ``paths``, with ``...`` after them when there are more."""
    return ", ".join(paths[:3]) + (", ..." if len(paths) > 3 else "")
