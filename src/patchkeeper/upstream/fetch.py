"""Turn a requirement (``urllib3==1.26.20``) into an unpacked upstream tree in a cache.

A requirement target is fetched once (an sdist or a wheel, no dependencies), checked against
the index's hash, unpacked into a cache, and never built. The cache (:func:`cache_root`)
holds::

    index/<name>/<version>.<kind>.json   one record per fetched tree (written last, atomically)
    downloads/<name>/<file>              the verified distribution files
    trees/<name>/<file stem>/            the unpacked files (an sdist's single top directory
                                         sits inside: trees/urllib3/urllib3-1.26.20/urllib3-1.26.20)

An exact pin whose record exists is answered from the record alone: no network, no import of
pip, unearth or packaging (``patchkeeper audit --to urllib3==1.26.20`` must finish in 0.5 s with
interpreter start). Anything else asks the indexes pip is configured
with (:mod:`patchkeeper.upstream.finder`) for the best matching version and caches it by that
version.

Every write is a temporary file or directory renamed into place, so two processes fetching the
same requirement at once both end with the same complete tree.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.constants import CACHE_ENV
from patchkeeper.errors import FetchError, TargetError
from patchkeeper.system.atomic import settle_dir, write_atomic
from patchkeeper.system.regular import not_a_directory
from patchkeeper.system.removal import remove_tree

#: The kinds of distribution file a requirement can be fetched as (config key ``fetch``).
KINDS = ("sdist", "wheel")

#: Version of the layout of a cache record; a record of another format is ignored.
RECORD_FORMAT = 1

#: ``NAME==VERSION`` with optional extras and spaces, no wildcard, no marker: the only form the
#: fast path answers (PEP 508 names; the version characters of PEP 440 public and local parts).
_EXACT_PIN = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?"
    r"\s*==\s*(?P<version>[A-Za-z0-9][A-Za-z0-9.+!_-]*)\s*$"
)

#: Characters that separate words in a project name; PEP 503 normalises runs of them to "-".
_NAME_SEPARATORS = re.compile(r"[-_.]+")

#: A first character that marks a path rather than a requirement: ``./x``, ``/x``, ``~/x``.
_PATH_START = (".", "/", "~", "\\")


def cache_location() -> Path:
    """The corpus cache directory, whether or not it exists (nothing is created).

    ``$PATCHKEEPER_CACHE`` when set (``~`` expanded), else ``~/.cache/patchkeeper-corpus``
    (BRIEF: real downloads go to that shared cache, never into a repository).
    """
    configured = os.environ.get(CACHE_ENV)
    root = Path(configured).expanduser() if configured else Path.home() / ".cache"
    return root if configured else root / "patchkeeper-corpus"


def cache_root() -> Path:
    """Return the corpus cache directory (:func:`cache_location`), creating it when missing.

    Raises:
        FetchError: it cannot be made (a read-only home, ``$PATCHKEEPER_CACHE`` under a
            file): the error names the folder and the variable that moves the cache (exit 2).
    """
    root = cache_location()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        where = Path(exc.filename) if exc.filename else root
        what = None
        if isinstance(exc, (FileExistsError, NotADirectoryError)):
            # mkdir says "File exists" or "Not a directory" of a file in the way (the cache
            # or a folder above it): name that file and what it is
            path = (*reversed(where.parents), where)
            blocking = next((p for p in path if os.path.lexists(p) and not p.is_dir()), None)
            if blocking is not None:
                where, what = blocking, not_a_directory(blocking)
        raise FetchError(
            f"the cache of downloaded releases cannot be made at {root}: "
            + (f"{where} {what}" if what else str(exc.strerror or exc)),
            path=where,
            hint=f"set {CACHE_ENV} to a directory this user can write",
        ) from None
    return root


@dataclass(frozen=True)
class FetchedTree:
    """An upstream release unpacked in the cache.

    Attributes:
        requirement: the requirement as asked, ``"urllib3==1.26.20"``.
        name: canonical project name (PEP 503), ``"urllib3"``.
        version: the version fetched, ``"1.26.20"``.
        kind: ``"sdist"`` or ``"wheel"``.
        filename: the distribution file name, ``"urllib3-1.26.20.tar.gz"``.
        sha256: hex sha256 of the downloaded file (checked against the index's hash).
        root: the unpacked tree: for an sdist its single top-level directory
            (``.../urllib3-1.26.20``); for a wheel the directory it was unpacked into, in
            site-packages layout (``urllib3/``, ``urllib3-1.26.20.dist-info/``).
    """

    requirement: str
    name: str
    version: str
    kind: str
    filename: str
    sha256: str
    root: Path


def canonical_name(name: str) -> str:
    """Normalise a project name as PEP 503 does (without importing packaging).

    >>> canonical_name("Django")
    'django'
    >>> canonical_name("vllm_ascend")
    'vllm-ascend'
    """
    return _NAME_SEPARATORS.sub("-", name).lower()


def is_requirement(spec: str) -> bool:
    """Whether ``spec`` (a ``--to`` or ``--pristine`` value) is a requirement, not a path.

    A requirement names a project and a version specifier: ``vllm==0.28.0``,
    ``django>=4.2,<5``. An existing path, anything starting like a path (``./x``, ``/x``,
    ``~/x``) and a bare name (``django``, which could be a missing directory) are not.

    >>> is_requirement("vllm==0.28.0"), is_requirement("django>=4.2,<5")
    (True, True)
    >>> is_requirement("./x"), is_requirement("git:v1.0")
    (False, False)
    """
    text = spec.strip()
    if not text or text.startswith(_PATH_START) or os.path.exists(spec):
        return False
    if _EXACT_PIN.match(text):
        return True
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return False
    return bool(requirement.specifier) and requirement.url is None


def find_cached(requirement: str, kind: str = "sdist") -> FetchedTree | None:
    """Answer an exact pin from the cache alone, or return ``None``.

    Only ``NAME==VERSION`` whose record (and tree) is in the cache is answered; it costs a
    regular expression, one small JSON read and one ``stat``. Nothing is downloaded.

    Raises:
        FetchError: ``kind`` is not ``"sdist"`` or ``"wheel"``.
    """
    _check_kind(kind)
    match = _EXACT_PIN.match(requirement)
    if match is None:
        return None
    return _read_record(requirement, canonical_name(match["name"]), match["version"], kind)


def exact_pin(spec: str) -> tuple[str, str] | None:
    """``(name, version)`` of ``spec`` when it is an exact pin ``NAME==VERSION`` (extras
    aside), else ``None``; a path that exists is no pin.

    >>> exact_pin("requests==2.32.3"), exact_pin("requests>=2")
    (('requests', '2.32.3'), None)
    """
    if not is_requirement(spec):
        return None
    match = _EXACT_PIN.match(spec)
    return None if match is None else (match["name"], match["version"])


def fetch_requirement(requirement: str, kind: str = "sdist") -> FetchedTree:
    """Return the unpacked tree of ``requirement``'s best matching release, fetching it once.

    Args:
        requirement: a PEP 508 requirement with a version specifier, ``"urllib3==1.26.20"``
            or ``"idna>=3.0,<3.5"``. Extras and markers are ignored.
        kind: ``"sdist"`` (the project's source tree) or ``"wheel"`` (a pure wheel preferred,
            else any platform's: it is a source of files, never installed).

    An exact pin already in the cache is answered without network (see :func:`find_cached`);
    a range asks the index for the best matching version, then uses the cache for it.

    Raises:
        FetchError: the requirement is malformed or a direct URL; no such project; no
            matching version; no file of ``kind`` (the hint names the other kind and the
            ``fetch`` setting); an index or the file cannot be reached; hash mismatch; an
            unsafe or corrupt archive.
    """
    cached = find_cached(requirement, kind)
    if cached is not None:
        return cached
    parsed = _parse_requirement(requirement)
    name = canonical_name(parsed.name)
    pinned = _exact_version(parsed)
    if pinned is not None:
        cached = _read_record(requirement, name, pinned, kind)
        if cached is not None:
            return cached
    from patchkeeper.upstream.finder import Finder

    with Finder() as finder:
        candidate = finder.choose(parsed, kind)
        cached = _read_record(requirement, name, candidate.version, kind)
        if cached is not None:
            return cached
        return _fetch_candidate(requirement, finder, candidate)


def _fetch_candidate(requirement: str, finder: Any, candidate: Any) -> FetchedTree:
    """Download (or reuse a verified download), unpack, and record ``candidate``."""
    root = cache_root()
    archive = root / "downloads" / candidate.name / candidate.filename
    sha256 = _verified_download(archive, candidate) or finder.download(candidate, archive)
    from patchkeeper.upstream.unpack import archive_stem

    unpacked = root / "trees" / candidate.name / archive_stem(candidate.filename)
    if not unpacked.is_dir():
        _unpack_atomically(archive, unpacked)
    tree_root = _sdist_top(unpacked) if candidate.kind == "sdist" else unpacked
    from datetime import datetime, timezone

    record = {
        "format": RECORD_FORMAT,
        "name": candidate.name,
        "version": candidate.version,
        "kind": candidate.kind,
        "filename": candidate.filename,
        "sha256": sha256,
        "index-hashes": candidate.hashes,
        "url": _without_auth(candidate.url),
        "root": tree_root.relative_to(root).as_posix(),
        "fetched": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    _write_json_atomically(record_path(candidate.name, candidate.version, candidate.kind), record)
    return FetchedTree(
        requirement=requirement,
        name=candidate.name,
        version=candidate.version,
        kind=candidate.kind,
        filename=candidate.filename,
        sha256=sha256,
        root=tree_root,
    )


def record_path(name: str, version: str, kind: str) -> Path:
    """The cache record of ``(name, version, kind)``: ``index/<name>/<version>.<kind>.json``."""
    return cache_root() / "index" / name / f"{version}.{kind}.json"


def _read_record(requirement: str, name: str, version: str, kind: str) -> FetchedTree | None:
    try:
        with record_path(name, version, kind).open(encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        return None
    root = cache_root() / record["root"]
    if not root.is_dir():  # the tree was removed by hand: fetch again
        return None
    return FetchedTree(
        requirement=requirement,
        name=record["name"],
        version=record["version"],
        kind=record["kind"],
        filename=record["filename"],
        sha256=record["sha256"],
        root=root,
    )


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise FetchError(
            f"unknown distribution kind {kind!r}",
            hint='the config key fetch takes "sdist" or "wheel"',
        )


def _parse_requirement(requirement: str) -> Any:
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        parsed = Requirement(requirement)
    except InvalidRequirement as exc:
        raise FetchError(
            f"not a requirement: {requirement!r} ({str(exc).splitlines()[0]})",
            hint="write NAME==VERSION or NAME with a version range, e.g. urllib3==1.26.20",
        ) from exc
    if parsed.url is not None:
        raise FetchError(
            f"a direct URL requirement is not supported: {requirement}",
            hint="download and unpack the file yourself and pass the directory",
        )
    return parsed


def _exact_version(parsed: Any) -> str | None:
    """The one version an exact pin (``==X`` without wildcard, or ``===X``) allows."""
    specs = list(parsed.specifier)
    if len(specs) != 1 or specs[0].operator not in ("==", "===") or "*" in specs[0].version:
        return None
    if specs[0].operator == "===":
        return str(specs[0].version)
    from packaging.version import InvalidVersion, Version

    try:
        return str(Version(specs[0].version))
    except InvalidVersion:
        return None


def _verified_download(archive: Path, candidate: Any) -> str | None:
    """The sha256 of an already downloaded ``archive`` if it matches the index, else ``None``.

    A cached file that does not match (truncated, corrupted) is deleted so it is downloaded
    again. A file the index gives no hash for is never reused.
    """
    from patchkeeper.upstream.finder import file_digests, pick_hash

    algorithm, expected = pick_hash(candidate.hashes)
    if expected is None or not archive.is_file():
        return None
    digests = file_digests(archive, algorithm)
    if digests[algorithm] == expected.lower():
        return digests["sha256"]
    archive.unlink(missing_ok=True)
    return None


def _unpack_atomically(archive: Path, dest: Path, hint: str | None = None) -> None:
    """Unpack ``archive`` into a temporary directory beside ``dest``, then rename it there.
    ``hint``: the advice given when it is corrupt, when it is not a download of the cache
    (:func:`patchkeeper.upstream.unpack.local_hint`).

    If another process renamed its copy first, ours is discarded and theirs kept.
    """
    import tempfile

    from patchkeeper.upstream.unpack import CACHED_HINT, unpack_archive

    dest.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent))
    try:
        settle_dir(scratch)
        unpack_archive(archive, scratch, hint or CACHED_HINT)
        try:
            os.rename(scratch, dest)
        except OSError:
            if not dest.is_dir():
                raise
    finally:
        if scratch.exists():
            remove_tree(scratch, ignore_errors=True)


def unpack_local(archive: Path, upstream: str | None = None) -> FetchedTree:
    """A local sdist or wheel file (what ``pip download`` leaves), unpacked into the cache
    once, as a fetched release is: under ``trees/local/<sha256>/``, so a file changed under
    the same name is a new tree. Its name and version are those of its file name (PEP 625,
    PEP 427); ``requirement`` is the path as given. ``upstream``, when given, is the
    project the release must be of (checked before anything is read or unpacked).

    Raises:
        FetchError: the file cannot be read, its name is no sdist's or wheel's, or it
            cannot be unpacked (naming it).
        TargetError: it is a release of another project than ``upstream``.
    """
    import hashlib

    from packaging.utils import (
        InvalidSdistFilename,
        InvalidWheelFilename,
        parse_wheel_filename,
    )

    from patchkeeper.upstream.unpack import archive_stem, local_hint, sdist_release

    wheel = archive.name.endswith(".whl")
    try:
        name, version = (
            parse_wheel_filename(archive.name)[:2] if wheel else sdist_release(archive.name)
        )
    except (InvalidSdistFilename, InvalidWheelFilename):
        raise FetchError(
            "this file name is no sdist's (NAME-VERSION.tar.gz, or an older sdist's .zip, "
            ".tar.bz2, .tgz) or wheel's (NAME-VERSION-TAGS.whl), so it names no release",
            path=archive,
            hint="pass the file under the name the package index gives it, its unpacked "
            "directory, or NAME==VERSION",
        ) from None
    if upstream and canonical_name(upstream) != canonical_name(str(name)):
        raise TargetError(
            f"this is a release of {name}, but the configured upstream is {upstream}",
            path=archive,
            hint=f"pass a release of {upstream}, or fix 'upstream' in the configuration",
        )
    digest = hashlib.sha256()
    try:
        with archive.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    except OSError as exc:
        raise FetchError(
            f"cannot read the archive: {exc.strerror}",
            path=archive,
            hint="give a readable sdist or wheel file, or the directory it unpacks to",
        ) from None
    sha256 = digest.hexdigest()
    unpacked = cache_root() / "trees" / "local" / sha256 / archive_stem(archive.name)
    if not unpacked.is_dir():
        _unpack_atomically(archive, unpacked, local_hint(f"{name}=={version}", wheel))
    return FetchedTree(
        requirement=str(archive),
        name=canonical_name(str(name)),
        version=str(version),
        kind="wheel" if wheel else "sdist",
        filename=archive.name,
        sha256=sha256,
        root=unpacked if wheel else _sdist_top(unpacked),
    )


def _sdist_top(unpacked: Path) -> Path:
    """An sdist's single top-level directory (``urllib3-1.26.20/``), else ``unpacked`` itself."""
    entries = list(unpacked.iterdir())
    if len(entries) == 1 and entries[0].is_dir():
        return entries[0]
    return unpacked


def _write_json_atomically(path: Path, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    write_atomic(path, text.encode("utf-8"), parents=True)


def _without_auth(url: str) -> str:
    """``scheme://user:secret@host/path`` -> ``scheme://host/path`` (never store a secret)."""
    return re.sub(r"^([a-z][a-z0-9+.-]*://)[^/@]*@", r"\1", url, flags=re.IGNORECASE)
