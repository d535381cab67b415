"""``audit --to .`` (or ``--pristine .``, ``port --to .``) in a Debian-shaped downstream: the
directory holds the packaging (``debian/patches``, ``debian/changelog``) and none of the
upstream files the series changes. Judged as the new release, every patch's file was gone,
and the changelog, which names each patch's CVE, made the audit call them upstreamed, to
retire (Debian's tornado series, audited against its own packaging: seven to retire). Such
a directory is refused, naming the series it holds and what to pass; nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import tree_bytes, write_files

FIX = """Description: CVE-2024-0001: reject a header folded into the next
Bug-Debian: https://bugs.debian.org/1000001
--- a/pkgweb/httputil.py
+++ b/pkgweb/httputil.py
@@ -1,2 +1,4 @@
 def parse_line(line):
+    if line.startswith(" "):
+        raise ValueError(line)
     return line.split(":", 1)
"""

CHANGELOG = """pkgweb (1.0-2) unstable; urgency=medium

  * d/patches/CVE-2024-0001.patch: Fix CVE-2024-0001 (closes: #1000001).
    - raise ValueError(line)

 -- A Maintainer <maint@example.org>  Mon, 02 Dec 2024 10:00:00 +0000
"""


@pytest.fixture
def downstream(tmp_path: Path) -> Path:
    """A Debian packaging directory of pkgweb 1.0, its one patch, beside the release."""
    write_files(
        tmp_path / "pkgweb-1.0",
        {
            "PKG-INFO": "Metadata-Version: 2.1\nName: pkgweb\nVersion: 1.0\n",
            "pkgweb/__init__.py": "",
            "pkgweb/httputil.py": 'def parse_line(line):\n    return line.split(":", 1)\n',
        },
    )
    return write_files(
        tmp_path / "pkgweb-debian",
        {
            "patchkeeper.toml": 'upstream = "pkgweb"\npin = "1.0"\n'
            'series = "debian/patches/series"\n',
            "debian/changelog": CHANGELOG,
            "debian/patches/series": "CVE-2024-0001.patch\n",
            "debian/patches/CVE-2024-0001.patch": FIX,
        },
    )


@pytest.mark.parametrize(
    ("args", "role", "option"),
    [
        (("audit", "--to", ".", "--pristine", "../pkgweb-1.0"), "the new upstream (--to)", "--to"),
        (("audit", "--to", "../pkgweb-1.0", "--pristine", "."), "the pristine reference (--pristine)", "--pristine"),
        (("port", "--to", ".", "--from", "../pkgweb-1.0"), "the new upstream (--to)", "--to"),
    ],
    ids=["audit", "audit --pristine", "port"],
)  # fmt: skip
def test_the_downstream_given_as_the_upstream_is_refused(
    cli, downstream: Path, args: tuple[str, ...], role: str, option: str
) -> None:
    before = tree_bytes(downstream)
    run = cli(*args, cwd=downstream)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {downstream}: {role} holds the downstream's own series "
        "(debian/patches/series) and none of the 1 file the series changes: it is no "
        "upstream release\n"
        f"  hint: pass {option} the upstream release: its unpacked tree (an sdist, a "
        "checkout), its sdist or wheel file, or pkgweb==VERSION\n"
    )
    assert tree_bytes(downstream) == before


def test_the_release_itself_is_audited(cli, downstream: Path) -> None:
    run = cli("audit", "--to", "../pkgweb-1.0", "--pristine", "../pkgweb-1.0", cwd=downstream)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[-1] == "1 patch: 1 clean"
