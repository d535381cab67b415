"""Evidence beside a failing patch's own lines, on the development set, against the truth.

    PYTHONPATH=src python benchmarks/failing_evidence.py [--json FILE]

For every development upgrade of the accuracy corpus (benchmarks/accuracy.py, whose fetching
and caching it reuses), the series is audited in-process, and for each patch with a truth
and a hunk that fails against the new release (whatever rule then judged it) it reads the
pin's and the new release's files: how much changed around each failing hunk (the non-blank
lines within :data:`AROUND` lines above and below, its own pre-image left out, that the new
file no longer has), in the function the hunk edits
(:func:`patchkeeper.audit.regions.hunk_region`) and in the whole file, and whether a line the
new release's changelogs have and the pin's do not names a word of a failing hunk's function
header or the file's stem. It prints per evidence how many upstreamed, ported and carried
patches show it, and how many of the patches the audit now tells *port*
(docs/benchmarks.md, "Failing patches: evidence beside the patch's own lines"). The test set
is never read.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import accuracy

from patchkeeper.audit.regions import hunk_region
from patchkeeper.audit.release import pin_tree
from patchkeeper.audit.series_verdicts import judge_series
from patchkeeper.config import load_config
from patchkeeper.series.engine import Workspace
from patchkeeper.series.load import load_series_tolerant
from patchkeeper.trees.tree import spec_tree
from patchkeeper.upstream.treesearch import TreeSearch

#: Lines above and below a failing hunk read as the code around it.
AROUND = 15
#: A word of a function header: four characters or more.
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
#: Words of function headers left out: keywords, types and the commonest parameter names.
COMMON = frozenset(
    [
        "self",
        "None",
        "True",
        "False",
        "return",
        "static",
        "const",
        "void",
        "char",
        "struct",
        "include",
        "define",
        "endif",
        "ifdef",
        "ifndef",
        "else",
        "elif",
        "import",
        "from",
        "class",
        "unsigned",
        "while",
        "break",
        "case",
        "default",
        "print",
        "test",
        "tests",
        "file",
        "data",
        "name",
        "value",
        "type",
        "result",
        "list",
        "dict",
        "this",
        "with",
        "that",
        "string",
        "error",
        "args",
        "kwargs",
        "path",
        "size",
        "index",
        "line",
    ]
)
#: An identifier: an underscore inside, a camelCase capital, or 10 characters.
CAMEL = re.compile(r"[a-z][A-Z]")


def _norm(line: bytes) -> bytes:
    return b" ".join(line.split())


def _identifier(name: str) -> bool:
    return "_" in name.strip("_") or bool(CAMEL.search(name)) or len(name) >= 10


def _changed(lines: list[bytes], new: set[bytes]) -> tuple[int, int]:
    kept = [line for line in lines if len(line) > 3]
    return sum(1 for line in kept if line not in new), len(kept)


def audit_upgrade(upgrade: accuracy.Upgrade) -> list[dict[str, Any]]:
    """The failing patches with a truth of one upgrade, each with its evidence."""
    debian = accuracy.fetch_series(upgrade.source, upgrade.suite)
    with tempfile.TemporaryDirectory() as scratch:
        downstream = accuracy.make_downstream(upgrade, debian, Path(scratch) / "d")
        config = load_config(downstream / "patchkeeper.toml")
        pristine = None
        to = f"{upgrade.upstream}=={upgrade.to}"
        if upgrade.trees == accuracy.ORIG_TREES:
            assert upgrade.pin_orig is not None and upgrade.to_orig is not None
            pristine = str(accuracy.fetch_orig(upgrade.pin_orig, upgrade.suite))
            to = str(accuracy.fetch_orig(upgrade.to_orig, upgrade.suite))
        _series, patches, _unreadable = load_series_tolerant(config)
        tree = spec_tree(to, config, "the new release")
        old, _note = pin_tree(config, tree, pristine, patches)
        new = TreeSearch(tree.base, tree.label)
        if old is None:
            return []
        pin = TreeSearch(old.base, old.label)
        verdicts = judge_series(Workspace(tree.reader()), patches, new, pin, tree.version)
        old_lines = {
            ln.strip() for text in pin.changelog_text().values() for ln in text.splitlines()
        }
        fresh = [
            line
            for text in new.changelog_text().values()
            for line in text.splitlines()
            if line.strip() and line.strip() not in old_lines
        ]
        fresh_words = {word for line in fresh for word in WORD.findall(line)}
        fresh_text = "\n".join(fresh)
        by_name = {patch.name: patch for patch in patches}
        out = []
        for verdict in verdicts:
            truth = upgrade.truths.get(verdict.name)
            failing = [h for h in verdict.hunks if h.status == "fails"]
            if truth is None or not failing:
                continue
            hunks = {
                (d.path, h.line_no): (d, h) for d in by_name[verdict.name].files for h in d.hunks
            }
            rows, names, files = [], set(), set()
            for status in failing:
                found = hunks.get((status.path, status.patch_line))
                if found is None:
                    continue
                diff, hunk = found
                path = diff.old_path or diff.path
                files.add(path)
                names.update(w for w in WORD.findall(hunk.section) if w not in COMMON)
                before, after = pin.state(path), new.state(path)
                if before is None or after is None:
                    rows.append({"path": path, "missing": True})
                    continue
                kept = {_norm(line) for line in after.lines}
                start = hunk.old_start - 1
                own = {_norm(line) for line in hunk.pre_image}
                around = [
                    _norm(line)
                    for line in [
                        *before.lines[max(0, start - AROUND) : start],
                        *before.lines[start + hunk.old_len : start + hunk.old_len + AROUND],
                    ]
                ]
                row: dict[str, Any] = {
                    "path": path,
                    "around": _changed([line for line in around if line not in own], kept),
                    "file": _changed([_norm(line) for line in before.lines], kept),
                }
                region = hunk_region(path, hunk, before.lines, after.lines)
                if region is not None:
                    row["function"] = (region.changed, region.size, region.gone)
                    names.add(region.name)
                rows.append(row)
            stems = {Path(f).stem for f in files if len(Path(f).stem) >= 4}
            out.append(
                {
                    "upgrade": f"{upgrade.source} {upgrade.pin} -> {upgrade.to}",
                    "name": verdict.name,
                    "truth": truth.truth,
                    "action": verdict.action,
                    "rule": verdict.rule,
                    "rows": rows,
                    "named": sorted(n for n in names if n in fresh_words),
                    "file_named": sorted(
                        s for s in stems if re.search(rf"\b{re.escape(s)}\b", fresh_text)
                    ),
                }
            )
    return out


def _half(pair: tuple[int, int]) -> bool:
    return pair[1] >= 4 and pair[0] >= pair[1] / 2


#: Each evidence, as a test of one patch's record.
EVIDENCE: dict[str, Callable[[dict[str, Any]], bool]] = {
    "around: half or more changed": lambda p: any(
        _half(r["around"]) for r in p["rows"] if "around" in r
    ),
    "around: half or more changed, every hunk": lambda p: (
        bool(p["rows"]) and all("around" in r and _half(r["around"]) for r in p["rows"])
    ),
    "function: half or more changed": lambda p: any(
        r["function"][2] or r["function"][0] >= r["function"][1] / 2
        for r in p["rows"]
        if "function" in r
    ),
    "function: gone": lambda p: any(r["function"][2] for r in p["rows"] if "function" in r),
    "file: half or more changed": lambda p: any(
        r["file"][1] and r["file"][0] >= r["file"][1] / 2 for r in p["rows"] if "file" in r
    ),
    "changelog names the file": lambda p: bool(p["file_named"]),
    "changelog names a word of the function header": lambda p: bool(p["named"]),
    "changelog names an identifier of it": lambda p: any(_identifier(n) for n in p["named"]),
}


def table(records: list[dict[str, Any]]) -> list[str]:
    """The Markdown table: per evidence, the patches of each truth showing it."""
    truths = Counter(r["truth"] for r in records)
    ports = sum(1 for r in records if r["action"] == "port")
    order = ("upstreamed", "port", "carried")
    head = " | ".join(f"{t} ({truths[t]})" for t in order)
    lines = [f"| evidence | {head} | now *port* ({ports}) |", "| --- | --- | --- | --- | --- |"]
    for name, test in EVIDENCE.items():
        shown = [r for r in records if test(r)]
        counts = Counter(r["truth"] for r in shown)
        now = sum(1 for r in shown if r["action"] == "port")
        lines.append(f"| {name} | {' | '.join(str(counts[t]) for t in order)} | {now} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Audit the development set's upgrades and print the evidence table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write every failing patch's record here")
    args = parser.parse_args(argv)
    upgrades, _warnings = accuracy.load_all(None, ["development"])
    records: list[dict[str, Any]] = []
    for upgrade in upgrades:
        try:
            records += audit_upgrade(upgrade)
        except Exception as error:  # an upgrade that cannot be had is named, not fatal
            print(f"{upgrade.source}: {error}", file=sys.stderr)
    if args.json is not None:
        args.json.write_text(json.dumps(records, indent=1) + "\n", encoding="utf-8")
    print("\n".join(table(records)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
