"""The HTML record in a real headless browser: Debian's ``chromium`` (``.ci/run`` installs it
in CI; elsewhere these tests are skipped without it). A screenshot of the expected size that is
not blank, and a DOM that holds the record's tables."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from recordhelpers import AGREEING, drop_from_series, enable_evidence, write_decisions

pytestmark = [pytest.mark.slow, pytest.mark.tool("chromium")]

WIDTH, HEIGHT = 1400, 2000


def chromium() -> str:
    """The ``chromium`` executable (the ``tool`` marker has checked that there is one)."""
    found = shutil.which("chromium")
    assert found is not None
    return found


def browse(page: Path, profile: Path, *action: str) -> subprocess.CompletedProcess[str]:
    profile.mkdir()
    return subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            f"--window-size={WIDTH},{HEIGHT}",
            *action,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        stdin=subprocess.DEVNULL,
    )


def png_size_and_pixels(data: bytes) -> tuple[int, int, bytes]:
    """``(width, height, decompressed image data)`` of a PNG (RFC 2083 chunks)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, width, height, idat = 8, 0, 0, b""
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    return width, height, zlib.decompress(idat)


@pytest.fixture
def page(cli, audited: Path) -> Path:
    drop_from_series(audited, "retry-backoff-cap.patch")
    write_decisions(audited, {**AGREEING, "metrics-redirects.patch": ("carry", "")})
    cli("record", "--", sys.executable, "-c", "print('validation passed')", cwd=audited)
    assert cli("report", "--html", cwd=audited).code == 1
    return audited / "AUDIT.html"


def test_the_screenshot_is_a_full_non_blank_page(page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "record.png"
    browse(page, tmp_path / "profile", f"--screenshot={shot}")
    width, height, pixels = png_size_and_pixels(shot.read_bytes())
    assert (width, height) == (WIDTH, HEIGHT)
    assert len(set(pixels)) > 50  # text, borders and shading; a blank page has a handful
    keep = os.environ.get("PATCHKEEPER_KEEP_SCREENSHOT")
    if keep:  # for looking at it: PATCHKEEPER_KEEP_SCREENSHOT=/tmp/record.png pytest ...
        shutil.copy(shot, keep)


#: Appended to a copy of the page: says in the DOM whether anything is wider than the window.
MEASURE = (
    "<script>document.body.setAttribute('data-overflow', "
    "String(document.documentElement.scrollWidth > window.innerWidth));</script>"
)


def overflows(page: Path, tmp_path: Path) -> str:
    measured = tmp_path / "measured.html"
    measured.write_text(page.read_text().replace("</body>", MEASURE + "</body>"))
    dom = browse(measured, tmp_path / "measure-profile", "--dump-dom").stdout
    return dom.split('data-overflow="', 1)[1].split('"', 1)[0]


def test_nothing_is_wider_than_the_window(page: Path, tmp_path: Path) -> None:
    assert overflows(page, tmp_path) == "false"


def test_a_runtime_record_with_long_keys_fits_the_window(
    cli, tmp_path: Path, private_cache
) -> None:
    shutil.copytree(Path(__file__).resolve().parents[1] / "runtime" / "fixtures", tmp_path / "w")
    plugin = tmp_path / "w" / "plugin"
    enable_evidence(plugin / "pyproject.toml")
    cli("runtime", "audit", "--from", "../upstream-1.0", "--to", "../upstream-2.0", cwd=plugin)
    cli("decide", cwd=plugin)
    assert cli("report", "--html", cwd=plugin).code == 1
    assert overflows(plugin / "AUDIT.html", tmp_path) == "false"


def test_the_dom_holds_the_record_tables(page: Path, tmp_path: Path) -> None:
    dom = browse(page, tmp_path / "profile", "--dump-dom").stdout
    assert dom.count("<table") == page.read_text().count("<table") == 5
    assert '<h2 id="decisions">Inventory and decisions</h2>' in dom
    assert "<th>removal condition</th>" in dom
    assert "<code>metrics-<wbr>redirects.<wbr>patch</code>" in dom
    assert '<td class="flag"></td>' not in dom  # an empty flag cell is not marked
    assert dom.count('<td class="flag">') == 1
    assert ('<td class="flag">it is decided carry without a removal condition</td>') in dom
