"""The upgrade horizon on a real index range: Debian's python-urllib3 series (cut against
1.26.12) at urllib3 1.26.18, 1.26.19 and 1.26.20 (sdists fetched once into the corpus cache)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from corpus import debian_series

pytestmark = pytest.mark.network

TABLE = """\
  patch                                             1.26.18   1.26.19   1.26.20
  01_do-not-use-embedded-python-six.patch           conflict  conflict  conflict
  02_require-cert-verification.patch                offset    offset    offset
  CVE-2023-43804.patch                              upstr.    upstr.    upstr.
  CVE-2023-45803.patch                              upstr.    upstr.    upstr.
  CVE-2024-37891.patch                              clean     upstr.    upstr.
  CVE-2025-50181.patch                              conflict  conflict  conflict
  CVE-2025-66418.patch                              offset    offset    offset
  CVE-2026-21441.patch                              offset    offset    offset
  Prevent-issue-in-HTTPResponse-.read-when-deco...  offset    offset    offset
  fix-missed-coverage-when-calling-read-having-...  offset    offset    offset
  apply-suggestion-from-pquentin.patch              offset    offset    offset
  CVE-2026-44431.patch                              offset    offset    offset
  (upstr. = upstreamed)
"""


def test_urllib3_horizon_over_three_releases(cli, tmp_path: Path, monkeypatch) -> None:
    patches, version = debian_series("python-urllib3")
    assert version == "1.26.12"
    root = tmp_path / "downstream"
    shutil.copytree(patches, root / "patches")
    (root / "patchkeeper.toml").write_text(
        'upstream = "urllib3"\npin = "1.26.12"\ndirectory = ""\n'
    )
    monkeypatch.setenv("COLUMNS", "80")
    run = cli("audit", "--to", "urllib3>=1.26.18,<1.26.21", cwd=root)
    assert run.code == 1
    head, table, tail = run.out.split("\n\n")
    # the first line (the downstream's long temporary path) wraps at 80 columns
    assert "releases in urllib3>=1.26.18,<1.26.21: 1.26.18, 1.26.19, 1.26.20" in head.splitlines()
    assert max(len(line) for line in run.out.splitlines()) <= 80
    # CVE-2024-37891 was fixed in 1.26.19: the horizon shows upstream taking it there. The
    # two conflicts at every release only need a refresh (to do: carry): none of them is
    # ported by hand, so the highest release is the next pin.
    assert table + "\n" == TABLE
    assert tail == "next pin: 1.26.20 (highest release that needs no patch ported by hand)\n"
