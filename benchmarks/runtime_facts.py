"""Benchmark: the development set's entries tabulated by the facts the runtime audit reports.

    python benchmarks/runtime_facts.py [--disagreements]

For every pair of the development plugins of ``benchmarks/runtime_history/plugins.toml``
(the test set's plugins are skipped before any of their files is read), each scored entry
is put in a cell by four facts of the audit (``facts`` in its JSON):

- *target upstream*: changed or unchanged between the two vLLM releases, outside the
  audited upstream (another library, or the host plugin a plugin of a plugin patches),
  removed or moved by the new release;
- *replacement differs*: whether the audit shows a diff from the old upstream definition
  to the replacement (a copy with edits, a wrapper, a new function) or none (an assignment,
  a registry write, a copy left as it was);
- *imported*: whether the plugin's loading reaches it (``never``: never imported, or in a
  function no reached scope calls);
- *gated*: the kind of condition on the way: a test of upstream's release, a feature probe
  or import guard (``hasattr``, ``find_spec``, ``except ImportError``), another run-time
  switch (an environment variable, a configuration value, the hardware), or none.

Per cell it prints what the maintainers did (kept / updated / migrated / removed), how many
the audit agrees with and its disagreements, once for the pairs with a vLLM upgrade and once
for those on one release. ``--disagreements`` prints only the cells holding one. The audit's
results are read from the corpus cache that ``runtime_history.py`` fills.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

import tomllib

sys.path.insert(0, str(Path(__file__).resolve().parent))

import runtime_history as history

from patchkeeper.runtime.judge import runtime_audit as audit
from patchkeeper.runtime.model import ActivationStatus

ACTIONS = ("retain", "update", "migrate", "remove")


def target_fact(audited) -> str:
    """Where the target is, and whether upstream changed it."""
    if "outside" in (audited.old.status, audited.new.status):
        return "outside"
    if audited.new.status != "found":
        return str(audited.new.status)
    return "changed" if audited.drift.upstream_changes else "unchanged"


def gate_fact(audited) -> str:
    """The strongest kind of condition on the way: ``release``, ``probe``, ``switch`` or
    ``no``."""
    activation = audited.entry.activation
    kinds = set()
    for condition in activation.conditions if activation else ():
        text = condition.text
        if condition.kind == "version" or "version" in text.lower():
            kinds.add("release")
        elif "hasattr" in text or "find_spec" in text or condition.kind == "try-import":
            kinds.add("probe")
        else:
            kinds.add("switch")
    return next((k for k in ("release", "probe", "switch") if k in kinds), "no")


def imported_fact(audited) -> str:
    """``yes``, ``never`` or ``untraced``."""
    activation = audited.entry.activation
    if activation is None:
        return "untraced"
    return "never" if activation.status is ActivationStatus.NEVER else "yes"


def rows() -> list[tuple[bool, tuple[str, str, str, str], str, str]]:
    """``(upgrade, facts, truth, suggested)`` for every scored development entry."""
    tests = history.test_set()
    files = history.truth_files(history.TRUTHS)
    for name in sorted(history.corpus()):
        if name != "vllm-ascend" and name not in tests:
            files += history.truth_files(history.PLUGIN_TRUTHS / name)
    out = []
    for truth_file in files:
        truth = tomllib.loads(truth_file.read_text(encoding="utf-8"))
        pair = truth["pair"]
        plugin_name, package, directory = history.plugin_of(pair)
        if plugin_name in tests:
            continue
        result = audit.audit_runtime(
            None,
            old=str(history.tree(f"vllm=={pair['vllm_old']}")),
            new=str(history.tree(f"vllm=={pair['vllm_new']}")),
            plugin=history.tree(f"{plugin_name}=={pair['plugin_old']}"),
            package=package,
            patch_directory=directory,
        )
        expected = {row["entry"]: row["truth"] for row in truth["entry"]}
        seen: Counter = Counter()
        for audited in result.entries:
            name = history.entry_id(audited.entry, result.inventory.patch_directory, seen)
            if name not in expected:
                continue
            said = history.AS_RETAIN.get(audited.drift.decision, audited.drift.decision)
            differs = "yes" if audited.drift.downstream_diff.strip() else "no"
            facts = (target_fact(audited), differs, imported_fact(audited), gate_fact(audited))
            out.append((pair["vllm_old"] != pair["vllm_new"], facts, expected[name], said))
    return out


def table(chosen: list, only_disagreements: bool) -> str:
    """One Markdown table of the cells of ``chosen``, largest first."""
    cells: dict[tuple, Counter] = defaultdict(Counter)
    for _upgrade, facts, truth, said in chosen:
        cells[facts][(truth, said)] += 1
    lines = [
        "| target upstream | replacement differs | imported | gated | rows "
        "| kept / updated / migrated / removed | audit agrees | disagreements |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for facts in sorted(cells, key=lambda f: (-sum(cells[f].values()), f)):
        counts = cells[facts]
        wrong = sorted((k, v) for k, v in counts.items() if k[0] != k[1])
        if only_disagreements and not wrong:
            continue
        done = Counter()
        for (truth, _said), n in counts.items():
            done[truth] += n
        agree = sum(n for (truth, said), n in counts.items() if truth == said)
        told = ", ".join(f"{n} {t} told {s}" for (t, s), n in wrong) or "-"
        lines.append(
            f"| {' | '.join(facts)} | {sum(counts.values())} "
            f"| {' / '.join(str(done[a]) for a in ACTIONS)} | {agree} | {told} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--disagreements", action="store_true", help="only the cells holding a disagreement"
    )
    args = parser.parse_args(argv)
    found = rows()
    for upgrade, title in ((True, "pairs with a vLLM upgrade"), (False, "pairs on one release")):
        chosen = [r for r in found if r[0] == upgrade]
        print(f"Development set, {title}: {len(chosen)} entries\n")
        print(table(chosen, args.disagreements))
    return 0


if __name__ == "__main__":
    sys.exit(main())
