"""A method the plugin sets on an upstream class that the old release defines without it,
and the new release defines with it (the plugin's own method, which upstream then wrote
too): the old release has no definition of the target to compare, so the audit's facts
say so. They compared the whole old class with the new method instead ("changed: kind:
ClassDef -> FunctionDef, body", and a diff of the class's every line), as on a published
Kunlun plugin whose ``EagleProposer.prepare_next_token_ids_padded`` arrived upstream.

The decision is the one the rules give a target new upstream (*update*, or *remove* when
the replacement equals upstream's new definition); only the facts change.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

OLD = """class Proposer:
    def propose(self, tokens):
        return tokens[:1]

    def load_model(self, model):
        self.model = model
"""
NEW = """class Proposer:
    def propose(self, tokens):
        return tokens[:1]

    def load_model(self, model):
        self.model = model

    def prepare_padded(self, tokens, pad):
        return tokens + [pad] * 2

    def discard(self, tokens):
        return tokens[1:]
"""
PATCH = """import fup.proposer


def prepare_padded(self, tokens, pad):
    return tokens + [pad] * 4


def discard(self, tokens):
    return tokens[1:]


fup.proposer.Proposer.prepare_padded = prepare_padded
fup.proposer.Proposer.discard = discard
"""


@pytest.fixture
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    releases = {"1.0": {"fup/proposer.py": OLD}, "2.0": {"fup/proposer.py": NEW}}
    plugin = {
        "fdev/patch/__init__.py": "from fdev.patch import patch_proposer  # noqa: F401\n",
        "fdev/patch/patch_proposer.py": PATCH,
    }
    return write_trees(tmp_path, monkeypatch, releases, "fdev", plugin)


def test_a_method_new_upstream_is_not_compared_with_its_class(trees: Path) -> None:
    result = audit_trees(trees, "fdev")
    facts = {
        a.entry.target: (
            a.drift.decision,
            a.drift.evidence,
            a.drift.upstream_changes,
            a.drift.upstream_diff,
        )
        for a in result.entries
    }
    assert facts == {
        "fup.proposer.Proposer.prepare_padded": (
            "update",
            (
                "fup.proposer.Proposer.prepare_padded is new upstream at "
                "fup.proposer.Proposer.prepare_padded (the old release did not have it): the "
                "patch now replaces upstream's own definition; review it against upstream's "
                "(remove it if it was a backport of that change)",
                "fup.proposer.Proposer.prepare_padded is not in the old upstream "
                "(fup.proposer.Proposer has no prepare_padded) but is found in the new one at "
                "fup.proposer.Proposer.prepare_padded",
            ),
            (),
            "",
        ),
        "fup.proposer.Proposer.discard": (
            "remove",
            ("the new upstream implementation equals the replacement",),
            (),
            "",
        ),
    }


def test_port_says_there_is_no_old_definition_to_merge_from(trees: Path, cli) -> None:
    # Once the old span is no longer the class, the port must not call the plugin's own
    # function "not a function or class of the plugin".
    run = cli(
        "runtime",
        "port",
        "--from",
        str(trees / "fup-1.0"),
        "--to",
        str(trees / "fup-2.0"),
        "--json",
        cwd=trees / "fdev",
    )
    assert run.code == 1
    entries = {e["target"]: (e["action"], e["detail"]) for e in json.loads(run.out)["entries"]}
    assert entries["fup.proposer.Proposer.prepare_padded"] == (
        "by hand",
        "fup.proposer.Proposer.prepare_padded is new upstream (fup.proposer.Proposer at 1.0 "
        "has no prepare_padded): there is no old definition to merge from; read the "
        "replacement at fdev/patch/patch_proposer.py:4 against upstream's definition at 2.0 "
        "by hand",
    )
