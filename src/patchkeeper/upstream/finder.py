"""Find one distribution file on the package indexes pip is configured with, and download it.

The indexes are pip's, as pip itself sees them (:mod:`patchkeeper.upstream.pipsettings`). The files
are listed by ``unearth.PackageFinder`` (``pip download`` of an sdist
prepares its metadata, which fails for vLLM, so it is not used).

This module is imported only when the cache cannot answer, because unearth takes a few
hundred milliseconds to import and pip's settings are read in a subprocess.
"""

from __future__ import annotations

import hashlib
import logging
import re
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

from patchkeeper.errors import FetchError, NoSuchRelease
from patchkeeper.system.atomic import write_atomic
from patchkeeper.upstream.pipsettings import PipSettings, read_pip_settings, redact_url
from patchkeeper.upstream.unpack import is_archive

#: Bytes read per chunk while downloading.
CHUNK = 1 << 20
#: A distribution kind after its article, as it is read out (``an sdist``: ``es-dist``).
_ONE = {"sdist": "an sdist", "wheel": "a wheel"}


@dataclass(frozen=True)
class Candidate:
    """One distribution file chosen on an index.

    Attributes:
        name: canonical project name (PEP 503), ``"urllib3"``.
        version: the file's version, ``"1.26.20"``.
        kind: ``"sdist"`` or ``"wheel"``.
        filename: ``"urllib3-1.26.20.tar.gz"``.
        url: where to download it (may be ``file://``).
        hashes: the index's digests, ``{"sha256": "40c2..."}`` (may be empty for a bare
            find-links directory).
    """

    name: str
    version: str
    kind: str
    filename: str
    url: str
    hashes: dict[str, str]


