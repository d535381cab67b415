"""Content comparison: a source tree (a checkout, an unpacked sdist) against an installed wheel.

The runtime audit workflow (docs/glossary.md, step 7) asks for "content-comparison results, and any
intentional source/wheel differences": a checkout and a wheel of the same version that disagree make
every other finding doubtful. The installed side is the distribution's ``RECORD`` (the hashes of
what the installer wrote, PEP 376/627), so the comparison holds even after a series was applied to
the installed files; those are counted separately as *changed since install*.

Only the distribution's import packages are compared (the first path component of its
``RECORD`` rows, found in the source tree at ``<root>/<name>`` or ``<root>/src/<name>``);
``__pycache__`` and ``*.pyc`` are left out on both sides.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.trees.installed import InstalledDistribution, read_record

#: Source layouts searched for an import package, in order (setuptools' flat and src layouts).
LAYOUTS = ("", "src/")


@dataclass(frozen=True)
class ContentComparison:
    """A source tree compared file by file with an installed distribution's ``RECORD``.

    Attributes:
        source: the source tree's directory.
        installed: ``"urllib3 1.26.20 in /venv/lib/python3.11/site-packages"``.
        packages: the compared import packages and modules (``("urllib3",)``).
        equal: how many files have the same sha256 on both sides.
        different: files whose content differs (``RECORD`` paths), sorted.
        only_source: files only in the source tree, sorted.
        only_installed: files only in ``RECORD``, sorted.
        changed_since_install: installed files whose bytes no longer match ``RECORD`` (an
            applied series, or drift), sorted; absent files count as changed.
    """

    source: str
    installed: str
    packages: tuple[str, ...]
    equal: int
    different: tuple[str, ...]
    only_source: tuple[str, ...]
    only_installed: tuple[str, ...]
    changed_since_install: tuple[str, ...]

    @property
    def agrees(self) -> bool:
        """Whether the source and the installed wheel hold the same package files."""
        return not (self.different or self.only_source or self.only_installed)


def _skipped(path: str) -> bool:
    return "__pycache__/" in path or path.endswith(".pyc")


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def installed_packages(dist: InstalledDistribution) -> tuple[str, ...]:
    """The import packages and top-level modules a distribution installs, from ``RECORD``.

    ``urllib3/__init__.py`` gives ``urllib3``; ``six.py`` gives ``six.py``; ``.dist-info``,
    ``.data`` and paths leaving site-packages (``../../bin/x``) are not packages.
    """
    names = set()
    for entry in read_record(dist):
        first = entry.path.split("/", 1)[0]
        if first.startswith("..") or first.endswith((".dist-info", ".data")) or _skipped(first):
            continue
        if "/" in entry.path or first.endswith(".py"):
            names.add(first)
    return tuple(sorted(names))


def _source_base(root: Path, name: str) -> Path | None:
    for layout in LAYOUTS:
        candidate = root / f"{layout}{name}"
        if candidate.exists():
            return candidate.parent
    return None


def _source_files(root: Path, names: tuple[str, ...]) -> dict[str, Path]:
    """``RECORD``-style path -> file, for the packages ``names`` in the source tree."""
    out: dict[str, Path] = {}
    for name in names:
        base = _source_base(root, name)
        if base is None:
            continue
        top = base / name
        files = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
        for file in files:
            relative = file.relative_to(base).as_posix()
            if not _skipped(relative):
                out[relative] = file
    return out


def compare(source: Path, dist: InstalledDistribution) -> ContentComparison:
    """Compare the source tree ``source`` with ``dist``'s ``RECORD``, package by package.

    Raises:
        TargetError: ``RECORD`` cannot be read or is malformed.
    """
    names = installed_packages(dist)
    record = {
        e.path: e.sha256
        for e in read_record(dist)
        if e.path.split("/", 1)[0] in names and not _skipped(e.path)
    }
    files = _source_files(source, names)
    equal = 0
    different, only_installed, changed = [], [], []
    for path, digest in sorted(record.items()):
        if digest is not None and _sha256(dist.site / path) != digest:
            changed.append(path)
        if path not in files:
            only_installed.append(path)
        elif _sha256(files[path]) == digest:
            equal += 1
        else:
            different.append(path)
    only_source = sorted(set(files) - set(record))
    return ContentComparison(
        source=str(source),
        installed=f"{dist.name} {dist.version} in {dist.site}",
        packages=names,
        equal=equal,
        different=tuple(different),
        only_source=tuple(only_source),
        only_installed=tuple(only_installed),
        changed_since_install=tuple(changed),
    )
