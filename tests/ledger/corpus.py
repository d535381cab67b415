"""Real inputs for the ledger tests, downloaded once into the corpus cache.

A local stand-in for ``tests/corpus.py`` (branch ``fetch``) and
``patchkeeper.fetch.fetch_requirement``: the Debian series come from the shared
``debian-series`` tool, the vLLM sdist from pip's default index found with ``unearth``
(never a host name written here). Everything lands under ``$PATCHKEEPER_CACHE``
(default ``~/.cache/patchkeeper-corpus``).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tarfile
import urllib.request
from pathlib import Path

DEBIAN_SERIES_TOOL = Path("/work/shared/tools/debian-series")


def cache_dir() -> Path:
    """The corpus cache directory (created)."""
    base = os.environ.get("PATCHKEEPER_CACHE") or Path.home() / ".cache" / "patchkeeper-corpus"
    path = Path(base)
    path.mkdir(parents=True, exist_ok=True)
    return path


def debian_series(package: str) -> Path:
    """Return ``<cache>/debian/<package>/debian/patches`` (downloaded on first use)."""
    dest = cache_dir() / "debian" / package
    patches = dest / "debian" / "patches"
    if not (patches / "series").is_file():
        tool = Path(os.environ.get("DEBIAN_SERIES_TOOL", DEBIAN_SERIES_TOOL))
        subprocess.run([str(tool), package, str(dest)], check=True, capture_output=True)
    return patches


def sdist_root(name: str, version: str) -> Path:
    """Return the unpacked sdist root ``<cache>/sdists/<name>-<version>`` (downloaded once).

    The file is found with ``unearth`` on pip's default index, its sha256 checked, and
    unpacked with tarfile's ``data`` filter.
    """
    base = cache_dir() / "sdists"
    root = base / f"{name}-{version}"
    if (root / "PKG-INFO").is_file():
        return root
    import unearth
    from pip._internal.models.index import PyPI

    finder = unearth.PackageFinder(index_urls=[PyPI.simple_url])
    matches = [m for m in finder.find_matches(f"{name}=={version}") if not m.link.is_wheel]
    if not matches:
        raise LookupError(f"no sdist of {name}=={version}")
    link = matches[0].link
    archive = base / link.filename
    base.mkdir(parents=True, exist_ok=True)
    if not archive.is_file():
        partial = archive.with_suffix(".part")
        with urllib.request.urlopen(link.url_without_fragment) as response:
            partial.write_bytes(response.read())
        partial.rename(archive)
    expected = (link.hashes or {}).get("sha256")
    if expected and hashlib.sha256(archive.read_bytes()).hexdigest() != expected:
        archive.unlink()
        raise ValueError(f"sha256 mismatch for {archive.name}")
    unpack = base / f".unpack-{name}-{version}"
    with tarfile.open(archive) as tar:
        tar.extractall(unpack, filter="data")
    (top,) = list(unpack.iterdir())
    top.rename(root)
    unpack.rmdir()
    return root
