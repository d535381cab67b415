"""Find one distribution file on the package indexes pip is configured with, and download it.

The indexes are pip's, as pip itself sees them: its configuration files and ``PIP_*``
environment variables, read through pip's own option parser (``pip download``'s options:
``index-url``, ``extra-index-url``, ``no-index``, ``find-links``, ``trusted-host``, ``cert``,
``client-cert``, ``proxy``, ``timeout``). When nothing sets ``index-url``, pip's default
applies. The files are listed by ``unearth.PackageFinder`` (issue 2, "Targets": ``pip
download`` of an sdist prepares its metadata, which fails for vLLM, so it is not used).

This module is imported only when the cache cannot answer, because pip and unearth take a few
hundred milliseconds to import.
"""

from __future__ import annotations

import hashlib
import logging
import os
import ssl
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

from patchkeeper.errors import FetchError
from patchkeeper.unpack import is_archive

#: Bytes read per chunk while downloading.
CHUNK = 1 << 20


@dataclass(frozen=True)
class PipSettings:
    """Where pip looks for distributions, with the options that shape its connections.

    Attributes:
        index_urls: ``index-url`` first (pip's default when unset), then each
            ``extra-index-url``; empty under ``no-index``.
        find_links: ``find-links`` entries: URLs, or absolute paths that exist (pip ignores
            missing local ones, and so does this).
        trusted_hosts: ``trusted-host`` entries (``host`` or ``host:port``).
        cert: a CA bundle path, or ``None`` for the default trust store.
        client_cert: a client certificate (PEM with key), or ``None``.
        proxy: ``scheme://[user:passwd@]host:port``, or ``None``.
        timeout: seconds per socket operation.
    """

    index_urls: tuple[str, ...]
    find_links: tuple[str, ...]
    trusted_hosts: tuple[str, ...] = ()
    cert: str | None = None
    client_cert: str | None = None
    proxy: str | None = None
    timeout: float = 15.0

    def describe(self) -> str:
        """Say where pip looks, in pip's words, passwords hidden.

        ``Looking in indexes: URL, URL`` (and ``; Looking in links: PATH``), as ``pip
        download`` prints before it searches.
        """
        from pip._internal.utils.misc import redact_auth_from_url

        indexes = ", ".join(redact_auth_from_url(url) for url in self.index_urls) or "none"
        text = f"Looking in indexes: {indexes}"
        if self.find_links:
            links = ", ".join(redact_auth_from_url(url) for url in self.find_links)
            text += f"; Looking in links: {links}"
        return text


def read_pip_settings() -> PipSettings:
    """Read pip's settings the way ``pip download`` does (files, then ``PIP_*`` variables).

    Raises:
        FetchError: pip is not importable, or its configuration is invalid.
    """
    try:
        from pip._internal.commands import create_command
    except ImportError as exc:
        raise FetchError(
            "pip is not importable in this interpreter",
            hint="patchkeeper follows pip's index settings: install pip into this environment",
        ) from exc
    try:
        options, _ = create_command("download").parse_args([])
    except SystemExit as exc:  # pip's option parser exits on a bad configuration value
        raise FetchError(
            "pip's configuration is invalid",
            hint="run `python -m pip config list` and fix the value pip complains about",
        ) from exc
    index_urls = [] if options.no_index else [options.index_url, *options.extra_index_urls]
    return PipSettings(
        index_urls=tuple(index_urls),
        find_links=tuple(_usable_find_links(options.find_links)),
        trusted_hosts=tuple(options.trusted_hosts),
        cert=options.cert or None,
        client_cert=options.client_cert or None,
        proxy=options.proxy or None,
        timeout=float(options.timeout),
    )


def _usable_find_links(entries: list[str]) -> Iterator[str]:
    # pip's SearchScope.create: expand "~", make existing paths absolute; a local path that
    # does not exist is skipped (pip warns and ignores it), a URL is kept as it is.
    for entry in entries:
        if "://" in entry:
            yield entry
            continue
        path = os.path.expanduser(entry)
        if os.path.exists(path):
            yield os.path.abspath(path)


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
        self._finder = unearth.PackageFinder(
            session=self._session(),
            index_urls=self.settings.index_urls,
            find_links=self.settings.find_links,
            trusted_hosts=self.settings.trusted_hosts,
            ignore_compatibility=True,  # any platform's file is fine as a source of files
        )
        if not self._finder.sources:
            raise FetchError(
                "pip is configured with no index and no find-links (no-index)",
                hint="unset PIP_NO_INDEX / no-index, or add a find-links directory",
            )

    def _session(self) -> Any:
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
            raise FetchError(
                f"no project named {requirement.name!r} on the package indexes",
                hint=f"check the name ({self.settings.describe()}){_notes(notes)}",
            )
        if not applicable:
            versions = sorted({p.version for p in candidates if p.version}, key=_version_key)
            raise FetchError(
                f"no version of {requirement.name} matches {requirement}",
                hint=f"available versions: {', '.join(versions[-12:])}",
            )
        chosen = _first_of_kind(applicable, kind)
        if chosen is None:
            other = "wheel" if kind == "sdist" else "sdist"
            if _first_of_kind(applicable, other) is None:
                raise FetchError(f"no sdist or wheel of {requirement} on the package indexes")
            raise FetchError(
                f"no {kind} of {requirement} on the package indexes, only a {other}",
                hint=f'set fetch = "{other}" in [tool.patchkeeper] to use the {other}',
            )
        return chosen

    def download(self, candidate: Candidate, dest: Path) -> str:
        """Download ``candidate`` to the file ``dest`` atomically; return its hex sha256.

        The file is written to a temporary name beside ``dest`` and renamed into place only
        when the index's digest matches (sha256 preferred, else any algorithm ``hashlib``
        has), so a concurrent reader sees either no file or the whole verified one.

        Raises:
            FetchError: the download failed, or the digest differs (the bad file is deleted).
        """
        algorithm, expected = pick_hash(candidate.hashes)
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
        tmp = Path(tmp_name)
        try:
            with os.fdopen(fd, "wb") as out, self._network_errors(candidate.filename):
                digests = _stream_to(self._finder.session, candidate.url, out, algorithm)
            if expected is not None and digests[algorithm] != expected.lower():
                raise hash_mismatch(candidate.filename, algorithm, expected, digests[algorithm])
            os.replace(tmp, dest)
        finally:
            tmp.unlink(missing_ok=True)
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
    hashers = _hashers(algorithm)
    with session.get_stream(url) as response:
        response.raise_for_status()
        for chunk in response.iter_bytes(chunk_size=CHUNK):
            out.write(chunk)
            for hasher in hashers.values():
                hasher.update(chunk)
    return {name: hasher.hexdigest() for name, hasher in hashers.items()}


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
    from pip._internal.utils.misc import redact_auth_from_url

    try:
        return redact_auth_from_url(str(exc.request.url))
    except (AttributeError, RuntimeError):  # an error raised before a request existed
        return "no request"


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
