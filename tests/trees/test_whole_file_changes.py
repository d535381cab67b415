"""``status`` names what a patch of whole-file changes leaves undone.

``git format-patch`` writes a mode change (``chmod +x``) and a rename without hunks. On a
tree where such a patch is not applied, ``status`` said "not applied" and nothing more:
there is no hunk to name, so the reader could not tell what was missing. It names the mode
and the rename now, in the terminal and in the JSON's ``missing_changes``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from helpers import write_files

MODE = (
    "From 65f491a0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6 Mon Sep 17 00:00:00 2001\n"
    "From: A Packager <packager@example.org>\n"
    "Subject: [PATCH 1/2] make util executable\n\n---\n"
    " 0 files changed\n mode change 100644 => 100755 app/util.py\n\n"
    "diff --git a/app/util.py b/app/util.py\nold mode 100644\nnew mode 100755\n"
    "-- \n2.39.5\n\n"
)
RENAME = (
    "From 521055d0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6 Mon Sep 17 00:00:00 2001\n"
    "From: A Packager <packager@example.org>\n"
    "Subject: [PATCH 2/2] rename debug\n\n---\n"
    " app/{debug.py => debugging.py} | 0\n 1 file changed, 0 insertions(+), 0 deletions(-)\n"
    " rename app/{debug.py => debugging.py} (100%)\n\n"
    "diff --git a/app/debug.py b/app/debugging.py\nsimilarity index 100%\n"
    "rename from app/debug.py\nrename to app/debugging.py\n"
    "-- \n2.39.5\n\n"
)
TREE = {"app/util.py": "import os\n", "app/debug.py": "def dump():\n    pass\n"}


def downstream(tmp_path: Path) -> Path:
    root = tmp_path / "downstream"
    write_files(
        root,
        {
            "patches/series": "0001-make-util-executable.patch\n0002-rename-debug.patch\n",
            "patches/0001-make-util-executable.patch": MODE,
            "patches/0002-rename-debug.patch": RENAME,
            "patchkeeper.toml": 'upstream = "app"\npin = "1.0"\n\n[headers]\nschema = "dep3"\n',
        },
    )
    write_files(tmp_path / "pristine", TREE)
    write_files(tmp_path / "target", TREE)
    return root


def test_status_names_the_mode_and_the_rename_not_made(cli, tmp_path: Path) -> None:
    root = downstream(tmp_path)
    target, pristine = tmp_path / "target", tmp_path / "pristine"
    run = cli("status", "--target", str(target), "--pristine", str(pristine), cwd=root)
    assert (run.code, run.out.splitlines()[1:]) == (
        1,
        [
            "  not applied  0001-make-util-executable.patch",
            "  not applied  0002-rename-debug.patch",
            "    0001-make-util-executable.patch: app/util.py: mode not changed to 100755 "
            "(from 100644)",
            "    0002-rename-debug.patch: app/debug.py: not renamed to app/debugging.py",
            "not ok: 0 of 2 patches applied, 0 files drifted",
        ],
    )
    run = cli("status", "--target", str(target), "--pristine", str(pristine), "--json", cwd=root)
    patches = json.loads(run.out)["state"]["patches"]
    assert [(p["state"], p["missing_changes"]) for p in patches] == [
        ("not applied", ["app/util.py: mode not changed to 100755 (from 100644)"]),
        ("not applied", ["app/debug.py: not renamed to app/debugging.py"]),
    ]


def test_one_applied_names_only_the_other(cli, tmp_path: Path) -> None:
    root = downstream(tmp_path)
    target, pristine = tmp_path / "target", tmp_path / "pristine"
    (target / "app/debug.py").rename(target / "app/debugging.py")
    os.chmod(target / "app/util.py", 0o644)
    run = cli("status", "--target", str(target), "--pristine", str(pristine), cwd=root)
    assert (run.code, run.out.splitlines()[1:]) == (
        1,
        [
            "  not applied  0001-make-util-executable.patch",
            "  applied      0002-rename-debug.patch",
            "    0001-make-util-executable.patch: app/util.py: mode not changed to 100755 "
            "(from 100644)",
            "not ok: 1 of 2 patches applied, 0 files drifted",
        ],
    )
    os.chmod(target / "app/util.py", 0o755)
    run = cli("status", "--target", str(target), "--pristine", str(pristine), "--json", cwd=root)
    patches = json.loads(run.out)["state"]["patches"]
    assert (run.code, [(p["state"], p["missing_changes"]) for p in patches]) == (
        0,
        [("applied", []), ("applied", [])],
    )