class Finder:
    """An ``unearth.PackageFinder`` configured from :class:`PipSettings`.

    Args:
        settings: where to look; :func:`read_pip_settings` when ``None``.
    """

    def __init__(self, settings: PipSettings | None = None) -> None:
        import unearth

        self.settings = settings or read_pip_settings()
        if not (self.settings.index_urls or self.settings.find_links):
            # unearth would fall back to its own default index; pip looks nowhere.
            raise FetchError(
                "pip is configured with no index (no-index) and no usable find-links",
                hint="unset PIP_NO_INDEX / no-index, or add an existing find-links directory",
            )
        self._session = self._make_session()
        self._finder = unearth.PackageFinder(
            session=self._session,
            index_urls=self.settings.index_urls,
            find_links=self.settings.find_links,
            trusted_hosts=self.settings.trusted_hosts,
            ignore_compatibility=True,  # any platform's file is fine as a source of files
        )

    def __enter__(self) -> Finder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP connections."""
        self._session.close()

    def _make_session(self) -> Any:
        from unearth.fetchers import PyPIClient

        settings = self.settings
        verify: ssl.SSLContext | bool = True
        if settings.cert or settings.client_cert:
            verify = ssl.create_default_context(cafile=settings.cert)
            if settings.client_cert:
                verify.load_cert_chain(settings.client_cert)
        extra: dict[str, Any] = {"proxy": settings.proxy} if settings.proxy else {}
        return PyPIClient(
            trusted_hosts=settings.trusted_hosts,
            verify=verify,
            timeout=settings.timeout,
            **extra,
        )

    def choose(self, requirement: Requirement, kind: str) -> Candidate:
        """Choose the file of ``kind`` for the highest version matching ``requirement``.

        For a wheel, a pure one (``py3-none-any``) is preferred, then one for this interpreter,
        then any platform's. Yanked files count only for an exact pin (PEP 592).

        Raises:
            FetchError: no such project, no matching version, no file of ``kind`` (the hint
                says whether the other kind exists and how to ask for it), or an index cannot
                be reached (the message names the requirement and the index asked).
        """
        with self._network_errors(str(requirement)), _quiet_unearth() as notes:
            best = self._finder.find_best_match(requirement)
            applicable = list(best.applicable)
            candidates = applicable or list(best.candidates)
        if not candidates:
            raise self._no_project(requirement.name, notes)
        if not applicable:
            versions = sorted({p.version for p in candidates if p.version}, key=_version_key)
            raise NoSuchRelease(
                f"no version of {requirement.name} matches {requirement}",
                hint=available_versions(versions, _pinned(requirement)),
            )
        chosen = _first_of_kind(applicable, kind)
        if chosen is None:
            other = "wheel" if kind == "sdist" else "sdist"
            if _first_of_kind(applicable, other) is None:
                raise FetchError(f"no sdist or wheel of {requirement} on the package indexes")
            raise FetchError(
                f"no {kind} of {requirement} on the package indexes, only {_ONE[other]}",
                hint=f'set fetch = "{other}" in [tool.patchkeeper] to use the {other}',
            )
        return chosen

    def versions(self, name: str, kind: str) -> list[str]:
        """Every version of the project ``name`` that has a file of ``kind`` on the indexes
        (yanked files left out, PEP 592), in no particular order.

        Raises:
            FetchError: no such project, or an index cannot be reached.
        """
        with self._network_errors(name), _quiet_unearth() as notes:
            packages = list(self._finder.find_all_packages(name))
        if not packages:
            raise self._no_project(name, notes)
        return sorted({p.version for p in packages if p.version and _kind(p) == kind})

    def _no_project(self, name: str, notes: list[str]) -> FetchError:
        """The error for a project no index listed. An index served over plain http from a
        host pip's ``trusted-host`` does not name is never asked (pip skips it, and so does
        unearth): the project may well be there, so the error names that index and how to
        trust it rather than calling the name wrong."""
        skipped = sorted(
            {redact_url(m.group(1)) for note in notes if (m := _UNTRUSTED.search(note))}
        )
        if not skipped:
            return FetchError(
                f"no project named {name!r} on the package indexes",
                hint=f"check the name ({self.settings.describe()}){_notes(notes)}",
            )
        hosts = sorted({urlsplit(url).hostname or url for url in skipped})
        return FetchError(
            f"no project named {name!r} on the package indexes asked; not asked: "
            f"{', '.join(skipped)} (plain http from a host pip does not trust)",
            hint=f"trust the host as pip does (trusted-host = {' '.join(hosts)} in pip's "
            f"configuration, or PIP_TRUSTED_HOST), or serve the index over https "
            f"({self.settings.describe()})",
        )

    def download(self, candidate: Candidate, dest: Path) -> str:
        """Download ``candidate`` to the file ``dest`` atomically; return its hex sha256.

        The file is written to a temporary name beside ``dest`` and renamed into place only
        when the index's digest matches (sha256 preferred, else any algorithm ``hashlib``
        has), so a concurrent reader sees either no file or the whole verified one.

        Raises:
            FetchError: the download failed, or the digest differs (the bad file is deleted).
        """
        algorithm, expected = pick_hash(candidate.hashes)

        def download(out: BinaryIO) -> dict[str, str]:
            with self._network_errors(candidate.filename):
                digests = _stream_to(self._session, candidate.url, out, algorithm)
            if expected is not None and digests[algorithm] != expected.lower():
                raise hash_mismatch(candidate.filename, algorithm, expected, digests[algorithm])
            return digests

        digests = write_atomic(dest, download, parents=True)
        assert digests is not None
        return digests["sha256"]

    @contextmanager
    def _network_errors(self, what: str) -> Iterator[None]:
        import httpx2

        try:
            yield
        except httpx2.HTTPStatusError as exc:
            raise FetchError(
                f"cannot download {what}: {exc.response.status_code} from {_redact(exc)}",
                hint=self.settings.describe(),
            ) from exc
        except (httpx2.TransportError, OSError) as exc:
            raise FetchError(
                f"cannot reach the package index for {what} ({_redact(exc)}): {exc}",
                hint=f"{self.settings.describe()}; check the network, or fill the cache "
                "on a machine that can reach the index",
            ) from exc


def pick_hash(hashes: dict[str, str]) -> tuple[str, str | None]:
    """Return ``(algorithm, expected digest)`` to check, sha256 preferred.

    With no usable digest the algorithm is ``"sha256"`` and the expected digest ``None``.

    >>> pick_hash({"md5": "ab", "sha256": "cd"})
    ('sha256', 'cd')
    >>> pick_hash({})
    ('sha256', None)
    """
    if "sha256" in hashes:
        return "sha256", hashes["sha256"]
    for algorithm in sorted(hashes):
        if algorithm in hashlib.algorithms_available:
            return algorithm, hashes[algorithm]
    return "sha256", None


def hash_mismatch(filename: str, algorithm: str, expected: str, actual: str) -> FetchError:
    """The error for a file whose digest differs from the index's."""
    return FetchError(
        f"hash mismatch for {filename}: the index says {algorithm}={expected}, "
        f"the downloaded file has {algorithm}={actual}; the file was deleted",
        hint="the download was corrupted or the index changed; try again, and report a "
        "lasting mismatch to the index's maintainers",
    )


def file_digests(path: Path, algorithm: str = "sha256") -> dict[str, str]:
    """Hex digests of the file at ``path``: always ``sha256``, plus ``algorithm``."""
    hashers = _hashers(algorithm)
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(CHUNK), b""):
            for hasher in hashers.values():
                hasher.update(chunk)
    return {name: hasher.hexdigest() for name, hasher in hashers.items()}


def _hashers(algorithm: str) -> dict[str, Any]:
    return {"sha256": hashlib.sha256(), algorithm: hashlib.new(algorithm)}


def _stream_to(session: Any, url: str, out: Any, algorithm: str) -> dict[str, str]:
    """Write the body at ``url`` to ``out``; return its hex digests by algorithm name. A
    progress bar (bytes and rate) follows the download when standard error is a terminal."""
    from patchkeeper.progress import track

    hashers = _hashers(algorithm)
    with session.get_stream(url) as response:
        response.raise_for_status()
        with track(f"downloading {_file_name(url)}", _length(response), "bytes") as advance:
            for chunk in response.iter_bytes(chunk_size=CHUNK):
                out.write(chunk)
                for hasher in hashers.values():
                    hasher.update(chunk)
                advance(len(chunk))
    return {name: hasher.hexdigest() for name, hasher in hashers.items()}


