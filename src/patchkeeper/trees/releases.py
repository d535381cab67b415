"""The releases of an upstream project kept in one directory: ``NAME-VERSION``
subdirectories and the sdist and wheel files ``pip download -d DIR`` leaves, as ``audit
--releases DIR`` reads them and as a downstream whose configured ``pristine`` is one of them
keeps them (:func:`patchkeeper.trees.tree.local_releases`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from patchkeeper.errors import TargetError

if TYPE_CHECKING:
    from packaging.requirements import Requirement


def directory_releases(requirement: Requirement, releases: Path) -> dict[str, Path]:
    """The releases in ``releases`` of ``requirement``'s project, version -> path:
    subdirectories named ``NAME-VERSION`` (PEP 503 name, as an sdist's top directory is),
    and the sdist and wheel files ``pip download`` leaves there (``NAME-VERSION.tar.gz``,
    ``NAME-VERSION-TAGS.whl``), which ``--to`` takes too, for a version with no directory
    (an sdist before a wheel: the series names the files as the sdist lays them out).

    Raises:
        TargetError: ``releases`` is not a directory.
    """
    if not releases.is_dir():
        from patchkeeper.system.regular import not_a_directory

        raise TargetError(
            f"the releases directory {not_a_directory(releases) or 'does not exist'}",
            path=releases,
            hint="pass --releases a directory holding NAME-VERSION subdirectories, or the "
            "sdist or wheel files of the releases",
        )
    from packaging.utils import canonicalize_name

    name = canonicalize_name(requirement.name)
    found: dict[str, Path] = {}
    archives: list[tuple[bool, str, Path]] = []
    for child in sorted(releases.iterdir()):
        stem, sep, version = child.name.rpartition("-")
        if child.is_dir() and sep and canonicalize_name(stem) == name:
            found[version] = _unwrapped(child)
        elif child.is_file():
            release = _archive_release(child.name)
            if release is not None and release[0] == name:
                archives.append((release[2], release[1], child))
    for _, version, archive in sorted(archives, key=lambda a: a[0]):  # sdists first
        found.setdefault(version, archive)
    return found


def _archive_release(filename: str) -> tuple[str, str, bool] | None:
    """``(project, version, is a wheel)`` of an sdist's or a wheel's file name (PEP 625,
    PEP 427), the project as PEP 503 normalises it; ``None`` for any other file."""
    from packaging.utils import (
        InvalidSdistFilename,
        InvalidWheelFilename,
        canonicalize_name,
        parse_wheel_filename,
    )

    from patchkeeper.upstream.unpack import is_archive, sdist_release

    try:
        if filename.endswith(".whl"):
            wheel_name, wheel_version = parse_wheel_filename(filename)[:2]
            return canonicalize_name(wheel_name), str(wheel_version), True
        if is_archive(filename):
            name, version = sdist_release(filename)
            return canonicalize_name(name), version, False
    except (InvalidSdistFilename, InvalidWheelFilename):
        return None
    return None


def _unwrapped(directory: Path) -> Path:
    """``directory``, or the one directory it holds when that is all it holds and has the
    same name but for case (an sdist unpacked into a directory named after it, as
    patchkeeper's own cache keeps them: ``Markdown-3.4.1/Markdown-3.4.1/``): its tree is
    there, and judged one level too high every patch would be *target gone*."""
    try:
        children = [c for c in directory.iterdir() if not c.name.startswith(".")]
    except OSError:
        return directory
    alone = len(children) == 1 and children[0].is_dir()
    if alone and children[0].name.lower() == directory.name.lower():
        return children[0]
    return directory
