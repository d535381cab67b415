"""``port`` on the real Debian python-urllib3 series, 1.26.12 -> 1.26.20.

Expected: the CVE-2023-43804, CVE-2023-45803 and CVE-2024-37891
patches are upstreamed (43804 because 37891 rewrites its line and is upstream); the Debian-
only patches and the 2025-2026 CVE patches are carried: clean, offset or merged, or a conflict
with its cause. Debian's six patch does not merge (1.26.20 added imports right beside the
ones it rewrites), but its hunks land with their lines unchanged, its imports among
upstream's: the port refreshes it as the audit says, and runs to the end.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from port_support import upstream_repository

from corpus import debian_series, sdist_tree
from helpers import tree_bytes
from patchkeeper.series.parse import read_patch

pytestmark = pytest.mark.network

PORTED = [
    ("01_do-not-use-embedded-python-six.patch", "merged"),
    ("02_require-cert-verification.patch", "offset"),
    ("CVE-2023-43804.patch", "upstreamed"),
    ("CVE-2023-45803.patch", "upstreamed"),
    ("CVE-2024-37891.patch", "upstreamed"),
    ("CVE-2025-50181.patch", "merged"),
    ("CVE-2025-66418.patch", "offset"),
    ("CVE-2026-21441.patch", "offset"),
    ("Prevent-issue-in-HTTPResponse-.read-when-decoded_con.patch", "offset"),
    ("fix-missed-coverage-when-calling-read-having-amt-Non.patch", "offset"),
    ("apply-suggestion-from-pquentin.patch", "offset"),
    ("CVE-2026-44431.patch", "offset"),
]
CARRIED = [name for name, verdict in PORTED if verdict != "upstreamed"]


def downstream(tmp_path: Path) -> Path:
    patches, version = debian_series("python-urllib3")
    assert version == "1.26.12"
    root = tmp_path / "downstream"
    root.mkdir()
    shutil.copytree(patches, root / "patches")
    (root / "patchkeeper.toml").write_text('upstream = "urllib3"\npin = "1.26.12"\n')
    return root


def test_port_urllib3_to_1_26_20_and_verify(cli, tmp_path: Path) -> None:
    root = downstream(tmp_path)
    run = cli("port", "--json", "--to", "urllib3==1.26.20", cwd=root)
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert [(p["name"], p["verdict"]) for p in data["patches"]] == PORTED
    six = data["patches"][0]
    assert len(six["files"]) == 36  # the patch touches 36 files
    assert [(f["target"], f["conflicts"]) for f in six["files"] if f["status"] != "clean"] == [
        ("src/urllib3/connectionpool.py", 1),
        ("src/urllib3/request.py", 1),
    ]
    assert [(h["path"], h["index"]) for h in six["failed_hunks"]] == [
        ("src/urllib3/connectionpool.py", 1),
        ("src/urllib3/request.py", 1),
    ]
    assert six["summary"] == (
        "git's three-way merge stopped at src/urllib3/connectionpool.py (1 conflict region), "
        "src/urllib3/request.py (1 conflict region); refreshed as the audit does: its 39 "
        "hunks (36 files) land with their + and - lines unchanged (among the imports, at fuzz "
        "0, by git's three-way merge, by its removed lines)"
    )
    assert six["change"]["same"] is True  # Debian's lines as they were, new context
    assert not (root / ".patchkeeper-port").exists()  # nothing waits to be resolved
    merged = data["patches"][5]
    assert merged["summary"] == (
        "src/urllib3/poolmanager.py #1 does not apply at fuzz 0; git's three-way merge carried "
        "the patch"
    )
    assert merged["change"]["same"] is True
    out = root / "patches-1.26.20"
    old = root / "patches"
    for name in CARRIED:
        # Debian's patches have no Cut-against: the preamble is kept byte for byte
        assert read_patch(out / name).preamble == read_patch(old / name).preamble
    pristine = sdist_tree("urllib3==1.26.20")
    target = tmp_path / "target"
    shutil.copytree(pristine, target)
    assert cli("-C", str(out), "apply", "--target", str(target)).code == 0
    run = cli("-C", str(out), "verify", "--target", str(target), "--pristine", str(pristine))
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        "ok: 9 of 9 patches applied, 0 files drifted",
    )
    # GNU patch at fuzz 0 gives the same tree from the refreshed series
    reference = tmp_path / "reference"
    shutil.copytree(pristine, reference)
    for name in CARRIED:
        subprocess.run(
            ["patch", "-p1", "--fuzz", "0", "-s", "--no-backup-if-mismatch", "-i", str(out / name)],
            cwd=reference,
            check=True,
        )
    assert tree_bytes(reference) == tree_bytes(target)


def test_port_urllib3_causes_from_a_repository_of_the_sdists(cli, tmp_path: Path) -> None:
    root = downstream(tmp_path)
    old = sdist_tree("urllib3==1.26.12")
    new = sdist_tree("urllib3==1.26.20")
    module = Path("src/urllib3")
    repo = upstream_repository(
        tmp_path / "urllib3.git",
        ("1.26.12", old),
        ("1.26.20", new),
        [
            (
                "Import HTTPHeaderDict where redirects drop the body (#9001)",
                {
                    str(module / "connectionpool.py"): (
                        new / module / "connectionpool.py"
                    ).read_bytes()
                },
            ),
            (
                "Import six from the package in request.py (#9002)",
                {str(module / "request.py"): (new / module / "request.py").read_bytes()},
            ),
        ],
    )
    run = cli("port", "--json", "--to", "urllib3==1.26.20", "--upstream-repo", str(repo), cwd=root)
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert data["history"] == f"{repo} (1.26.12..1.26.20)"
    six = data["patches"][0]
    assert [(c["path"], [x["subject"] for x in c["commits"]]) for c in six["causes"]] == [
        (
            "src/urllib3/connectionpool.py",
            ["Import HTTPHeaderDict where redirects drop the body (#9001)"],
        ),
        ("src/urllib3/request.py", ["Import six from the package in request.py (#9002)"]),
    ]
    # Debian's Origin names upstream commits this repository does not have
    origins = data["patches"][5]["references"]
    assert [(r["field"], r["status"]) for r in origins] == [("Origin", "not found")]
    assert origins[0]["text"].endswith("/urllib3/commit/f05b1329126d5be6de501f9d1e3e36738bc08857")
