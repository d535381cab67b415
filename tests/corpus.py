"""The real test corpus: Debian patch series and PyPI sdists, downloaded once into the cache.

Importable from any test as ``from corpus import debian_series, sdist_tree`` (pyproject's
``pythonpath = ["tests"]``). Nothing here is committed: ``shared/REAL-DATA.md`` says where each
thing comes from; it lands under :func:`patchkeeper.upstream.fetch.cache_root`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from patchkeeper.upstream.fetch import cache_root, fetch_requirement

REPOSITORY = Path(__file__).resolve().parents[1]

#: The environment variable naming the shared directory when it is not beside the repository.
SHARED_ENV = "PATCHKEEPER_SHARED"

#: Written beside ``debian/`` once the series is complete: the upstream version, one line.
VERSION_FILE = "UPSTREAM-VERSION"


def debian_series_tool() -> Path:
    """``../shared/tools/debian-series`` beside the repository, else under ``$PATCHKEEPER_SHARED``.

    Raises:
        FileNotFoundError: neither place has the tool.
    """
    places = [REPOSITORY.parent / "shared"]
    if os.environ.get(SHARED_ENV):
        places.append(Path(os.environ[SHARED_ENV]))
    for shared in places:
        tool = shared / "tools" / "debian-series"
        if tool.is_file():
            return tool
    raise FileNotFoundError(
        f"debian-series not found in {' or '.join(str(p / 'tools') for p in places)}; "
        f"set {SHARED_ENV} to the shared directory"
    )


def debian_series(srcpkg: str) -> tuple[Path, str]:
    """Return ``(debian/patches directory, upstream version)`` of Debian source package ``srcpkg``.

    Downloaded once by ``shared/tools/debian-series`` into a scratch directory, then renamed
    to ``cache_root()/debian/<srcpkg>``; later calls read the cache and never run apt.

    >>> debian_series("python-urllib3")  # doctest: +SKIP
    (PosixPath('.../debian/python-urllib3/debian/patches'), '1.26.12')

    Raises:
        subprocess.CalledProcessError: the tool failed (its stderr is in the exception).
    """
    dest = cache_root() / "debian" / srcpkg
    version_file = dest / VERSION_FILE
    if not version_file.is_file():
        dest.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{srcpkg}.", dir=dest.parent))
        try:
            done = subprocess.run(
                [str(debian_series_tool()), srcpkg, str(scratch)],
                capture_output=True,
                text=True,
                check=True,
                stdin=subprocess.DEVNULL,
            )
            version = done.stdout.strip().splitlines()[-1]
            (scratch / VERSION_FILE).write_text(version + "\n", encoding="utf-8")
            if dest.exists() and not version_file.is_file():  # left half-made by hand
                shutil.rmtree(dest)
            try:
                os.rename(scratch, dest)
            except OSError:  # another process renamed its complete copy first
                if not version_file.is_file():
                    raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return dest / "debian" / "patches", version_file.read_text(encoding="utf-8").strip()


def sdist_tree(requirement: str) -> Path:
    """The unpacked sdist of ``requirement`` (``"urllib3==1.26.12"``): its top directory."""
    return fetch_requirement(requirement).root
