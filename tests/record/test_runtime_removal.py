"""A runtime *remove* is worded by its reason, and a gone target is one the old release had
(the decisions against the runtime audit's evidence: record/reconcile.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchkeeper.record.decisions import RUNTIME, Decisions
from patchkeeper.record.patch_evidence import Item, runtime_removal
from patchkeeper.record.reconcile import condition_met, contradictions


@pytest.mark.parametrize(
    ("activation", "evidence", "expected"),
    [
        ("never", ["never imported (no import reaches it): remove it"], "never imported"),
        ("conditional", ["its version gate is false at 2.0 (a.py:3: v()): dead"], "dead gate"),
        (
            "active",
            ["up.f existed at the old release and is gone from the new one: the affected path"],
            "target gone",
        ),
        ("active", ["the new upstream implementation equals the replacement"], "upstream"),
    ],
)
def test_why_a_runtime_remove_is_suggested(activation, evidence, expected) -> None:
    assert runtime_removal("remove", activation, evidence) == expected
    assert runtime_removal("update", activation, evidence) == ""


def _item(verdict: str, removal: str = "", gone: bool = False) -> Item:
    return Item(
        kind=RUNTIME,
        key="plug/patch/a.py::up.f",
        where="plug/patch/a.py:3",
        verdict=verdict,
        source="runtime audit",
        condition_field="Remove at",
        condition="upstream merges the fix.",
        target_gone=gone,
        removal=removal,
    )


def test_retain_of_a_never_imported_entry_says_so() -> None:
    assert contradictions(_item("remove", "never imported"), "retain") == [
        "retain, but the entry is never imported: nothing reaches it (runtime audit: remove)"
    ]
    assert contradictions(_item("remove", "upstream"), "retain") == [
        "retain, but the new upstream already has the change (runtime audit: remove)"
    ]


def test_a_never_imported_remove_does_not_meet_an_upstream_condition() -> None:
    decisions = Decisions(Path("patchkeeper-decisions.toml"), {})
    assert condition_met(_item("remove", "never imported"), decisions, "2.0") == ""
    assert condition_met(_item("remove", "upstream"), decisions, "2.0") == (
        "Remove at 'upstream merges the fix.' is met: runtime audit finds the change upstream"
    )


def test_update_of_a_moved_target_is_a_retarget_not_a_contradiction() -> None:
    moved = _item("update", gone=True)
    assert contradictions(moved, "update") == []
    assert contradictions(moved, "retain") == [
        "retain whose target is gone (runtime audit: update)"
    ]
    assert contradictions(_item("remove", "target gone", gone=True), "update") == [
        "update whose target is gone (runtime audit: remove)"
    ]
