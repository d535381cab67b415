"""A wrapper that calls the original is kept (*retain*) when upstream changed the body
alone, unless it names a string the old upstream body held and the new one dropped: it
works on a value upstream stopped producing (*update*).

The plugin below is written by this test in the shape of a vLLM platform plugin's wrapper
around the list of features upstream's model runner does not support: it takes one
feature, which its device supports, out of upstream's list."""

from __future__ import annotations

from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

OLD_CFG = """def unsupported(config):
    found = []
    if config.context > 1:
        found.append("context parallelism")
    if config.pipeline > 1:
        found.append("pipeline parallelism")
    return found


def limits(config):
    found = {}
    if config.pipeline > 1:
        found["pipeline parallelism"] = config.pipeline
    return found
"""
NEW_CFG = """def unsupported(config):
    found = []
    if config.pipeline > 1:
        found.append("pipeline parallelism")
    if config.eager:
        found.append("eager mode")
    return found


def limits(config):
    found = {}
    if config.pipeline > 1:
        found["pipeline parallelism"] = config.pipeline
    if config.eager:
        found["eager mode"] = 1
    return found
"""
PATCH = """# Note: the fixture device runs context and pipeline parallelism itself.
import fup.cfg

_original_unsupported = fup.cfg.unsupported
_original_limits = fup.cfg.limits


def _unsupported(config):
    found = _original_unsupported(config)
    if "context parallelism" in found:
        found.remove("context parallelism")
    return found


def _limits(config):
    found = _original_limits(config)
    found.pop("pipeline parallelism", None)
    return found


fup.cfg.unsupported = _unsupported
fup.cfg.limits = _limits
"""


@pytest.fixture
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return write_trees(
        tmp_path,
        monkeypatch,
        {"1.0": {"fup/cfg.py": OLD_CFG}, "2.0": {"fup/cfg.py": NEW_CFG}},
        "fdev",
        {
            "fdev/patch/__init__.py": "from fdev.patch import patch_cfg  # noqa: F401\n",
            "fdev/patch/patch_cfg.py": PATCH,
        },
    )


def test_a_wrapper_naming_a_string_upstream_dropped_is_updated(trees: Path) -> None:
    result = audit_trees(trees, "fdev")
    decisions = {a.entry.target: (a.drift.decision, a.drift.evidence[0]) for a in result.entries}
    assert decisions == {
        # upstream no longer lists "context parallelism": the wrapper's filter is moot
        "fup.cfg.unsupported": (
            "update",
            "upstream fup.cfg.unsupported changed (body) and the wrapper, which calls the "
            "original, names 'context parallelism', a string the old upstream body held and "
            "the new one no longer does: the wrapper works on a value upstream stopped "
            "producing or passing there; read it against upstream's change",
        ),
        # "pipeline parallelism" is still upstream's: the change passes through the wrapper
        "fup.cfg.limits": (
            "retain",
            "upstream fup.cfg.limits changed (body) but the wrapper calls the original and the "
            "signature is the same",
        ),
    }
