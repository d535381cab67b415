"""Porting a patch with two diffs of one file: the upstream cause is looked up for the hunk
that fails, not for the other diff's hunk of the same number.

Each diff of a patch numbers its hunks from 1; the patch below changes ``first()`` in its
first diff and ``second()`` in its second, both "x.py hunk #1". Upstream rewrote the line of
``second()`` between the pins, so only the second diff's hunk fails.
"""

from __future__ import annotations

import json
from pathlib import Path

from port_support import git, upstream_repository

OLD = b"""import os


def first():
    timeout = 10
    return timeout


def helper():
    return os.getcwd()


def second():
    retries = 3
    return retries
"""
NEW = OLD.replace(b"retries = 3", b'retries = int(os.environ.get("RETRIES", "3"))')
PATCH = b"""Subject: longer timeout, more retries

--- a/pkg/x.py
+++ b/pkg/x.py
@@ -4,3 +4,3 @@
 def first():
-    timeout = 10
+    timeout = 30
     return timeout
--- a/pkg/x.py
+++ b/pkg/x.py
@@ -13,3 +13,3 @@
 def second():
-    retries = 3
+    retries = 5
     return retries
"""


def _release(root: Path, version: str, content: bytes) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "x.py").write_bytes(content)
    (root / "PKG-INFO").write_text(f"Metadata-Version: 2.1\nName: pkg\nVersion: {version}\n")
    return root


def test_the_cause_is_the_failing_hunks_only(cli, tmp_path: Path) -> None:
    old = _release(tmp_path / "pkg-1.0", "1.0", OLD)
    new = _release(tmp_path / "pkg-1.1", "1.1", NEW)
    subject = "Read the retries from the environment (#3)"
    repo = upstream_repository(
        tmp_path / "pkg.git", ("v1.0", old), ("v1.1", new), [(subject, {"pkg/x.py": NEW})]
    )
    downstream = tmp_path / "downstream"
    (downstream / "patches").mkdir(parents=True)
    (downstream / "patches" / "two.patch").write_bytes(PATCH)
    (downstream / "patches" / "series").write_text("two.patch\n")
    (downstream / "patchkeeper.toml").write_text('upstream = "pkg"\npin = "1.0"\n')

    run = cli(
        "port", "--json", "--to", str(new), "--from", str(old), "--upstream-repo", str(repo),
        cwd=downstream,
    )  # fmt: skip
    assert run.code == 1, run.err
    (patch,) = json.loads(run.out)["patches"]
    assert patch["verdict"] == "conflict"
    assert patch["failed_hunks"] == [
        {"path": "pkg/x.py", "index": 1, "header": "@@ -13,3 +13,3 @@", "patch_line": 12}
    ]
    commit = git(repo, "log", "--all", "-F", f"--grep={subject}", "--format=%H")
    assert patch["causes"] == [
        {
            "path": "pkg/x.py",
            "hunk": 1,
            "header": "@@ -13,3 +13,3 @@",
            "old_range": [13, 15],
            "new_range": [13, 15],
            "commits": [{"id": commit, "subject": subject}],
            "file_commits": [],
            "note": "",
        }
    ]
