"""Fixtures for the fetch tests: a package index on disk served as file:// (the private cache
is the root conftest's ``private_cache``, the index its ``local_index``).

The local index is a PEP 503 "simple" index written by the test (``simple/<project>/index.html``
with ``<a href="../../files/FILE#sha256=...">`` links), announced to pip through
``PIP_INDEX_URL`` with every pip configuration file switched off (``PIP_CONFIG_FILE`` set to
``os.devnull``, pip's documented way), so patchkeeper reads it exactly as pip would.
"""

from __future__ import annotations

import io
import zipfile

import pytest

from helpers import isolate_pip, make_tar


@pytest.fixture
def pip_isolated(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No pip configuration file and no ``PIP_*`` index variable; the test sets its own."""
    isolate_pip(monkeypatch)
    return monkeypatch


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
