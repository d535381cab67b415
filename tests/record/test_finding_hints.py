"""Each record finding says what to do (its hint), and a decision ``decide`` only suggested
is named a suggestion, not a decision (a new user's report: ``dropped-but-present`` said "is
decided retire" for an unreviewed suggestion, and ``no-decision`` said nothing to do)."""

from __future__ import annotations

from pathlib import Path

from patchkeeper.record.decisions import Decision, Decisions
from patchkeeper.record.patch_evidence import Item
from patchkeeper.record.reconcile import FINDING_KINDS, Row, build_rows, record_findings

DECISIONS = Path("patchkeeper-decisions.toml")


def _findings(items: list[Item], decisions: list[Decision]) -> list[tuple[str, str, str]]:
    table = Decisions(DECISIONS, {(d.kind, d.key): d for d in decisions})
    rows = build_rows(items, table)
    return [(f.code, f.message, f.hint) for f in record_findings(rows, {"audit"}, DECISIONS)]


def test_a_suggested_retire_of_a_patch_still_in_the_series() -> None:
    item = Item("series", "a.patch", "patches/a.patch", verdict="upstreamed", source="audit")
    decision = Decision("series", "a.patch", "retire", line=3, suggested=True)
    assert _findings([item], [decision]) == [
        (
            "not-reviewed",
            'patchkeeper-decisions.toml:3: `a.patch`: decide suggested "retire" and nobody has '
            "reviewed it",
            'delete "suggested: " from its decision to accept it, or write your own',
        ),
        (
            "dropped-but-present",
            "`a.patch` is suggested retire, but it is still in the series",
            "run patchkeeper retire a.patch --at VERSION --why TEXT, VERSION the upstream "
            'release that carries it (no pin is recorded: set pin = "VERSION" in '
            "patchkeeper.toml and retire takes it), or decide to keep it",
        ),
    ]


def test_every_row_finding_has_a_hint() -> None:
    items = [
        Item(
            "series", "none.patch", "patches/none.patch", "clean", source="audit", suggested="carry"
        ),
        Item("series", "gone.patch", "patches/gone.patch", present=False),
        Item("runtime", "p.py::t.f", "p.py:3", verdict="remove", source="runtime audit"),
        Item("series", "new.patch", "patches/new.patch"),
    ]
    decisions = [
        Decision("series", "gone.patch", "carry", removal_condition="upstreamed", line=1),
        Decision("runtime", "p.py::t.f", "retain", line=5),
        Decision("series", "lost.patch", "carry", removal_condition="upstreamed", line=9),
        Decision("series", "new.patch", "carry", line=12),
    ]
    found = _findings(items, decisions)
    assert found == [
        (
            "no-decision",
            "the patch `none.patch` has no decision",
            "run patchkeeper decide to suggest one from the evidence, or write its decision in "
            "the decisions file",
        ),
        (
            "kept-but-gone",
            "`gone.patch` is decided carry, but it is no longer in the series",
            "decide retire if it was taken out on purpose, or put it back in the series",
        ),
        (
            "kept-without-condition",
            "patchkeeper-decisions.toml:5: `p.py::t.f` is decided retain without a removal "
            "condition",
            'write in its removal-condition when it can go (e.g. "upstreamed" or "the pin that '
            'carries #123")',
        ),
        (
            "contradiction",
            "`p.py::t.f`: retain, but the new upstream already has the change (runtime audit: "
            "remove)",
            "change the decision, or say in its reason why the evidence does not hold",
        ),
        (
            "kept-without-condition",
            "patchkeeper-decisions.toml:12: `new.patch` is decided carry without a removal "
            "condition",
            'write in its removal-condition when it can go (e.g. "upstreamed" or "the pin that '
            'carries #123")',
        ),
        (
            "unknown-key",
            "`lost.patch` is decided carry, but it is not in the series",
            "decide retire if it was taken out on purpose ('patchkeeper retire', a port); else "
            "delete its table from the decisions file, or correct the key to the name the "
            "series gives",
        ),
        (
            "stale-evidence",
            "`gone.patch` is not in the audit evidence",
            "run patchkeeper audit again with --save-evidence",
        ),
        (
            "stale-evidence",
            "`new.patch` is not in the audit evidence",
            "run patchkeeper audit again with --save-evidence",
        ),
    ]
    assert all(hint for _, _, hint in found)
    assert {code for code, _, _ in found} <= set(FINDING_KINDS)
    assert Row("series", "x", None, None).decided == ""


def test_no_decision_says_what_gives_one() -> None:
    """``no-decision`` said "run patchkeeper decide to suggest one from the evidence" when no
    evidence judged the item, and decide then suggested nothing: the hint names the command
    that saves the verdict decide suggests from, or says that the verdict suggests none."""
    items = [
        Item("series", "a.patch", "patches/a.patch"),
        Item("runtime", "p.py::t.f", "p.py:3"),
        Item("series", "b.patch", "patches/b.patch", "unreadable", source="audit"),
    ]
    assert [(code, hint) for code, _, hint in _findings(items, [])] == [
        (
            "no-decision",
            "no saved audit judges it: run patchkeeper audit --to NEW --save-evidence (NEW: "
            "the release to move to), then patchkeeper decide to suggest one from its verdict; "
            "or write its decision in the decisions file",
        ),
        (
            "no-decision",
            "no saved runtime audit judges it: run patchkeeper runtime audit --to NEW "
            "--save-evidence (NEW: the release to move to), then patchkeeper decide to suggest "
            "one from its verdict; or write its decision in the decisions file",
        ),
        (
            "no-decision",
            "the audit verdict (unreadable) suggests no decision: write its decision in the "
            "decisions file",
        ),
        ("stale-evidence", "run patchkeeper audit again with --save-evidence"),
    ]


def test_report_without_evidence_names_the_command_that_saves_it(cli, example) -> None:
    """On the example with no evidence saved, ``report`` names ``audit --save-evidence``
    for each patch; once that ran, ``decide``."""
    down = example.downstream
    first = cli("report", cwd=down)
    assert (first.code, first.out.splitlines()[1]) == (
        1,
        "  no-decision: the patch `retry-backoff-cap.patch` has no decision: no saved audit "
        "judges it: run patchkeeper audit --to NEW --save-evidence (NEW: the release to move "
        "to), then patchkeeper decide to suggest one from its verdict; or write its decision "
        "in the decisions file",
    )
    assert cli("audit", "--to", "../upstream/minihttp-1.1", "--save-evidence", cwd=down).code == 1
    second = cli("report", cwd=down)
    assert (second.code, second.out.splitlines()[1]) == (
        1,
        "  no-decision: the patch `retry-backoff-cap.patch` has no decision: run patchkeeper "
        "decide to suggest one from the evidence, or write its decision in the decisions file",
    )
