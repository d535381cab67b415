"""A copy the plugin installs only from the new release on, whose parameters are the new
upstream's, was written for that release ahead of it: a changed upstream signature needs no
update there (*retain*), as for a copy installed at both releases whose parameters every call
to the new signature binds to; one gated to the new release that still takes the old
parameters stays *update*.

The plugin below is written by this test in the shape of a KV-cache plugin's planner
helpers: upstream's ``pool_bytes`` drops its ``config`` parameter at 2.0; the plugin's
``patch_kv.py`` sets its own copies under ``if not fup_version_is("1.0"):``."""

from __future__ import annotations

from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

OLD_UTILS = """def pool_bytes(config, groups):
    return config.size * len(groups)


def block_bytes(config, groups):
    return config.size + len(groups)


def page_bytes(config, groups):
    return config.page * len(groups)


def plan(config, groups):
    return pool_bytes(config, groups) + block_bytes(config, groups) + page_bytes(config, groups)
"""
NEW_UTILS = """def pool_bytes(groups):
    return sum(g.size for g in groups)


def block_bytes(groups):
    return sum(g.page for g in groups)


def page_bytes(groups):
    return sum(g.page for g in groups)


def plan(config, groups):
    return pool_bytes(groups) + block_bytes(groups) + page_bytes(groups)
"""
PATCH = """import fup.kv_utils

from fdev.utils import fup_version_is


def my_pool_bytes(groups):
    return 2 * sum(g.size for g in groups)


def my_block_bytes(config, groups):
    return config.size + 2 * len(groups)


def my_page_bytes(groups):
    return 3 * len(groups)


fup.kv_utils.page_bytes = my_page_bytes
if not fup_version_is("1.0"):
    fup.kv_utils.pool_bytes = my_pool_bytes
    fup.kv_utils.block_bytes = my_block_bytes
"""


@pytest.fixture
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    releases = {"1.0": {"fup/kv_utils.py": OLD_UTILS}, "2.0": {"fup/kv_utils.py": NEW_UTILS}}
    plugin = {
        "fdev/utils.py": "def fup_version_is(v):\n    return False\n",
        "fdev/patch/__init__.py": "from fdev.patch import patch_kv  # noqa: F401\n",
        "fdev/patch/patch_kv.py": PATCH,
    }
    return write_trees(tmp_path, monkeypatch, releases, "fdev", plugin)


def test_a_copy_gated_to_the_new_release_with_its_parameters_is_kept(trees: Path) -> None:
    result = audit_trees(trees, "fdev")
    decisions = {a.entry.target: (a.drift.decision, a.drift.evidence[0]) for a in result.entries}
    assert decisions == {
        # not gated: the rule for a copy its callers' calls still bind to decides
        "fup.kv_utils.page_bytes": (
            "retain",
            "upstream changed the signature of the function the plugin replaces by its own copy "
            "in a way the copy already takes (every call to the new signature binds to the "
            "copy's parameters), and otherwise its body: the copy runs as the plugin wrote it; "
            "merge upstream's change into it only if the plugin needs it",
        ),
        "fup.kv_utils.pool_bytes": (
            "retain",
            "the patch runs only from the new release on (its version gate "
            "fdev/patch/patch_kv.py:19: not fup_version_is('1.0') is false at the old release) "
            "and the replacement my_pool_bytes takes the new upstream parameters of "
            "fup.kv_utils.pool_bytes: the plugin wrote it for the new release ahead of it, and "
            "upstream's callers bind to it (its implementation is its own; read it if it "
            "copies upstream's body)",
        ),
        # gated the same way, but it keeps the old parameters: not written for 2.0
        "fup.kv_utils.block_bytes": (
            "update",
            "upstream fup.kv_utils.block_bytes changed: signature: (config, groups) -> "
            "(groups), body; the downstream change is not in the new upstream",
        ),
    }
