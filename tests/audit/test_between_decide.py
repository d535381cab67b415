""":func:`patchkeeper.audit.between.decide` and :func:`patchkeeper.audit.horizon.taken_earlier`
reword a verdict from its evidence as data (:attr:`PatchVerdict.evidence`, the summary before
:func:`with_action` added what to do), never by cutting its summary at ``"; to do: "``: a
patch name or an evidence holding those words is kept whole."""

from __future__ import annotations

from patchkeeper.audit.between import BetweenReleases, BetweenRow, decide
from patchkeeper.audit.rules import Rule
from patchkeeper.audit.verdicts import BLOCKED, PatchVerdict, evidence_of, with_action
from patchkeeper.jsonable import from_jsonable, to_jsonable

#: a blocked patch whose evidence and whose blocker's name both hold "; to do: "
VERDICT = with_action(
    PatchVerdict("b.patch", BLOCKED, "needs a.patch; to do: x", blocked_by="a; to do: y.patch")
)


def test_the_summary_ends_with_what_to_do_and_the_evidence_is_kept_apart() -> None:
    assert VERDICT.summary == "needs a.patch; to do: x; to do: port (after a; to do: y.patch)"
    assert VERDICT.evidence == "needs a.patch; to do: x"
    assert evidence_of(VERDICT) == "needs a.patch; to do: x"
    assert "evidence" not in to_jsonable(VERDICT)
    read = from_jsonable(PatchVerdict, to_jsonable(VERDICT))
    assert (read.evidence, evidence_of(read)) == (None, VERDICT.summary)


def test_taken_at_a_release_between_keeps_the_whole_evidence() -> None:
    strong = BetweenRow("b.patch", ("upstreamed",), (Rule.REVERSE_APPLIES.value,), ("retire",))
    (decided,) = decide(
        [VERDICT], BetweenReleases("the package indexes", ("1.1",), (strong,)), "1.2"
    )
    assert (decided.verdict, decided.action, decided.taken_at) == ("upstreamed", "retire", "1.1")
    assert decided.summary == (
        "upstreamed at 1.1, changed since: 1.1 has it (reverse-applies); "
        "at 1.2: needs a.patch; to do: x; to do: retire (after checking that upstream's changes since keep its fix)"
    )


def test_applying_again_later_keeps_the_whole_evidence() -> None:
    row = BetweenRow(
        "b.patch",
        ("upstreamed", "clean"),
        (Rule.REVERSE_APPLIES.value, Rule.APPLIES.value),
        ("retire", "carry"),
    )
    between = BetweenReleases("the package indexes", ("1.1", "1.1.5"), (row,))
    (decided,) = decide([VERDICT], between, "1.2")
    assert (decided.verdict, decided.action, decided.taken_at) == ("blocked", "look", "1.1")
    assert decided.summary == (
        "needs a.patch; to do: x; 1.1 had it (reverse-applies), yet 1.1.5 applies it again, "
        "as if upstream had reverted it; to do: look (upstream had it at an earlier release "
        "and a later one lacks it again; decide whether upstream reverted it)"
    )


def test_a_blocker_upstream_rewrote_keeps_its_whole_name_in_the_later_evidence() -> None:
    from patchkeeper.audit.horizon import ReleaseVerdicts, taken_earlier
    from patchkeeper.audit.verdicts import UPSTREAMED

    blocker = with_action(PatchVerdict("a; to do: y.patch", UPSTREAMED, "reverse-applies"))
    taken = with_action(PatchVerdict("b.patch", UPSTREAMED, "reverse-applies"))
    releases = [
        ReleaseVerdicts("1.1", "pk-demo 1.1", (blocker, taken)),
        ReleaseVerdicts("1.2", "pk-demo 1.2", (blocker, VERDICT)),
    ]
    later = taken_earlier(releases)[1].verdicts[1]
    assert (later.verdict, later.action) == ("upstreamed", "retire")
    assert later.summary == (
        "upstream took it in 1.1 and has rewritten its lines since: it needs lines of "
        "a; to do: y.patch, which upstream rewrote too; to do: retire (after checking that upstream's changes since keep its fix)"
    )
