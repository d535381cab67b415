"""The result of ``runtime audit``: a decision per entry with its evidence, the stale
bindings, the counts and the findings (plain data: rendered, kept as evidence, pickled by
the audit's memory)."""

from __future__ import annotations

from dataclasses import dataclass, field

from patchkeeper.errors import Finding
from patchkeeper.runtime.inventory.unparsed import unparsed
from patchkeeper.runtime.judge.drift import RETAIN, Drift
from patchkeeper.runtime.judge.stale import StaleBinding
from patchkeeper.runtime.lookup.resolve import Resolution
from patchkeeper.runtime.model import Inventory, PatchEntry
from patchkeeper.runtime.syntax.gates import Gate


@dataclass(frozen=True)
class AuditedEntry:
    """One entry with its resolution in both trees, its :class:`Drift` (the decision with
    its evidence) and its ``facts`` apart from the decision
    (:func:`patchkeeper.runtime.judge.facts.entry_facts`)."""

    entry: PatchEntry
    old: Resolution
    new: Resolution
    drift: Drift
    facts: tuple[str, ...] = ()


@dataclass(frozen=True)
class RuntimeAudit:
    """The result of ``runtime audit``: the two upstreams as given (``old``, ``new``: a
    directory, a release file or a requirement) and as named in a report (``old_release``,
    ``new_release``: the version, else ``directory ROOT``, as ``runtime port`` names them),
    per-entry decisions, stale bindings, counts, and the inventory's own findings."""

    old: str
    new: str
    inventory: Inventory
    entries: tuple[AuditedEntry, ...]
    stale: tuple[StaleBinding, ...]
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    findings: tuple[Finding, ...] = ()
    gates: tuple[Gate, ...] = ()
    old_release: str = ""
    new_release: str = ""

    @property
    def exit_code(self) -> int:
        """1 when an entry needs action (not *retain*/*not-audited*), a stale binding is
        unpatched, a finding exists, or a patch file could not be read (not valid Python:
        its entries are not audited); 0 otherwise."""
        action = any(a.drift.decision not in (RETAIN, "not-audited") for a in self.entries)
        findings = any(f.code != "version-gate" for f in self.findings)
        findings = findings or bool(unparsed(self.inventory))
        return 1 if action or findings or any(not s.patched_by for s in self.stale) else 0
