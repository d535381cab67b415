"""Does a verdict rule transfer? Its score on two halves of the development set.

    python benchmarks/accuracy.py --jobs 2 --json FILE     # every development patch's result
    python benchmarks/halves.py FILE [--markdown OUT]

The test set tells whether rules written from the development set hold on projects they were
not written from, but it may be read only by its totals, and only once per change. This
estimates the same inside the development set: its projects are split into two halves by
project, and each rule's outcomes (right, look, wrong, false retire, as ``accuracy.py``
scores them) are counted per half. A rule right on one half and wrong on the other is fitted
to the projects it was written from.

The split is fixed and written down here: the development projects of
``benchmarks/accuracy/split.toml`` sorted by ``sha256(f"{SEED}:{project}")`` (hex, as an
integer; :data:`SEED`), the first half of that order (rounded down) is half ``A``, the rest
half ``B``. The projects of the hand-written corpus are development projects like any other
here; only the mined development upgrades are counted (the JSON holds no test-set rows).

Standard library only; reads the JSON ``accuracy.py --json`` writes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from accuracy import MINED, RIGHT_ACTIONS, SPLIT, canonical, load_upgrade, tomllib

#: The seed of the split into halves (not the seed of the development/test split).
SEED = 20261207
#: The halves' names.
HALVES = ("A", "B")
#: The outcomes counted, as ``accuracy.py`` counts them.
OUTCOMES = ("right", "look", "wrong", "false retire")


def digest(project: str, seed: int = SEED) -> int:
    """The project's place in the split's order."""
    return int(hashlib.sha256(f"{seed}:{project}".encode()).hexdigest(), 16)


def halves(projects: list[str], seed: int = SEED) -> dict[str, str]:
    """``{project: "A" | "B"}``: ``projects`` (canonical names) sorted by :func:`digest`,
    the first half (rounded down) ``A``, the rest ``B``.

    >>> sorted(halves(["flask", "numpy", "pip"]).values())
    ['A', 'B', 'B']
    """
    order = sorted(set(projects), key=lambda p: digest(p, seed))
    cut = len(order) // 2
    return {project: HALVES[0] if i < cut else HALVES[1] for i, project in enumerate(order)}


def development_projects(split: Path = SPLIT) -> list[str]:
    """The development set's projects (canonical names) of the committed split file."""
    data = tomllib.loads(split.read_text(encoding="utf-8"))
    return [canonical(p) for p in data["development"]["projects"]]


def projects_by_upgrade(mined: Path = MINED) -> dict[tuple[str, str, str], str]:
    """``{(source, pin, to): project}`` of the mined upgrade files."""
    out = {}
    for path in sorted(mined.glob("*.toml")):
        upgrade = load_upgrade(path)
        out[(upgrade.source, upgrade.pin, upgrade.to)] = canonical(upgrade.upstream)
    return out


def outcome(truth: str, action: str | None) -> tuple[str, ...]:
    """A mined patch's outcomes: right, look or wrong, and false retire besides wrong for a
    *retire* of a patch upstream does not have (as ``accuracy.py`` counts them).

    >>> outcome("carried", "carry"), outcome("carried", "retire"), outcome("port", "look")
    (('right',), ('wrong', 'false retire'), ('look',))
    """
    if action in RIGHT_ACTIONS["mined"][truth]:
        return ("right",)
    if action == "look":
        return ("look",)
    return ("wrong", "false retire") if action == "retire" else ("wrong",)


def count(
    report: dict[str, Any], half_of: dict[str, str], project_of: dict[tuple[str, str, str], str]
) -> dict[str, dict[str, Counter[str]]]:
    """``{rule: {half: outcomes}}`` of the development upgrades of ``report`` (the rule
    ``"all"`` too); a patch without truth, or of an upgrade that failed, is left out."""
    table: dict[str, dict[str, Counter[str]]] = {}
    for upgrade in report["upgrades"]:
        if upgrade["set"] != "development" or upgrade["error"]:
            continue
        project = project_of.get((upgrade["source"], upgrade["pin"], upgrade["to"]))
        half = half_of.get(project or "")
        if half is None:
            continue
        for patch in upgrade["patches"]:
            if patch["truth"] is None:
                continue
            results = outcome(patch["truth"], patch["action"])
            for rule in (patch["rule"] or "(none)", "all"):
                counts = table.setdefault(rule, {}).setdefault(half, Counter())
                counts["patches"] += 1
                counts.update(results)
    return table


def cell(counts: Counter[str]) -> str:
    """``right/look/wrong/false retire of patches``, ``-`` for none."""
    if not counts["patches"]:
        return "-"
    figures = "/".join(str(counts[o]) for o in OUTCOMES)
    return f"{figures} of {counts['patches']}"


def render(table: dict[str, dict[str, Counter[str]]], half_of: dict[str, str]) -> str:
    """The per-rule table, ``all`` first, then the halves' projects."""
    lines = [
        f"Development halves (seed {SEED}): right/look/wrong/false retire of patches.",
        "",
        "| rule | half A | half B |",
        "| --- | --- | --- |",
    ]
    for rule in ["all", *sorted(r for r in table if r != "all")]:
        cells = [cell(table[rule].get(h, Counter())) for h in HALVES]
        lines.append(f"| {rule} | " + " | ".join(cells) + " |")
    for half in HALVES:
        names = sorted(p for p, h in half_of.items() if h == half)
        lines += ["", f"Half {half} ({len(names)} projects): " + ", ".join(names) + "."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Print (or write) the per-rule table of the halves; 2 on an unreadable JSON file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", type=Path, help="the file accuracy.py --json wrote")
    parser.add_argument("--markdown", type=Path, help="write the table to this file")
    args = parser.parse_args(argv)
    try:
        report = json.loads(args.json.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        print(f"halves: {args.json}: not a report of accuracy.py --json: {error}", file=sys.stderr)
        return 2
    half_of = halves(development_projects())
    text = render(count(report, half_of, projects_by_upgrade()), half_of)
    if args.markdown is not None:
        args.markdown.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
