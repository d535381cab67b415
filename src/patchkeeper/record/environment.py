"""The environment correspondence table, measured, never asked.

The runtime audit workflow (docs/glossary.md, step 7) ends with "the environment correspondence
table: interpreter/venv, both local checkouts and commits/dirty state, both installed distributions
and package locations, effective import origins, content-comparison results". This module puts them
together (:func:`measure`):

- the interpreter (path, version, virtual environment) and the effective import origins of
  the upstream and plugin packages, each in a fresh process of that interpreter started in
  the downstream directory, with a timeout and no network
  (:mod:`patchkeeper.record.import_origins`);
- every upstream tree the evidence was read from and the installed distributions
  (:class:`~patchkeeper.record.sources.Source`, :mod:`patchkeeper.record.sources`);
- a content comparison of a source tree and the installed distribution of the same version
  (:mod:`patchkeeper.record.wheel_contents`).

:func:`differences` compares a recorded environment with a new measurement (``report
--check``), after :func:`fetched_since` has set aside the trees fetched since.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from patchkeeper.record.import_origins import (
    ImportOrigin,
    Interpreter,
    probe_interpreter,
    probe_package,
)
from patchkeeper.record.sources import (
    ABSENT,
    CHECKOUT,
    DIRECTORY,
    INSTALLED,
    NOT_FETCHED,
    SDIST,
    WHEEL,
    Source,
    installed_source,
)

# Re-exported: the names callers imported from here before the split.
from patchkeeper.record.sources import directory_source as directory_source
from patchkeeper.record.sources import requirement_source as requirement_source
from patchkeeper.record.sources import tree_digest as tree_digest
from patchkeeper.record.wheel_contents import ContentComparison, compare
from patchkeeper.trees.installed import InstalledDistribution


@dataclass(frozen=True)
class Environment:
    """Everything :func:`measure` found.

    Attributes:
        cwd: the directory the probes ran in (the downstream root).
        interpreter: the audited interpreter.
        sources: every tree read, then the installed distributions.
        origins: one per probed package.
        comparisons: source tree vs installed distribution, where both exist.
        notes: what could not be measured, one sentence each.
    """

    cwd: str
    interpreter: Interpreter
    sources: tuple[Source, ...]
    origins: tuple[ImportOrigin, ...]
    comparisons: tuple[ContentComparison, ...]
    notes: tuple[str, ...] = ()


# --------------------------------------------------------------------------- measure


def measure(
    python: Path,
    cwd: Path,
    sources: list[Source],
    packages: list[str],
    timeout: float = 120.0,
) -> Environment:
    """Measure the environment of ``python`` for the trees ``sources`` and the import
    packages ``packages`` (upstream first, then the plugin).

    Raises:
        TargetError: the interpreter cannot be run or prints no result.
    """
    interpreter = probe_interpreter(python, cwd, timeout)
    origins, installed, notes = [], [], []
    seen: set[str] = set()
    for package in packages:
        origin, dists = probe_package(python, package, cwd, timeout)
        origins.append(origin)
        if not dists:
            installed.append(Source("installed", package, None, ABSENT, "", "", detail=""))
            notes.append(f"{package} is not installed in `{interpreter.executable}`")
        for d in dists:
            if d["dist_info"] in seen:
                continue
            seen.add(d["dist_info"])
            dist = InstalledDistribution(
                d["name"], d["version"], Path(d["dist_info"]), Path(d["location"]), str(python)
            )
            installed.append(installed_source(dist))
    comparisons = _comparisons(sources, installed, python, notes)
    return Environment(
        cwd=str(cwd),
        interpreter=interpreter,
        sources=(*sources, *installed),
        origins=tuple(origins),
        comparisons=tuple(comparisons),
        notes=tuple(notes),
    )


def _same_name(a: str, b: str) -> bool:
    from patchkeeper.upstream.fetch import canonical_name

    return canonical_name(a) == canonical_name(b)


def _comparisons(
    sources: list[Source], installed: list[Source], python: Path, notes: list[str]
) -> list[ContentComparison]:
    """Compare each installed distribution with a source tree of its name and version: one
    the evidence read, else the cached sdist of that version."""
    from patchkeeper.upstream.fetch import find_cached

    out = []
    for inst in installed:
        if inst.kind != INSTALLED or not inst.identity.startswith("RECORD"):
            continue
        tree = next(
            (
                Path(s.location)
                for s in sources
                if s.kind in (SDIST, CHECKOUT, DIRECTORY)
                and s.version == inst.version
                and _same_name(s.name, inst.name)
            ),
            None,
        )
        if tree is None:
            cached = find_cached(f"{inst.name}=={inst.version}", "sdist")
            tree = cached.root if cached else None
        if tree is None:
            notes.append(
                f"no source tree of {inst.name} {inst.version} was read or cached: "
                "the installed files are not compared with a source"
            )
            continue
        dist = InstalledDistribution(
            inst.name,
            str(inst.version),
            Path(inst.location) / inst.detail,
            Path(inst.location),
            str(python),
        )
        out.append(compare(tree, dist))
    return out


def fetched_since(recorded: Environment | None, current: Environment) -> Environment:
    """``current`` with each source that ``recorded`` measured as ``not in the cache`` and
    that is now in the fetch cache as an sdist or wheel of the same role, name and version
    put back as recorded (``recorded`` ``None``: ``current`` as it is).

    Such a tree was fetched after the record was written (``verify`` fetches the pin): the
    record read nothing from the cache for it (there was nothing there to read), so no
    evidence it rests on changed. Every other field, and a source that was in the cache and
    is now another file, gone or another version, is left to :func:`differences`.
    """
    if recorded is None or len(recorded.sources) != len(current.sources):
        return current
    sources = tuple(
        old
        if old.kind == NOT_FETCHED
        and new.kind in (SDIST, WHEEL)
        and (old.role, old.name, old.version) == (new.role, new.name, new.version)
        else new
        for old, new in zip(recorded.sources, current.sources)
    )
    return replace(current, sources=sources)


def differences(recorded: Any, current: Any, prefix: str = "", limit: int = 20) -> list[str]:
    """Where two JSON forms of :class:`Environment` differ, as ``"path: old -> new"`` lines.

    >>> differences({"a": {"b": 1}}, {"a": {"b": 2}})
    ['a.b: 1 -> 2']
    """
    out: list[str] = []
    if isinstance(recorded, dict) and isinstance(current, dict):
        for key in sorted(set(recorded) | set(current)):
            out += differences(recorded.get(key), current.get(key), f"{prefix}{key}.", limit)
    elif isinstance(recorded, list) and isinstance(current, list) and len(recorded) == len(current):
        for index, (a, b) in enumerate(zip(recorded, current)):
            out += differences(a, b, f"{prefix}{index}.", limit)
    elif recorded != current:
        out.append(f"{prefix.rstrip('.')}: {_short(recorded)} -> {_short(current)}")
    return out[:limit]


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."
