"""Where the evidence was read from: one :class:`Source` per upstream tree or distribution.

Part of the environment correspondence table (:mod:`patchkeeper.record.environment`; the runtime
audit workflow, step 7: "both local checkouts and commits/dirty state, both installed distributions
and package locations"). A tree is identified without trusting its name: an sdist or wheel from the
fetch cache by its sha256, a git checkout by its commit and dirty state (git through
:mod:`patchkeeper.upstream.gitops`), another directory by a digest of its files; an installed
distribution by its version, location and the sha256 of its ``RECORD``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from patchkeeper.errors import GitError
from patchkeeper.trees.installed import InstalledDistribution
from patchkeeper.upstream import gitops

if TYPE_CHECKING:
    from patchkeeper.upstream.fetch import FetchedTree

SDIST, WHEEL, CHECKOUT, DIRECTORY, INSTALLED, ABSENT, NOT_FETCHED = (
    "sdist",
    "wheel",
    "checkout",
    "directory",
    "installed",
    "absent",
    "not in the cache",
)


@dataclass(frozen=True)
class Source:
    """Where one upstream (or the downstream) was read from.

    Attributes:
        role: what it was for (``"pin"``, ``"audit target"``, ``"installed"``, ``"plugin"``).
        name: the project name, when known.
        version: its version, when known.
        kind: ``sdist``, ``wheel``, ``checkout``, ``directory``, ``installed``, ``absent`` or
            ``not in the cache``.
        location: the directory (an unpacked tree, a checkout, site-packages).
        identity: ``sha256 <hex>`` of the downloaded file, ``commit <hex>``, ``tree sha256
            <hex> (N files)``, or the installed ``RECORD``'s sha256.
        dirty: for a checkout, whether it has uncommitted changes.
        detail: the file name, the changed files, where it is not installed.
    """

    role: str
    name: str
    version: str | None
    kind: str
    location: str
    identity: str
    dirty: bool | None = None
    detail: str = ""


def _git(directory: Path, *args: str) -> str | None:
    """The output of ``git args`` run in ``directory``, or ``None`` when git fails there.

    ``GIT_OPTIONAL_LOCKS=0``: a status never rewrites the index of a tree it only reads;
    ``core.quotePath=false``: changed paths are shown as they are, not octal-escaped.
    """
    try:
        done = gitops.call(
            ["-c", "core.quotePath=false", *args],
            directory,
            env={"GIT_OPTIONAL_LOCKS": "0"},
            timeout=120,
        )
    except GitError:
        return None
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def checkout_source(role: str, directory: Path, exclude: tuple[str, ...] = ()) -> Source | None:
    """``directory`` as a git checkout (commit and dirty state), or ``None`` if it is not one.

    ``exclude``: paths (relative to ``directory``) that neither count as dirty nor as the
    commit's last change: the record's own files, so that committing ``AUDIT.md`` does not
    make the record stale.
    """
    if _git(directory, "rev-parse", "--is-inside-work-tree") is None:
        return None
    specs = ["--", ".", *(f":(exclude){path}" for path in exclude)]
    commit = (_git(directory, "log", "-1", "--format=%H", *specs) or "").strip()
    status = _git(directory, "status", "--porcelain", "--untracked-files=normal", *specs) or ""
    changed = [line[3:] for line in status.splitlines() if line.strip()]
    return _tree_source(
        role,
        directory,
        CHECKOUT,
        f"commit {commit}" if commit else "no commit yet",
        dirty=bool(changed),
        detail=(f"{len(changed)} changed: " + ", ".join(sorted(changed)[:5])) if changed else "",
    )


def _tree_source(role: str, directory: Path, kind: str, identity: str, **fields: Any) -> Source:
    """A tree named by its own metadata (see :func:`_sdist_metadata`), else by its directory;
    ``fields``: ``dirty``, ``detail``."""
    meta = _sdist_metadata(directory)
    return Source(
        role=role,
        name=meta.get("name", directory.name),
        version=meta.get("version"),
        kind=kind,
        location=str(directory),
        identity=identity,
        **fields,
    )


def _sdist_metadata(directory: Path) -> dict[str, str]:
    """``name``/``version`` from an unpacked sdist's ``PKG-INFO``, else from the static
    ``[project]`` table of ``pyproject.toml`` (PEP 621); empty when neither says."""
    try:
        text = (directory / "PKG-INFO").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return _pyproject_metadata(directory)
    out = {}
    for line in text.splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        if key in ("Name", "Version"):
            out[key.lower()] = value.strip()
    return out


def _pyproject_metadata(directory: Path) -> dict[str, str]:
    from patchkeeper.system.pyproject import project_table

    project = project_table(directory)
    return {k: str(project[k]) for k in ("name", "version") if isinstance(project.get(k), str)}


def tree_digest(directory: Path, exclude: tuple[str, ...] = ()) -> tuple[str, int]:
    """A digest of a directory's files (paths and contents, sorted; ``.git``,
    ``__pycache__`` and the paths ``exclude`` left out) and how many files it covers."""
    digest = hashlib.sha256()
    count = 0
    for path in sorted(directory.rglob("*")):
        relative = path.relative_to(directory).as_posix()
        parts = f"/{relative}/"
        if (
            not path.is_file()
            or "/.git/" in parts
            or "/__pycache__/" in parts
            or any(f"/{relative}".startswith(f"/{e.rstrip('/')}" + "/") for e in exclude)
            or relative in exclude
        ):
            continue
        digest.update(relative.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
        count += 1
    return digest.hexdigest(), count


def _cached_by_root(directory: Path) -> dict[str, Any] | None:
    """The fetch cache's record of the tree unpacked at ``directory``, if it is one."""
    from patchkeeper.upstream.fetch import cache_location

    root = cache_location()
    if not directory.is_relative_to(root):
        return None
    for record_file in sorted((root / "index").glob("*/*.json")):
        try:
            record = json.loads(record_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(record, dict) and (root / str(record.get("root", ""))) == directory:
            return record
    return None


def _fetched_source(role: str, record: dict[str, Any], root: Path) -> Source:
    return Source(
        role=role,
        name=str(record["name"]),
        version=str(record["version"]),
        kind=str(record["kind"]),
        location=str(root),
        identity=f"sha256 {record['sha256']}",
        detail=str(record["filename"]),
    )


def _tree_of(role: str, fetched: FetchedTree) -> Source:
    """A tree the fetch cache holds, as its record in the cache would say it."""
    record = {
        "name": fetched.name,
        "version": fetched.version,
        "kind": fetched.kind,
        "sha256": fetched.sha256,
        "filename": fetched.filename,
    }
    return _fetched_source(role, record, fetched.root)


def directory_source(role: str, directory: Path, exclude: tuple[str, ...] = ()) -> Source:
    """A directory as a checkout, a tree from the fetch cache, or else by its files' digest."""
    directory = directory.resolve()
    if not directory.is_dir():
        return Source(role, directory.name, None, ABSENT, str(directory), "", detail="missing")
    checkout = checkout_source(role, directory, exclude)
    if checkout is not None:
        return checkout
    record = _cached_by_root(directory)
    if record is not None:
        return _fetched_source(role, record, directory)
    digest, count = tree_digest(directory, exclude)
    return _tree_source(role, directory, DIRECTORY, f"tree sha256 {digest} ({count} files)")


def requirement_source(role: str, requirement: str, kinds: tuple[str, ...]) -> Source:
    """A requirement as the fetch cache holds it (never fetched here: no network)."""
    from patchkeeper.upstream.fetch import find_cached

    for kind in kinds:
        fetched = find_cached(requirement, kind)
        if fetched is not None:
            return _tree_of(role, fetched)
    name, _, version = requirement.partition("==")
    return Source(role, name.strip(), version.strip() or None, NOT_FETCHED, "", "")


def release_file_source(role: str, path: Path) -> Source | None:
    """A release's sdist or wheel file as the tree it unpacks to in the cache (where the
    command that named it read it), ``None`` for any other file or one that cannot be
    unpacked now."""
    from patchkeeper.errors import FetchError, TargetError
    from patchkeeper.upstream.fetch import unpack_local
    from patchkeeper.upstream.unpack import is_archive

    if not is_archive(str(path)):
        return None
    try:
        fetched = unpack_local(path)
    except (FetchError, TargetError):
        return None
    return _tree_of(role, fetched)


def installed_source(dist: InstalledDistribution) -> Source:
    """An installed distribution: version, location, and the sha256 of its ``RECORD`` (an
    ``.egg-info`` left in a source tree by a build has none, and says so)."""
    try:
        digest = hashlib.sha256(dist.record_path.read_bytes()).hexdigest()
    except OSError:
        digest = ""
    return Source(
        role="installed",
        name=dist.name,
        version=dist.version,
        kind=INSTALLED,
        location=str(dist.site),
        identity=f"RECORD sha256 {digest}" if digest else f"no RECORD in `{dist.dist_info}`",
        detail=dist.dist_info.name,
    )
