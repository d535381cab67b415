"""A ``sys.modules`` entry whose key is computed at run time, in the shape of vllm-musa
0.1.0's ``patches/__init__.py``: a loader rewrites upstream modules' source files on disk,
then drops each from the module cache (``del sys.modules[module_name]`` in a loop over the
``(module_name, patch_file)`` pairs a function lists from the patch files it ships) so that
the next import reads the rewritten file.
Which module the key names is not known statically: across an upgrade it is for a person
to look at (*look*). When the old and the new upstream are the same release, whichever
module it names is the same in both trees, so the upgrade gives nothing to look at:
*retain*, with the computed key said after the reason.

The plugin is written by the test on the ``tinyup`` fixture (1.0 and 2.0) of
``tests/runtime/fixtures``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tinyplug import HEADER, copy_releases, write_plugin

LOADER = (
    HEADER
    + """import importlib.util
import os
import sys


def _get_patch_files():
    here = os.path.dirname(__file__)
    names = sorted(n for n in os.listdir(here) if n.endswith(".txt"))
    return [("tinyup." + n[: -len(".txt")], os.path.join(here, n)) for n in names]


def _rewrite(module_name, patch_file):
    spec = importlib.util.find_spec(module_name)
    if spec is None or spec.origin is None:
        return False
    with open(spec.origin) as handle:
        source = handle.read()
    with open(spec.origin, "w") as handle:
        handle.write(source.replace("old", "new"))
    return True


def apply_patches():
    for module_name, patch_file in _get_patch_files():
        if not _rewrite(module_name, patch_file):
            continue
        if module_name in sys.modules:
            del sys.modules[module_name]


apply_patches()
"""
)

#: What the audit says of the computed key whatever the releases.
UNKNOWN = (
    "sys.modules[module_name] (plug/patch/p_loader.py:31): the key is computed at run time, "
    "so which module it replaces is not known statically; look at the code by hand"
)


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The two tinyup releases under ``tmp_path`` (and 1.0 once more, as ``again-1.0``)
    with a private cache."""
    base = copy_releases(tmp_path, monkeypatch)
    shutil.copytree(base / "upstream-1.0", base / "again-1.0")
    return base


def _audited(cli, root: Path, old: Path, new: Path) -> list[tuple[int, str, str, list[str]]]:
    run = cli("runtime", "audit", "--from", str(old), "--to", str(new), "--json", cwd=root)
    return [
        (a["entry"]["line"], a["entry"]["key"], a["drift"]["decision"], a["drift"]["evidence"])
        for a in json.loads(run.out)["entries"]
    ]


def test_a_computed_key_across_an_upgrade_is_looked_at(upstream: Path, cli) -> None:
    root = write_plugin(upstream, {"plug/patch/p_loader.py": LOADER})
    found = _audited(cli, root, upstream / "upstream-1.0", upstream / "upstream-2.0")
    assert found == [(31, "module_name", "look", [UNKNOWN])]


def test_a_computed_key_on_the_same_release_twice_is_kept(upstream: Path, cli) -> None:
    root = write_plugin(upstream, {"plug/patch/p_loader.py": LOADER})
    found = _audited(cli, root, upstream / "upstream-1.0", upstream / "again-1.0")
    assert found == [
        (
            31,
            "module_name",
            "retain",
            [
                "the old and the new upstream are the same release (1.0): nothing upstream "
                "changed, so nothing calls for changing the entry; what follows of its target "
                "holds in both trees and was so before",
                UNKNOWN,
            ],
        )
    ]
