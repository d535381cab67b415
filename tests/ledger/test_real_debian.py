"""Lint and ledger on real Debian series with DEP-3 headers (python-urllib3, python-django)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import debian_series
from patchkeeper.config import load_config
from patchkeeper.ledger import lint
from patchkeeper.ledger import table as ledger
from patchkeeper.main import main
from patchkeeper.series.headers import parse_headers

pytestmark = pytest.mark.network


def _downstream(tmp_path: Path, package: str, extra: str = "") -> Path:
    patches, version = debian_series(package)
    root = tmp_path / package
    root.mkdir(parents=True)
    (root / "patchkeeper.toml").write_text(
        f'upstream = "{package}"\npin = "{version}"\nseries = "{patches}/series"\n\n'
        f'[headers]\nschema = "dep3"\n{extra}'
    )
    (root / "PATCHES.md").write_text(
        "# Debian patches\n\n<!-- table:begin -->\n<!-- table:end -->\n"
    )
    return root


def test_urllib3_ledger_rows(tmp_path: Path, capsys) -> None:
    root = _downstream(tmp_path, "python-urllib3")
    assert main(["-C", str(root), "ledger"]) == 0
    assert main(["-C", str(root), "ledger", "--check"]) == 0
    request = ledger.LedgerRequest(check=True)
    result = ledger.write_ledger(load_config(root / "patchkeeper.toml"), request)
    rows = {row.name: row.values for row in result.rows}
    assert len(rows) == 12
    assert rows["CVE-2023-43804"] == (
        "Backport GHSA-v845-jxx5-vc9f",
        "https://github.com/urllib3/urllib3/commit/01220354d389cd05474713f8c982d05c9b17aafb",
        "https://github.com/urllib3/urllib3/security/advisories/GHSA-v845-jxx5-vc9f, "
        "https://github.com/urllib3/urllib3/pull/3139, "
        "Debian: https://security-tracker.debian.org/tracker/CVE-2023-43804, "
        "Debian: https://bugs.debian.org/1053626",
        "",
        "",
    )
    # The bug column is Bug and every Bug-<Vendor>, the vendor's labelled (bug 19 of the user
    # test: this row's bug column was empty).
    assert rows["CVE-2024-37891"][2] == (
        "Debian: https://security-tracker.debian.org/tracker/CVE-2024-37891, "
        "Debian: https://bugs.debian.org/1074149"
    )
    assert rows["CVE-2025-50181"][2] == (
        "Debian: https://bugs.debian.org/1108076, "
        "Debian-Security: https://security-tracker.debian.org/tracker/CVE-2025-50181"
    )
    assert rows["02_require-cert-verification"] == (
        "require SSL certificate validation by default by using",
        "",
        "Ubuntu: https://launchpad.net/bugs/1047054, Debian: http://bugs.debian.org/686872",
        "",
        "2014-09-01",
    )
    # A folded mail Subject is one value.
    assert rows["Prevent-issue-in-HTTPResponse-.read-when-decoded_con"][0] == (
        "Prevent issue in HTTPResponse().read() when decoded_content is True and then False "
        "Provided it has initialized eligible decoder(decompressor) and did decode once"
    )
    text = (root / "PATCHES.md").read_text()
    assert text.count("\n| ") == 13  # the header and twelve rows, in series order
    assert "\n| patch | description | origin | bug | forwarded | last update |\n" in text
    assert "| 01_do-not-use-embedded-python-six | Do not use embedded copy of python-six. |" in text


def test_urllib3_dep3_fields_with_line_numbers() -> None:
    patches, _ = debian_series("python-urllib3")
    headers = parse_headers((patches / "CVE-2025-50181.patch").read_bytes())
    assert [(f.name, f.line_no) for f in headers.fields[:6]] == [
        ("From", 1),
        ("Date", 2),
        ("Subject", 3),
        ("Origin", 4),
        ("Bug-Debian", 5),
        ("Bug-Debian-Security", 6),
    ]
    assert headers.bugs() == {
        "Debian": ("https://bugs.debian.org/1108076",),
        "Debian-Security": ("https://security-tracker.debian.org/tracker/CVE-2025-50181",),
    }


def test_urllib3_lint(tmp_path: Path, capsys) -> None:
    root = _downstream(tmp_path, "python-urllib3")
    assert main(["-C", str(root), "lint"]) == 0
    assert capsys.readouterr().out == "no problems in 12 patches\n"
    # DEP-3 wants an Origin for upstream changes: the two Debian-specific patches have none.
    root = _downstream(
        tmp_path / "strict", "python-urllib3", 'required = ["Description", "Origin"]\n'
    )
    result = lint.lint_downstream(load_config(root / "patchkeeper.toml"))
    assert [(Path(f.path).name, f.line, f.code, f.message) for f in result.findings] == [
        ("01_do-not-use-embedded-python-six.patch", 7, "PK101", "missing header 'Origin:'"),
        ("02_require-cert-verification.patch", 10, "PK101", "missing header 'Origin:'"),
    ]


def test_django_ledger_and_lint(tmp_path: Path, capsys) -> None:
    root = _downstream(tmp_path, "python-django")
    assert main(["-C", str(root), "lint", "--format", "github"]) == 0
    assert capsys.readouterr().out == "no problems in 38 patches\n"
    result = ledger.write_ledger(load_config(root / "patchkeeper.toml"))
    rows = {row.name: row.values for row in result.rows}
    assert len(result.rows) == 38
    assert result.rows[0].name == "0001-disable-sources-in-sphinxdoc"
    assert result.rows[-1].name == "Workaround-changes-in-CVE-2025-6069"
    assert rows["0001-disable-sources-in-sphinxdoc"] == (
        "Disable creation of _sources directory by Sphinx",
        "vendor",
        "",
        "not-needed",
        "",
    )
    assert rows["0002-use_debian_geoip_database_as_default"][2] == (
        "Debian: http://bugs.debian.org/645094"
    )
    assert rows["0012-Add-Python-3.11-support-for-tests"][2] == (
        "Ubuntu: https://bugs.launchpad.net/ubuntu/+source/python-django/+bug/2002012"
    )
    assert rows["0013-fix-url-validator"] == (
        "Fixed URLValidator crash in some edge cases",
        "upstream, https://github.com/django/django/commit/e8b4feddc34ffe5759ec21da8fa027e86e653f1c",
        "https://code.djangoproject.com/ticket/33367",
        "",
        "2021-12-15",
    )
    # gbp's "[PATCH]" prefix is dropped as git am drops it; the rest of the subject stays.
    assert rows["0014-CVE-2024-39329"][0] == (
        "[4.2.x] Fixed CVE-2024-39329 -- Standarized timing of verify_password() when checking "
        "unusuable passwords."
    )
    # RFC 2047 in a real From header.
    first = parse_headers(result.rows[0].source.read_bytes())
    assert first.value("Author") == "Raphaël Hertzog <hertzog@debian.org>"


def test_django_with_the_ledger_schema_reports_every_missing_field(tmp_path: Path) -> None:
    root = _downstream(tmp_path, "python-django")
    text = (root / "patchkeeper.toml").read_text().replace('schema = "dep3"', 'schema = "ledger"')
    (root / "patchkeeper.toml").write_text(text)
    findings = lint.lint_downstream(load_config(root / "patchkeeper.toml")).findings
    assert len(findings) == 38 * 5
    assert {f.code for f in findings} == {"PK101"}
    assert (
        findings[0]
        .text()
        .endswith("0001-disable-sources-in-sphinxdoc.diff:12: PK101 missing header 'Kind:'")
    )
