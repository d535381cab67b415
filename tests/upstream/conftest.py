"""Fixtures for the fetch tests: a private cache, and a package index on disk served as file://.

The local index is a PEP 503 "simple" index written by the test (``simple/<project>/index.html``
with ``<a href="../../files/FILE#sha256=...">`` links), announced to pip through
``PIP_INDEX_URL`` with every pip configuration file switched off (``PIP_CONFIG_FILE`` set to
``os.devnull``, pip's documented way), so patchkeeper reads it exactly as pip would.
"""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

#: pip's variables that could point a test at other indexes.
PIP_VARIABLES = (
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_FIND_LINKS",
    "PIP_NO_INDEX",
    "PIP_TRUSTED_HOST",
    "PIP_PROXY",
)
#: Proxy variables that would send a loopback request elsewhere.
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy")


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty ``PATCHKEEPER_CACHE`` for one test."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(cache))
    return cache


@pytest.fixture
def pip_isolated(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No pip configuration file and no ``PIP_*`` index variable; the test sets its own."""
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    for name in PIP_VARIABLES + PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@dataclass
class LocalIndex:
    """A simple index under ``root``: ``simple/<project>/index.html`` and ``files/``."""

    root: Path

    @property
    def url(self) -> str:
        return (self.root / "simple").as_uri()

    def publish(self, project: str, filename: str, data: bytes, sha256: str | None = None) -> str:
        """Add a file to ``project``'s page, with ``sha256`` (default: the real digest).

        Returns the real sha256 of ``data``.
        """
        real = hashlib.sha256(data).hexdigest()
        files = self.root / "files"
        files.mkdir(parents=True, exist_ok=True)
        (files / filename).write_bytes(data)
        page = self.root / "simple" / project / "index.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        links = page.read_text(encoding="utf-8") if page.exists() else ""
        links += f'<a href="../../files/{filename}#sha256={sha256 or real}">{filename}</a><br>\n'
        page.write_text(links, encoding="utf-8")
        return real


@pytest.fixture
def local_index(
    tmp_path: Path, private_cache: Path, pip_isolated: pytest.MonkeyPatch
) -> LocalIndex:
    """An empty local index that pip (and so patchkeeper) is configured to use, alone."""
    index = LocalIndex(tmp_path / "index")
    (index.root / "simple").mkdir(parents=True)
    pip_isolated.setenv("PIP_INDEX_URL", index.url)
    return index


def make_tar(members: list[tarfile.TarInfo | tuple[str, bytes]]) -> bytes:
    """A gzip tarball of ``members``: ``(name, content)`` pairs or ready ``TarInfo`` entries."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for member in members:
            if isinstance(member, tarfile.TarInfo):
                tar.addfile(member)
                continue
            name, content = member
            info = tarfile.TarInfo(name)
            info.size = len(content)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def make_zip(members: list[tuple[str, bytes]]) -> bytes:
    """A zip (or wheel) file holding ``(name, content)`` pairs, names written as given."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, content in members:
            zf.writestr(zipfile.ZipInfo(name), content)
    return buffer.getvalue()


@pytest.fixture
def tar_bytes():
    """:func:`make_tar`, as a fixture (test modules do not import conftest)."""
    return make_tar


@pytest.fixture
def zip_bytes():
    """:func:`make_zip`, as a fixture."""
    return make_zip
