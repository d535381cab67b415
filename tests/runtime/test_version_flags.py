"""A copy that tests upstream's release through a name its module binds to a release test
(``_IS_OLD = fup_version_is("1.0")`` at module level, read as ``if not _IS_OLD and ...:``
inside the copy) follows upstream from release to release, as a copy holding the test
itself does: an upstream change of the body alone is *update* for it, not *retain*. A copy
of the same module that reads no such name, and one reading a module-level name bound to
something else (an environment switch), stay *retain*: their callers' calls still bind.

The plugin below is written by this test in the shape of a speculative-decoding plugin's
multi-token-predictor patch: upstream's ``draft_step`` gains a gather after the layer at
2.0; the plugin's ``patch_mtp.py`` holds three copies of upstream functions."""

from __future__ import annotations

from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

OLD_MTP = """def draft_step(layer, x):
    y = layer(x)
    return y * 2


def verify_step(layer, x):
    y = layer(x)
    return y + 1


def accept_step(layer, x):
    y = layer(x)
    return y - 1
"""
NEW_MTP = """def draft_step(layer, x):
    y = layer(x)
    if layer.scattered:
        y = layer.gather(y)
    return y * 2


def verify_step(layer, x):
    y = layer(x)
    y = layer.norm(y)
    return y + 1


def accept_step(layer, x):
    y = layer(x)
    y = layer.clip(y)
    return y - 1
"""
PATCH = """import os

import fup.mtp

from flagdev.utils import fup_version_is

_IS_OLD = fup_version_is("1.0")
_FAST = os.environ.get("FLAGDEV_FAST") == "1"


def my_draft_step(layer, x):
    y = layer(x)
    if not _IS_OLD and layer.scattered:
        y = layer.gather(y)
    return y * 3


def my_verify_step(layer, x):
    y = layer(x)
    return y + 2


def my_accept_step(layer, x):
    y = layer(x)
    if _FAST:
        return y
    return y - 2


fup.mtp.draft_step = my_draft_step
fup.mtp.verify_step = my_verify_step
fup.mtp.accept_step = my_accept_step
"""
KEPT = (
    "retain",
    "upstream changed only the body of the function the plugin replaces by its own copy "
    "(signature and decorators are the same: its callers' calls still bind to the copy, "
    "which runs as the plugin wrote it); merge upstream's change into it only if the "
    "plugin needs it",
)


@pytest.fixture
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    releases = {"1.0": {"fup/mtp.py": OLD_MTP}, "2.0": {"fup/mtp.py": NEW_MTP}}
    plugin = {
        "flagdev/utils.py": "def fup_version_is(v):\n    return False\n",
        "flagdev/patch/__init__.py": "from flagdev.patch import patch_mtp  # noqa: F401\n",
        "flagdev/patch/patch_mtp.py": PATCH,
    }
    return write_trees(tmp_path, monkeypatch, releases, "flagdev", plugin)


def test_a_copy_reading_a_release_flag_of_its_module_is_updated(trees: Path) -> None:
    result = audit_trees(trees, "flagdev")
    decisions = {a.entry.target: (a.drift.decision, a.drift.evidence[0]) for a in result.entries}
    assert decisions == {
        # its `if not _IS_OLD and ...` tests the release: it follows upstream's releases
        "fup.mtp.draft_step": (
            "update",
            "upstream fup.mtp.draft_step changed: body; the downstream change is not in the "
            "new upstream",
        ),
        # no test of the release in its lines: its callers' calls still bind to it
        "fup.mtp.verify_step": KEPT,
        # `_FAST` is an environment switch, not a release test
        "fup.mtp.accept_step": KEPT,
    }
