"""A signature that changed in its annotations alone changes no call: a wrapper that calls
the original, and a lambda the audit cannot read as a copy, keep taking upstream's calls
(*retain*); a new parameter does change them (*update*).

The plugin below is written by this test in the shape of a vLLM platform plugin's backend
selectors: a wrapper around upstream's selector and a lambda bound over another one, whose
``config: "Config"`` parameter became ``config: "Config | None"``."""

from __future__ import annotations

from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

OLD_SELECT = """def select(config: "Config") -> str:
    if config.fast:
        return "fast"
    return "base"


def pick(config: "Config") -> str:
    return config.name


def choose(config: "Config") -> str:
    return config.name
"""
NEW_SELECT = """def select(config: "Config | None") -> str:
    if config is None:
        return "base"
    if config.fast:
        return "fast"
    return "base"


def pick(config: "Config | None") -> str:
    return config.name if config is not None else "base"


def choose(config: "Config", strict: bool = False) -> str:
    return config.name.lower() if strict else config.name
"""
PATCH = """# Note: the fixture device has one backend of its own.
import fup.select

_original_select = fup.select.select
_original_choose = fup.select.choose


def _select(config):
    chosen = _original_select(config)
    return "dev" if chosen == "base" else chosen


def _choose(config):
    return _original_choose(config).upper()


fup.select.select = _select
fup.select.choose = _choose
fup.select.pick = lambda config: "dev"
"""


@pytest.fixture
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return write_trees(
        tmp_path,
        monkeypatch,
        {"1.0": {"fup/select.py": OLD_SELECT}, "2.0": {"fup/select.py": NEW_SELECT}},
        "fdev",
        {
            "fdev/patch/__init__.py": "from fdev.patch import patch_select  # noqa: F401\n",
            "fdev/patch/patch_select.py": PATCH,
        },
    )


def test_a_signature_changed_in_annotations_alone_changes_no_call(trees: Path) -> None:
    result = audit_trees(trees, "fdev")
    decisions = {a.entry.target: (a.drift.decision, a.drift.evidence[0]) for a in result.entries}
    assert decisions == {
        # config: "Config" -> "Config | None": the wrapper passes config on as before
        "fup.select.select": (
            "retain",
            "upstream fup.select.select changed (signature: (config: 'Config') -> (config: "
            "'Config | None'), body) but the wrapper calls the original and the signature is "
            "the same (its annotations aside)",
        ),
        # the lambda takes config as upstream's callers pass it
        "fup.select.pick": (
            "retain",
            "the replacement is a lambda, not a copy of upstream's code (nothing to compare), "
            "and upstream changed only the body of fup.select.pick (signature and decorators "
            "are the same: its callers' calls still fit the replacement); read the replacement "
            "if it copies upstream's body",
        ),
        # a new parameter the wrapper does not take: a call passing it breaks
        "fup.select.choose": (
            "update",
            "upstream fup.select.choose changed: signature: (config: 'Config') -> (config: "
            "'Config', strict: bool=False), body; the downstream change is not in the new "
            "upstream",
        ),
    }
