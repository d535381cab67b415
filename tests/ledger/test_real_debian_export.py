"""``import`` then ``export`` on a real Debian series gives back every file byte for byte."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from corpus import debian_series, sdist_tree
from helpers import make_checkout
from patchkeeper.main import main

pytestmark = pytest.mark.network


def test_urllib3_series_round_trips(tmp_path: Path, capsys) -> None:
    """python-urllib3's twelve patches: git-form ones with 12-digit ids, plain ``--- a/``
    ones after a diffstat with ``diff -p``'s 40-byte hunk text, and one cut against another
    release that applies to 1.26.12 at an offset of -111 lines."""
    patches, version = debian_series("python-urllib3")
    upstream = tmp_path / "urllib3"
    shutil.copytree(sdist_tree(f"urllib3=={version}"), upstream)
    make_checkout(upstream, f"urllib3 {version}", tag=f"v{version}")
    root = tmp_path / "down"
    shutil.copytree(patches, root / "debian" / "patches")
    (root / "patchkeeper.toml").write_text(
        f'upstream = "urllib3"\npin = "{version}"\nseries = "debian/patches/series"\n\n'
        f'[headers]\nschema = "dep3"\n\n[git]\ntag = "debian"\ncheckout = "{upstream}"\n'
    )
    before = {p.name: p.read_bytes() for p in (root / "debian" / "patches").iterdir()}
    assert main(["-C", str(root), "import"]) == 0
    assert main(["-C", str(root), "export", "--range", f"v{version}..patchkeeper/{version}"]) == 0
    out = capsys.readouterr().out
    assert out.count("\nunchanged debian/patches/") == 13  # twelve patches and the series
    assert out.endswith("\nunchanged debian/patches/series (12 entries)\n")
    after = {p.name: p.read_bytes() for p in (root / "debian" / "patches").iterdir()}
    assert after == before
