"""``audit``, ``port`` and ``upgrade --to DIR`` with another project's unpacked sdist that
shares a file every project has (``pyproject.toml``) with the files the series changes. Judged
as the new release, the patches to the other files were *target gone* and one that deletes a
test *upstreamed*, to retire; the upgrade began (a branch, its state) before its audit step
refused the tree, leaving an upgrade ``--continue`` could not finish. It is refused before
anything is written, as a tree that holds none of the files is."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from helpers import make_checkout, write_files

# the Debian shape: a test the build cannot run, deleted; the version the build reads
DROP_TEST = """Description: Remove failing test
Author: A Maintainer <maint@example.org>
Forwarded: no

Index: python-evlet/tests/patcher_test.py
===================================================================
--- python-evlet.orig/tests/patcher_test.py
+++ python-evlet/tests/patcher_test.py
@@ -1,6 +1,3 @@
 def test_import():
     assert evlet.patcher is not None
 
-
-def test_threading():
-    assert False
"""

VERSION = """Description: Fix detecting version
Author: A Maintainer <maint@example.org>
Forwarded: no

Index: python-evlet/pyproject.toml
===================================================================
--- python-evlet.orig/pyproject.toml
+++ python-evlet/pyproject.toml
@@ -1,3 +1,3 @@
 [project]
 name = "evlet"
-dynamic = ["version"]
+version = "0.39.1"
"""

PATCHER_TEST = "def test_import():\n    assert evlet.patcher is not None\n\n\ndef test_threading():\n    assert False\n"


def _tree(root: Path, name: str, version: str, files: dict[str, str]) -> Path:
    pkg_info = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    return write_files(root, {"PKG-INFO": pkg_info, **files})


def _downstream(tmp_path: Path) -> Path:
    pyproject = '[project]\nname = "evlet"\ndynamic = ["version"]\n'
    _tree(
        tmp_path / "evlet-0.39.1",
        "evlet",
        "0.39.1",
        {"pyproject.toml": pyproject, "tests/patcher_test.py": PATCHER_TEST},
    )
    marsh = '[project]\nname = "marsh"\ndynamic = ["version"]\n'
    _tree(tmp_path / "marsh-4.0.0", "marsh", "4.0.0", {"pyproject.toml": marsh})
    down = write_files(
        tmp_path / "down",
        {
            "patchkeeper.toml": 'upstream = "evlet"\npin = "0.39.1"\n'
            'pristine = "../evlet-0.39.1"\nseries = "debian/patches/series"\n',
            "debian/patches/series": "drop-test.patch\nversion.patch\n",
            "debian/patches/drop-test.patch": DROP_TEST,
            "debian/patches/version.patch": VERSION,
        },
    )
    make_checkout(down)
    return down


def test_another_projects_sdist_sharing_a_file_is_refused(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    marsh = (tmp_path / "marsh-4.0.0").resolve()
    expected = {
        "message": "the new upstream (--to) is marsh 4.0.0, as its own metadata says, not "
        "evlet, the configured upstream, and it holds only 1 of the 2 files the series changes",
        "file": str(marsh),
        "line": None,
        "hint": "pass --to a tree of evlet (evlet==VERSION fetches its release), or fix "
        "'upstream' in the configuration",
    }
    for command in ("audit", "port", "upgrade"):
        run = cli(command, "--to", "../marsh-4.0.0", "--json", cwd=down)
        assert (command, run.code, json.loads(run.out)["error"]) == (command, 2, expected)
    status = subprocess.run(
        ["git", "status", "--porcelain", "--ignored"], cwd=down, capture_output=True, text=True
    )
    branches = subprocess.run(
        ["git", "branch", "--format=%(refname:short)"], cwd=down, capture_output=True, text=True
    )
    assert (status.stdout, branches.stdout, (down / ".git" / "patchkeeper-upgrade").exists()) == (
        "",
        "main\n",
        False,
    )


def test_the_projects_own_release_is_still_audited(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    run = cli("audit", "--to", "../evlet-0.39.1", "--json", cwd=down)
    assert (run.code, [v["verdict"] for v in json.loads(run.out)["verdicts"]]) == (
        0,
        ["clean", "clean"],
    )


def test_another_projects_sdist_as_the_pristine_tree_is_refused(cli, tmp_path: Path) -> None:
    """Weighed against it, ``verify`` found every file of the target drifted and ``audit``
    read the other project's lines as the old pin's."""
    down = _downstream(tmp_path)
    marsh = (tmp_path / "marsh-4.0.0").resolve()
    message = (
        "is marsh 4.0.0, as its own metadata says, not evlet, the configured upstream, and it "
        "holds only 1 of the 2 files the series changes"
    )
    hint = (
        "pass --pristine a tree of evlet (evlet==VERSION fetches its release), or fix "
        "'upstream' in the configuration"
    )
    target = ("--target", "../evlet-0.39.1")
    runs = {
        "the pristine reference (--pristine)": ("audit", "--to", "../evlet-0.39.1"),
        "the pristine reference": ("verify", *target),
    }
    for what, args in runs.items():
        run = cli(*args, "--pristine", "../marsh-4.0.0", "--json", cwd=down)
        assert (run.code, json.loads(run.out)["error"]) == (
            2,
            {"message": f"{what} {message}", "file": str(marsh), "line": None, "hint": hint},
        )
