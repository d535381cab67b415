"""``upgrade --branch`` on the real Debian python-urllib3 series, 1.26.12 -> 1.26.20: it runs
to the end, every step committed. Debian's six patch does not merge (1.26.20 added imports
beside the ones it rewrites), but the audit finds it only needs a refresh (its imports placed
among upstream's), and the port refreshes it the same way; the new series verifies on
1.26.20."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from upgrade_support import committed_files, git, make_checkout, subjects

from corpus import debian_series, sdist_tree

pytestmark = pytest.mark.network

SUGGESTED = [
    ("01_do-not-use-embedded-python-six.patch", "carry"),  # its imports placed among upstream's
    ("02_require-cert-verification.patch", "carry"),
    ("CVE-2023-43804.patch", "retire"),
    ("CVE-2023-45803.patch", "retire"),
    ("CVE-2024-37891.patch", "retire"),
    ("CVE-2025-50181.patch", "carry"),  # a conflict that only needs a refresh
    ("CVE-2025-66418.patch", "carry"),
    ("CVE-2026-21441.patch", "carry"),
    ("Prevent-issue-in-HTTPResponse-.read-when-decoded_con.patch", "carry"),
    ("fix-missed-coverage-when-calling-read-having-amt-Non.patch", "carry"),
    ("apply-suggestion-from-pquentin.patch", "carry"),
    ("CVE-2026-44431.patch", "carry"),
]
PORTED = [
    ".patchkeeper/evidence/port.json",
    "patches/01_do-not-use-embedded-python-six.patch",
    "patches/02_require-cert-verification.patch",
    "patches/CVE-2025-50181.patch",
    "patches/CVE-2025-66418.patch",
    "patches/CVE-2026-21441.patch",
    "patches/CVE-2026-44431.patch",
    "patches/Prevent-issue-in-HTTPResponse-.read-when-decoded_con.patch",
    "patches/apply-suggestion-from-pquentin.patch",
    "patches/fix-missed-coverage-when-calling-read-having-amt-Non.patch",
    "patches/series",
    "patchkeeper.toml",
]
SUBJECTS = [
    "upgrade: audit the series against 1.26.20",
    "upgrade: suggest decisions from the evidence",
    "upgrade: port the series to 1.26.20",
    "upgrade: write the audit record",
]


def test_upgrade_urllib3_to_1_26_20(cli, tmp_path: Path) -> None:
    patches, version = debian_series("python-urllib3")
    assert version == "1.26.12"
    root = tmp_path / "downstream"
    root.mkdir()
    shutil.copytree(patches, root / "patches")
    (root / "patchkeeper.toml").write_text('upstream = "urllib3"\npin = "1.26.12"\n')
    base = make_checkout(root)
    run = cli("upgrade", "--to", "urllib3==1.26.20", "--branch", "up", "--json", cwd=root)
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert [(s["name"], s["status"], s["subject"]) for s in data["steps"]] == [
        ("audit", "done", SUBJECTS[0]),
        ("runtime audit", "skipped", None),
        ("decide", "done", SUBJECTS[1]),
        ("runtime port", "skipped", None),
        ("port", "done", SUBJECTS[2]),
        ("report", "done", SUBJECTS[3]),
    ]
    assert subjects(root, base) == SUBJECTS
    assert data["conflicts"] == []
    assert [(s["key"], s["decision"]) for s in data["suggestions"]] == SUGGESTED
    port = data["steps"][4]
    assert (port["status"], port["summary"], port["files"]) == (
        "done",
        "2 merged, 7 offset, 3 upstreamed",
        PORTED,
    )
    assert committed_files(root, "HEAD~1") == PORTED
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    target = tmp_path / "target"
    shutil.copytree(sdist_tree("urllib3==1.26.20"), target)
    assert cli("apply", "--target", str(target), cwd=root).code == 0
    run = cli("verify", "--target", str(target), cwd=root)
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        "ok: 9 of 9 patches applied, 0 files drifted",
    )
    # the record is current; what it still asks for is a person's: Debian's patches state
    # no removal condition for the ones carried
    run = cli("report", "--check", "--json", cwd=root)
    findings = [f for f in json.loads(run.out)["findings"] if f["code"] != "not-reviewed"]
    assert (run.code, {f["code"] for f in findings}, len(findings)) == (
        1,
        {"kept-without-condition"},
        9,  # CVE-2025-50181 and the six patch among them: conflicts that only need a refresh
    )
