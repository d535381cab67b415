"""Patches written for a newer upstream than the old release
(:mod:`patchkeeper.runtime.judge.newer_imports`), on the ``newer_imports`` fixture (plugin
``nplug``, upstream ``nup`` 1.0 -> 2.0): a patch file that imports, unconditionally, a module
only ``nup`` 2.0 has is never said to be taken in by upstream (*look*, with the reason);
the same evidence in a file importing only what 1.0 has, or importing the new module under
``try: ... except ImportError``, still says *remove*."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import audit_fixture

AHEAD = (
    "its file imports {}, which the old upstream lacks: it was written for a newer release "
    "than the old upstream, so what the new upstream added is not upstream taking the patch "
    "in; check --from"
)
LANDED = (
    "the new upstream defines {}, which the patch's file carries (defined in it or in a "
    "helper module of the patch directory it imports) and the old release did not have: "
    "upstream took the feature in; remove the file's patches once upstream's version is "
    "checked to cover them"
)


def test_a_file_importing_a_module_the_old_release_lacks_is_looked_at(
    runtime_trees: Path,
) -> None:
    result = audit_fixture(runtime_trees / "newer_imports", "nplug", "nup")
    decisions = {
        a.entry.target: (a.drift.decision, a.drift.evidence[0], a.facts[-1]) for a in result.entries
    }
    gdn, indexer = "nup.backends.gdn", "nup.backends.indexer"
    assert decisions == {
        # `from nup.backends import gdn`: the module itself, not the package
        "nup.backends.gdn.GatedDeltaMetadata": (
            "look",
            AHEAD.format(gdn),
            f"imports what the old release lacks: {gdn}",
        ),
        "nup.backends.indexer.IndexerBuilder.build": (
            "look",
            AHEAD.format(indexer),
            f"imports what the old release lacks: {indexer}",
        ),
        # the import in the function that holds the patch counts too
        "nup.queue.Queue.drain": (
            "look",
            AHEAD.format(indexer),
            f"imports what the old release lacks: {indexer}",
        ),
        # only modules nup 1.0 has: upstream took the feature in
        "nup.queue.Queue.wait": (
            "remove",
            LANDED.format("FairQueueLimiter"),
            "upstream changed: body",
        ),
        # the new module imported under try/except ImportError: the file runs on 1.0 too
        "nup.queue.Queue.size": (
            "remove",
            LANDED.format("SlotRecycler"),
            "upstream changed: nothing",
        ),
    }
    # what the rule that would have removed them said stays next in the evidence
    second = {a.entry.target: a.drift.evidence[1] for a in result.entries}
    assert second["nup.backends.gdn.GatedDeltaMetadata"] == LANDED.format("GatedDeltaBackend")
    assert second["nup.queue.Queue.drain"] == LANDED.format("QueueDrainPolicy")
