"""An audit target: a directory, or a requirement (``vllm==0.32.0``) fetched as an sdist.

A requirement goes through :func:`patchkeeper.fetch.fetch_requirement` (``kind="sdist"``)
when that module is present. Until it is, a small stand-in finds the sdist with
``unearth`` (configured with pip's default index and pip's extra index URLs), checks its
hash, and unpacks it with ``tarfile``'s ``data`` filter under the corpus cache.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
import urllib.request
from pathlib import Path

from patchkeeper.errors import FetchError, TargetError
from patchkeeper.runtime.cache import cache_root


def tree_root(spec: str) -> Path:
    """The directory of an upstream tree named by ``spec`` (a directory or a requirement).

    Raises:
        TargetError: ``spec`` is neither an existing directory nor a requirement.
        FetchError: the requirement cannot be found, downloaded or unpacked.
    """
    path = Path(spec)
    if path.is_dir():
        return path.resolve()
    if "==" not in spec:
        raise TargetError(
            f"no such directory: {spec}",
            hint="give a directory or a pinned requirement such as vllm==0.32.0",
        )
    try:
        from patchkeeper import fetch  # type: ignore[attr-defined]
    except ImportError:
        return _fetch_sdist(spec)
    return Path(fetch.fetch_requirement(spec, kind="sdist").root)


def _index_urls() -> list[str]:
    from pip._internal.models.index import PyPI

    urls = [PyPI.simple_url]
    try:
        out = subprocess.run(
            [sys.executable, "-m", "pip", "config", "list"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    for line in out.splitlines():
        key, _, value = line.partition("=")
        if key.endswith("extra-index-url"):
            urls += value.strip().strip("'\"").split()
    return urls


def _fetch_sdist(spec: str) -> Path:
    name, _, version = spec.partition("==")
    dest = cache_root() / "runtime-sdists" / f"{name}-{version}"
    if dest.is_dir():
        return dest
    import unearth

    finder = unearth.PackageFinder(index_urls=_index_urls())
    match = next(
        (m for m in finder.find_matches(spec) if m.link.filename.endswith(".tar.gz")), None
    )
    if match is None:
        raise FetchError(f"no sdist found for {spec}", hint="check the name and version")
    try:
        data = urllib.request.urlopen(match.link.normalized, timeout=300).read()
    except OSError as exc:
        raise FetchError(f"cannot download {match.link.filename}: {exc}") from None
    expected = (match.link.hashes or {}).get("sha256")
    if expected and hashlib.sha256(data).hexdigest() != expected:
        raise FetchError(f"{match.link.filename}: sha256 does not match the index")
    work = dest.parent / f".unpack-{name}-{version}"
    work.mkdir(parents=True, exist_ok=True)
    archive = work / match.link.filename
    archive.write_bytes(data)
    with tarfile.open(archive) as handle:
        handle.extractall(work, filter="data")
    tops = [p for p in work.iterdir() if p.is_dir()]
    if len(tops) != 1:
        raise FetchError(f"{match.link.filename} does not have one top directory")
    tops[0].rename(dest)
    return dest
