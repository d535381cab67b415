"""How ``benchmarks/runtime_facts.py`` puts a runtime entry in a cell by the audit's facts,
and the table it prints (no network)."""

from __future__ import annotations

from dataclasses import replace

from benchmark_scripts import load
from patchkeeper.runtime.judge.drift import Drift
from patchkeeper.runtime.judge.results import AuditedEntry
from patchkeeper.runtime.lookup.resolve import Resolution
from patchkeeper.runtime.model import (
    Activation,
    ActivationStatus,
    Condition,
    Mechanism,
    PatchEntry,
)

facts = load("runtime_facts")

ENTRY = PatchEntry(
    file="plug/p.py", line=3, module="plug.p", scope="<module>", target="vllm.a.f",
    mechanism=Mechanism.ASSIGNMENT,
)  # fmt: skip


def _audited(*conditions: Condition, status=ActivationStatus.CONDITIONAL, changes=()):
    activation = Activation(status, conditions=conditions)
    return AuditedEntry(
        entry=replace(ENTRY, activation=activation),
        old=Resolution("vllm.a.f", "found"),
        new=Resolution("vllm.a.f", "found"),
        drift=Drift("retain", (), upstream_changes=changes),
    )


def test_the_strongest_condition_names_the_gate() -> None:
    switch = Condition("if", "_cascade_gate_env()", "plug/p.py", 2)
    probe = Condition("if", "not hasattr(Request, 'x')", "plug/p.py", 2)
    release = Condition("version", "vllm_version_is('0.28.0')", "plug/p.py", 1)
    assert facts.gate_fact(_audited(switch)) == "switch"
    assert facts.gate_fact(_audited(switch, probe)) == "probe"
    assert facts.gate_fact(_audited(probe, release)) == "release"
    assert facts.gate_fact(_audited(status=ActivationStatus.ACTIVE)) == "no"


def test_target_and_import_facts() -> None:
    assert facts.target_fact(_audited(changes=("body",))) == "changed"
    assert facts.target_fact(_audited()) == "unchanged"
    never = _audited(status=ActivationStatus.NEVER)
    assert facts.imported_fact(never) == "never"
    assert facts.imported_fact(_audited()) == "yes"


def test_the_table_counts_what_the_maintainers_did_per_cell() -> None:
    cell = ("unchanged", "yes", "yes", "switch")
    rows = [
        (True, cell, "retain", "retain"),
        (True, cell, "retain", "retain"),
        (True, cell, "remove", "retain"),
        (True, ("changed", "yes", "yes", "no"), "update", "update"),
    ]
    assert facts.table(rows, only_disagreements=True).splitlines()[2:] == [
        "| unchanged | yes | yes | switch | 3 | 2 / 0 / 0 / 1 | 2 | 1 remove told retain |"
    ]
