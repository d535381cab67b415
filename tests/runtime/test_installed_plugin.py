"""``runtime inventory --plugin SITE-PACKAGES``: a plugin installed from its wheel declares
its entry points in ``*.dist-info/entry_points.txt``; they are read there, and only the
plugin's own (other distributions in the same directory declare theirs).

Found with ``--plugin venv/lib/python3.11/site-packages`` on a plugin in the seed's shape:
no entry point was found, every entry was "never imported", and the audit would suggest
*remove* for each.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from patchkeeper.config import load_config
from patchkeeper.runtime.inventory import runtime_inventory as inventory

ENTRY_POINTS = "[tinyup.general_plugins]\nmetaplug = metaplug:register\n\n[console_scripts]\nmp = metaplug:main\n"


def _installed(work: Path) -> Path:
    """A ``site-packages`` as pip leaves it: the package, its ``dist-info``, and another
    plugin's ``dist-info`` declaring the same group."""
    site = work / "site-packages"
    shutil.copytree(work / "plugin" / "metaplug", site / "metaplug")
    for name, text in (
        ("metaplug-0.1.dist-info", ENTRY_POINTS),
        ("otherplug-2.0.dist-info", "[tinyup.general_plugins]\nother = otherplug:register\n"),
    ):
        (site / name).mkdir()
        (site / name / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\n")
        (site / name / "entry_points.txt").write_text(text)
    return site


def test_an_installed_plugin_is_activated_by_its_dist_info(runtime_trees: Path) -> None:
    config = load_config(runtime_trees / "plugin" / "pyproject.toml")
    checkout = inventory.take_inventory(config)
    site = _installed(runtime_trees)
    installed = inventory.take_inventory(config, plugin=site)
    assert [(e.group, e.name, e.value, e.source) for e in installed.entry_points] == [
        (
            "tinyup.general_plugins",
            "metaplug",
            "metaplug:register",
            "metaplug-0.1.dist-info/entry_points.txt",
        )
    ]
    assert installed.counts["activation"] == checkout.counts["activation"]
    assert installed.counts["activation"] == {"active": 4, "conditional": 3, "never-imported": 1}
    assert [(e.file, e.line, e.activation.status.value) for e in installed.entries] == [
        (e.file, e.line, e.activation.status.value) for e in checkout.entries
    ]