def _length(response: Any) -> int | None:
    """The body's size in bytes from its ``Content-Length`` header, ``None`` when not given
    (or compressed: the header then counts the encoded bytes, not those written)."""
    headers = response.headers
    value = headers.get("content-length", "")
    if headers.get("content-encoding", "identity") != "identity" or not value.isdigit():
        return None
    return int(value)


def _file_name(url: str) -> str:
    """The last part of a URL's path: ``vllm-0.28.0.tar.gz``."""
    from urllib.parse import urlsplit

    return urlsplit(url).path.rsplit("/", 1)[-1] or url


def _first_of_kind(packages: list[Any], kind: str) -> Candidate | None:
    # ``packages`` come best first: highest version, then the most compatible wheel tags.
    for package in packages:
        files = [p for p in packages if p.version == package.version and _kind(p) == kind]
        if files:
            pure = [p for p in files if kind == "wheel" and _is_pure(p.link.filename)]
            best = (pure or files)[0]
            return Candidate(
                name=canonicalize_name(best.name),
                version=str(_version_key(best.version)),
                kind=kind,
                filename=best.link.filename,
                url=best.link.url_without_fragment,
                hashes={k: v[0] for k, v in (best.link.hash_option or {}).items()},
            )
    return None


def _kind(package: Any) -> str | None:
    if package.link.is_wheel:
        return "wheel"
    return "sdist" if is_archive(package.link.filename) else None


def _is_pure(filename: str) -> bool:
    tags = parse_wheel_filename(filename)[3]
    return all(tag.abi == "none" and tag.platform == "any" for tag in tags)


def _version_key(version: str) -> Any:
    from packaging.version import Version

    return Version(version)


def _redact(exc: Any) -> str:
    try:
        return redact_url(str(exc.request.url))
    except (AttributeError, RuntimeError):  # an error raised before a request existed
        return "no request"


#: unearth's note for an index it skipped: plain http from a host not in trusted-host.
_UNTRUSTED = re.compile(r"Skipping (\S+) for not being trusted")


def _notes(notes: list[str]) -> str:
    return "".join(f"\n  {note}" for note in notes[:5])


@contextmanager
def _quiet_unearth() -> Iterator[list[str]]:
    """Collect unearth's warnings (a 404 per index) instead of letting them reach stderr."""
    logger = logging.getLogger("unearth")
    notes: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            notes.append(record.getMessage())

    handler = Collect(logging.WARNING)
    saved = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield notes
    finally:
        logger.removeHandler(handler)
        logger.propagate = saved


#: How many versions :func:`available_versions` names at most.
SHOWN_VERSIONS = 12


def _pinned(requirement: Requirement) -> str | None:
    """The version ``requirement`` names exactly (``jwcrypto==1.1.0``), else ``None``."""
    specifiers = list(requirement.specifier)
    if len(specifiers) != 1 or specifiers[0].operator not in ("==", "==="):
        return None
    version = specifiers[0].version
    try:
        _version_key(version)
    except ValueError:  # a wildcard (==1.1.*) or no PEP 440 version
        return None
    return version


def available_versions(versions: list[str], wanted: str | None = None) -> str:
    """The hint that names the versions a project has (``versions``, oldest first): all of
    them, or :data:`SHOWN_VERSIONS` of them and how many there are, so that a version left
    out is never taken for one the index does not hold. Those shown are the ones around
    ``wanted`` (the version an exact requirement names, which the index does not hold: a
    Debian pin packaged from a tag never published, a digit dropped), where the release to
    give instead is; without it, the newest.

    >>> available_versions(["1.0", "1.1"])
    'available versions: 1.0, 1.1'
    >>> available_versions([f"1.{n}" for n in range(14)])[:60]
    'available versions (the newest 12 of 14): 1.2, 1.3, 1.4, 1.5'
    >>> available_versions([f"1.{n}" for n in range(20)], "1.4.5")[:58]
    'available versions (12 of 20, around 1.4.5): 1.0, 1.1, 1.2'
    """
    if len(versions) <= SHOWN_VERSIONS:
        return f"available versions: {', '.join(versions)}"
    if wanted is None:
        shown = ", ".join(versions[-SHOWN_VERSIONS:])
        return f"available versions (the newest {SHOWN_VERSIONS} of {len(versions)}): {shown}"
    key = _version_key(wanted)
    below = sum(1 for version in versions if _version_key(version) < key)
    start = max(0, min(below - SHOWN_VERSIONS // 2, len(versions) - SHOWN_VERSIONS))
    shown = ", ".join(versions[start : start + SHOWN_VERSIONS])
    return f"available versions ({SHOWN_VERSIONS} of {len(versions)}, around {wanted}): {shown}"
