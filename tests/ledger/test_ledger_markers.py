"""The DEP-3 ledger's bug column (``Bug`` and every ``Bug-<Vendor>``), and the ledger file's
markers: one pair, else an error naming the line (the user-test report, bug 19)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ledger_support import LEDGER_TEXT, config_at

from patchkeeper.ledger import table as ledger
from patchkeeper.main import main
from patchkeeper.series.headers import parse_headers

#: Two patches in the shape of Debian's python-urllib3 series (gbp pq mail headers, DEP-3).
CVE_PATCH = b"""\
From: Seth Michael Larson <sethmichaellarson@gmail.com>
Date: Mon, 17 Jun 2024 11:09:06 -0500
Subject: Merge pull request from GHSA-34jh-p97f-mpxf
Origin: https://github.com/urllib3/urllib3/commit/40b6d1605814dd1db0a46e202d6e56f2e4c9a468
Bug-Debian: https://security-tracker.debian.org/tracker/CVE-2024-37891
Bug-Debian: https://bugs.debian.org/1074149

* Strip Proxy-Authorization header on redirects
---
 src/urllib3/util/retry.py | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/src/urllib3/util/retry.py b/src/urllib3/util/retry.py
--- a/src/urllib3/util/retry.py
+++ b/src/urllib3/util/retry.py
@@ -1,3 +1,3 @@
 a
-b
+c
 d
"""
CERT_PATCH = b"""\
Description: require SSL certificate validation by default
Author: Jamie Strandboge <jamie@canonical.com>
Bug: https://github.com/urllib3/urllib3/issues/1
Bug-Ubuntu: https://launchpad.net/bugs/1047054
Bug-Debian: http://bugs.debian.org/686872
Forwarded: not-needed
Last-Update: 2014-09-01

--- a/src/urllib3/connectionpool.py
+++ b/src/urllib3/connectionpool.py
@@ -1,3 +1,3 @@
 a
-b
+c
 d
