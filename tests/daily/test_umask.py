"""Files and directories patchkeeper writes get the user's umask (not mkstemp's 0600)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from daily_support import debian_downstream

from helpers import Example


@pytest.fixture(params=[0o022, 0o077], ids=["umask022", "umask077"])
def umask(request):
    old = os.umask(request.param)
    yield request.param
    os.umask(old)


def modes(root: Path, paths: list[str]) -> dict[str, str]:
    return {path: oct(stat.S_IMODE((root / path).stat().st_mode)) for path in paths}


def test_the_audit_record_and_the_evidence(cli, example: Example, umask, private_cache):
    down = example.downstream
    with (down / "patchkeeper.toml").open("a") as config:
        config.write("\n[report]\nevidence = true\n")
    assert cli("audit", "--to", "../upstream/minihttp-1.1", cwd=down).code == 1
    assert cli("decide", cwd=down).code == 0
    cli("report", "--html", cwd=down)
    file_mode, dir_mode = oct(0o666 & ~umask), oct(0o777 & ~umask)

    written = [
        ".patchkeeper/evidence/audit.json",
        ".patchkeeper/evidence/environment.json",
        "patchkeeper-decisions.toml",
        "AUDIT.md",
        "AUDIT.html",
    ]
    assert modes(down, written) == dict.fromkeys(written, file_mode)
    assert modes(down, [".patchkeeper/evidence"]) == {".patchkeeper/evidence": dir_mode}


def test_the_ported_series_directory_and_the_ledger(cli, tmp_path, umask):
    down = debian_downstream(tmp_path)
    (down / "debian" / "PATCHES.md").unlink()
    (down / "debian" / "PATCHES.md").write_text("<!-- table:begin -->\n<!-- table:end -->\n")
    os.chmod(down / "debian" / "PATCHES.md", 0o640)
    assert cli("ledger", cwd=down).code == 0
    to = ("--to", "../upstream/minihttp-1.1", "--from", "../upstream/minihttp-1.0")
    assert cli("port", *to, cwd=down).code == 0
    file_mode, dir_mode = oct(0o666 & ~umask), oct(0o777 & ~umask)

    new = ["debian/patches-1.1/series", "debian/patches-1.1/patchkeeper.toml"]
    assert modes(down, ["debian/patches-1.1"]) == {"debian/patches-1.1": dir_mode}
    assert modes(down, new) == dict.fromkeys(new, file_mode)
    # a file that exists keeps its own bits
    assert modes(down, ["debian/PATCHES.md"]) == {"debian/PATCHES.md": "0o640"}
