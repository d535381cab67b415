"""``port`` carries a patch the audit says to refresh: git's three-way merge conflicts where
upstream sorted the imports right beside the patch's own, but every hunk lands with its ``+``
and ``-`` lines unchanged (its import among upstream's, its other hunk at fuzz 0), so the port
refreshes it as the audit does instead of stopping. The shape of Debian's urllib3 six patch
on 1.26.20, whose audit says carry (refresh it) and whose port stopped.

The upstream is a real git repository (two tagged releases and the commit between them that
sorted the imports); the downstream is a git checkout; the port runs on the two releases'
trees and reads the repository for the commit behind the hunk that did not apply.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from port_support import upstream_repository

from helpers import CLI_NEW, CLI_OLD, VERSION_FROM_ENV, make_checkout, write_files

PORTED = '''"""Command line."""

import argparse
import metadata
import os
import re
from collections.abc import Sequence

VERSION = os.environ.get("TALLYHO_VERSION") or metadata.version("tallyho")
'''


def _downstream(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """The upstream repository, the two releases' trees taken from it, and the downstream
    checkout: ``(repository, old tree, new tree, downstream)``."""
    releases = tmp_path / "releases"
    for version, cli in (("1.0", CLI_OLD), ("2.0", CLI_NEW)):
        info = f"Metadata-Version: 2.1\nName: tallyho\nVersion: {version}\n"
        write_files(releases / version, {"PKG-INFO": info, "tallyho/cli.py": cli})
    repo = upstream_repository(
        tmp_path / "tallyho.git",
        ("1.0", releases / "1.0"),
        ("2.0", releases / "2.0"),
        [("Sort the imports of cli.py (#12)", {"tallyho/cli.py": CLI_NEW.encode()})],
    )
    trees = []
    for tag in ("1.0", "2.0"):
        tree = tmp_path / f"tallyho-{tag}"
        tree.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(repo), "archive", tag], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        trees.append(tree)
    downstream = tmp_path / "downstream"
    write_files(
        downstream,
        {
            "patchkeeper.toml": 'upstream = "tallyho"\npin = "1.0"\n',
            "patches/series": "version.patch\n",
            "patches/version.patch": VERSION_FROM_ENV,
        },
    )
    make_checkout(downstream)
    return repo, trees[0], trees[1], downstream


def test_a_patch_the_audit_refreshes_is_carried_by_the_port(cli, tmp_path: Path) -> None:
    repo, old, new, downstream = _downstream(tmp_path)
    audit = cli("audit", "--json", "--to", str(new), "--pristine", str(old), cwd=downstream)
    [verdict] = json.loads(audit.out)["verdicts"]
    assert (verdict["verdict"], verdict["action"], verdict["refresh"]) == (
        "conflict",
        "carry",
        "its 2 hunks (1 file) land with their + and - lines unchanged (among the imports, "
        "at fuzz 0)",
    )
    run = cli(
        "port", "--json", "--to", str(new), "--from", str(old), "--upstream-repo", str(repo),
        cwd=downstream,
    )  # fmt: skip
    assert run.code == 0, run.out + run.err
    data = json.loads(run.out)
    [patch] = data["patches"]
    assert (patch["verdict"], patch["summary"]) == (
        "merged",
        "git's three-way merge stopped at tallyho/cli.py (1 conflict region); refreshed as "
        "the audit does: its 2 hunks (1 file) land with their + and - lines unchanged (among "
        "the imports, at fuzz 0)",
    )
    assert patch["change"]["same"] is True  # the same + and - lines, new context
    assert [(c["path"], [x["subject"] for x in c["commits"]]) for c in patch["causes"]] == [
        ("tallyho/cli.py", ["Sort the imports of cli.py (#12)"])
    ]
    # the refreshed patch applies to the new release at fuzz 0, as GNU patch applies it
    target = tmp_path / "target"
    subprocess.run(["cp", "-r", str(new), str(target)], check=True)
    ported = downstream / "patches-2.0" / "version.patch"
    subprocess.run(
        ["patch", "-p1", "--fuzz", "0", "-s", "--no-backup-if-mismatch", "-i", str(ported)],
        cwd=target,
        check=True,
    )
    assert (target / "tallyho" / "cli.py").read_text() == PORTED
    assert not (downstream / ".patchkeeper-port").exists()  # nothing waits to be resolved
