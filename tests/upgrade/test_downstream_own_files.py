"""The downstream's own files inside a tree that is the downstream too
(:func:`patchkeeper.upgrade.own_files.own_files`, which ``verify`` and ``status`` leave out
of the drift): read from the configuration and each feature's settings, relative to the
tree's base."""

from __future__ import annotations

from pathlib import Path

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.series.load import load_series
from patchkeeper.trees.tree import target_tree
from patchkeeper.upgrade.own_files import own_files

#: A Debian source package: the upstream tree with its packaging and the configuration.
PACKAGE = {
    "PKG-INFO": "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n",
    "demo/core.py": "B = 20\n",
    "debian/control": "Source: demo\n",
    "debian/patches/series": "b-is-20.patch\n",
    "debian/patches/b-is-20.patch": (
        "--- a/demo/core.py\n+++ b/demo/core.py\n@@ -1 +1 @@\n-B = 2\n+B = 20\n"
    ),
    "patchkeeper.toml": (
        'upstream = "demo"\npin = "1.0"\nseries = "debian/patches/series"\n\n'
        '[report]\naudit-file = "record/AUDIT.md"\n\n[port]\nwork-dir = ".w"\n'
    ),
}


def test_own_files_name_the_packaging_the_record_and_the_work_directories(
    tmp_path: Path,
) -> None:
    write_files(tmp_path, PACKAGE)
    config = load_config(tmp_path / "patchkeeper.toml")
    _, patches = load_series(config)
    tree = target_tree(config, tmp_path, None)
    assert sorted(own_files(config, tree, patches)) == [
        ".patchkeeper-upgrade",
        ".w",
        "AUDIT.html",
        "PATCHES.md",
        "debian/control",  # debian/ is the packaging: each of its files
        "debian/patches/b-is-20.patch",
        "debian/patches/series",
        "patchkeeper-decisions.toml",
        "patchkeeper.toml",
        "record/AUDIT.md",
    ]