"""
DEP3_TABLE = (
    "| patch | description | origin | bug | forwarded | last update |\n"
    "|---|---|---|---|---|---|\n"
    "| 02_require-cert-verification | require SSL certificate validation by default |  | "
    "https://github.com/urllib3/urllib3/issues/1, Ubuntu: https://launchpad.net/bugs/1047054, "
    "Debian: http://bugs.debian.org/686872 | not-needed | 2014-09-01 |\n"
    "| CVE-2024-37891 | Merge pull request from GHSA-34jh-p97f-mpxf | "
    "https://github.com/urllib3/urllib3/commit/40b6d1605814dd1db0a46e202d6e56f2e4c9a468 | "
    "Debian: https://security-tracker.debian.org/tracker/CVE-2024-37891, "
    "Debian: https://bugs.debian.org/1074149 |  |  |\n"
)


@pytest.fixture
def debian(tmp_path: Path) -> Path:
    root = tmp_path / "python-urllib3"
    patches = root / "debian" / "patches"
    patches.mkdir(parents=True)
    (patches / "series").write_text("02_require-cert-verification.patch\nCVE-2024-37891.patch\n")
    (patches / "02_require-cert-verification.patch").write_bytes(CERT_PATCH)
    (patches / "CVE-2024-37891.patch").write_bytes(CVE_PATCH)
    (root / "patchkeeper.toml").write_text(
        'upstream = "urllib3"\npin = "1.26.12"\nseries = "debian/patches/series"\n\n'
        '[headers]\nschema = "dep3"\n'
    )
    (root / "PATCHES.md").write_text(
        "# Debian patches\n\n<!-- table:begin -->\n<!-- table:end -->\n"
    )
    return root


def test_the_dep3_bug_column_joins_bug_and_every_vendor_bug(debian: Path, capsys) -> None:
    assert main(["-C", str(debian), "ledger"]) == 0
    assert capsys.readouterr().out == "PATCHES.md: wrote the ledger (2 rows)\n"
    assert (debian / "PATCHES.md").read_text() == (
        "# Debian patches\n\n<!-- table:begin -->\n" + DEP3_TABLE + "<!-- table:end -->\n"
    )
    assert main(["-C", str(debian), "lint"]) == 0


def test_a_family_column_can_be_configured_and_covers_entries(debian: Path) -> None:
    config = debian / "patchkeeper.toml"
    (debian / "overlay").mkdir()
    (debian / "overlay" / "x.py").write_text("X = 1\n")
    config.write_text(
        config.read_text()
        + 'columns = ["Bug-Debian", "Bug*"]\n\n[entries.overlays.extra]\nsource = "overlay"\n'
        + 'fields = { Bug-Ubuntu = "https://launchpad.net/bugs/2", Bug = "#3" }\n'
    )
    rows = ledger.write_ledger(config_at(debian)).rows
    assert [(row.name, row.values) for row in rows] == [
        (
            "02_require-cert-verification",
            (
                "http://bugs.debian.org/686872",
                "https://github.com/urllib3/urllib3/issues/1, "
                "Ubuntu: https://launchpad.net/bugs/1047054, Debian: http://bugs.debian.org/686872",
            ),
        ),
        (
            "CVE-2024-37891",
            (
                "https://security-tracker.debian.org/tracker/CVE-2024-37891, "
                "https://bugs.debian.org/1074149",
                "Debian: https://security-tracker.debian.org/tracker/CVE-2024-37891, "
                "Debian: https://bugs.debian.org/1074149",
            ),
        ),
        ("extra", ("", "Ubuntu: https://launchpad.net/bugs/2, #3")),
    ]
    assert (debian / "PATCHES.md").read_text().splitlines()[3] == "| patch | bug debian | bug |"


def test_a_family_takes_only_its_own_fields() -> None:
    headers = parse_headers(b"Bugs: 1\nBug-Tracker-Url: u\nDebian-Bug: 2\nBUG: 3\n")
    assert headers.value("Bug*") == "Tracker-Url: u, 3"  # in file order
    assert headers.value("Nothing*") == ""


# --------------------------------------------------------------------------- markers

#: The markers of the fixture's PATCHES.md (LEDGER_TEXT) are on lines 5 and 6.
SECOND_PAIR = "\n## Old table\n\n<!-- table:begin -->\n| a |\n<!-- table:end -->\n"


@pytest.mark.parametrize(
    ("edit", "line", "message", "hint"),
    [
        (
            lambda text: text + SECOND_PAIR,
            12,
            "a second '<!-- table:begin' line; the table is already between lines 5 and 6",
            "the file holds one table: remove the second begin line (and its end line and "
            "table, if any)",
        ),
        (
            lambda text: text.replace("<!-- table:end -->\n", "<!-- table:begin -->\n"),
            6,
            "a second '<!-- table:begin' line before the '<!-- table:end -->' line of the one on "
            "line 5",
            "remove it, or add the line <!-- table:end --> that closes the first table",
        ),
        (
            lambda text: text.replace("<!-- table:end -->\n", ""),
            5,
            "no '<!-- table:end -->' line after the begin marker",
            "add a line <!-- table:end --> after the table",
        ),
        (
            lambda text: text + "<!-- table:end -->\n",
            9,
            "a '<!-- table:end -->' line outside the table between lines 5 and 6",
            "remove it: the table has one begin and one end marker",
        ),
        (
            lambda text: "<!-- table:end -->\n" + text.split("<!-- table:begin", 1)[0],
            1,
            "a '<!-- table:end -->' line, but no line starting with '<!-- table:begin' before it",
            "add a line <!-- table:begin ... --> where the table starts",
        ),
    ],
)
def test_markers_must_be_one_pair(
    downstream: Path, capsys, edit, line: int, message: str, hint: str
) -> None:
    ledger_file = downstream / "PATCHES.md"
    assert ledger_file.read_text() == LEDGER_TEXT
    ledger_file.write_text(edit(LEDGER_TEXT))
    before = {p.name: p.read_bytes() for p in downstream.rglob("*") if p.is_file()}
    capsys.readouterr()
    for command in (["ledger"], ["ledger", "--check"], ["check-branch", "work"]):
        assert main(["-C", str(downstream), *command]) == 2, command
        assert capsys.readouterr().err == (
            f"patchkeeper: error: {ledger_file}:{line}: {message}\n  hint: {hint}\n"
        )
    code = main(["-C", str(downstream), "retire", "size-knob", "--at", "1.1", "--why", "x"])
    assert code == 2
    assert before == {p.name: p.read_bytes() for p in downstream.rglob("*") if p.is_file()}


def test_a_retired_begin_marker_without_its_end(downstream: Path, capsys) -> None:
    ledger_file = downstream / "PATCHES.md"
    assert main(["-C", str(downstream), "ledger"]) == 0
    ledger_file.write_text(ledger_file.read_text() + "\n<!-- retired:begin -->\n| old |\n")
    series = (downstream / "patches" / "series").read_bytes()
    capsys.readouterr()
    code = main(["-C", str(downstream), "retire", "size-knob", "--at", "1.1", "--why", "x"])
    assert code == 2
    assert capsys.readouterr().err == (
        f"patchkeeper: error: {ledger_file}:14: no '<!-- retired:end -->' line after the begin "
        "marker\n  hint: add a line <!-- retired:end --> after the table\n"
    )
    assert (downstream / "patches" / "series").read_bytes() == series
    assert (downstream / "patches" / "size-knob.patch").is_file()
    assert main(["-C", str(downstream), "ledger", "--check"]) == 2  # CI catches it too


def test_a_retired_debian_patch_keeps_its_dep3_fields(debian: Path) -> None:
    """The Retired table of a DEP-3 ledger has the live table's DEP-3 columns: the patch's
    Origin (``backport, URL``) is its own cell, as in the live table."""
    patch = debian / "debian" / "patches" / "CVE-2024-37891.patch"
    patch.write_bytes(
        patch.read_bytes().replace(b"Origin: https://", b"Origin: backport, https://")
    )
    assert main(["-C", str(debian), "ledger"]) == 0
    assert (
        main(
            [
                "-C",
                str(debian),
                "retire",
                "CVE-2024-37891",
                "--at",
                "1.26.19",
                "--why",
                "in 1.26.19",
            ]
        )
        == 0
    )
    assert (
        (debian / "PATCHES.md")
        .read_text()
        .endswith(
            "| patch | description | origin | bug | forwarded | last update | retired at | why |\n"
            "|---|---|---|---|---|---|---|---|\n"
            "| CVE-2024-37891 | Merge pull request from GHSA-34jh-p97f-mpxf | backport, "
            "https://github.com/urllib3/urllib3/commit/40b6d1605814dd1db0a46e202d6e56f2e4c9a468 | "
            "Debian: https://security-tracker.debian.org/tracker/CVE-2024-37891, "
            "Debian: https://bugs.debian.org/1074149 |  |  | 1.26.19 | in 1.26.19 |\n"
            "<!-- retired:end -->\n"
        )
    )
