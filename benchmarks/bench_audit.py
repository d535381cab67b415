"""Benchmark: ``audit --to`` on 1,000 generated patches over vLLM, beside a GNU patch loop.

Target: 1,000 generated patches over vLLM 0.27.1
(``benchmarks/generate_series.py``, seed 2718) audited against vLLM 0.28.0 in under 3 s, with
both trees on disk; in the same run, GNU ``patch --dry-run --fuzz 0`` is run once per patch
against the new tree (what a shell loop over the series would do to find the patches that no
longer apply; it does not carry earlier patches forward, so its failures differ slightly).

Printed: the console script's wall-clock time in a subprocess (start-up included, best of
``--repeat``), the same run in-process with CPU time and where it goes (the tree's line index,
the hunks that do not apply, the added-line counts), the verdict counts, and the GNU loop's
time and failures. ``--write`` writes ``benchmarks/results/audit.md``.

Run: ``python benchmarks/bench_audit.py [--patches 1000] [--repeat 3] [--write]``
(the sdists come from the corpus cache: ``python benchmarks/fetch_corpus.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "port"), str(ROOT / "benchmarks")]

from generate_series import generate  # noqa: E402
from vllm_series import write_series  # noqa: E402

from corpus import sdist_tree  # noqa: E402

SCRIPT = shutil.which("patchkeeper", path=str(Path(sys.executable).parent)) or "patchkeeper"
RESULTS = ROOT / "benchmarks" / "results" / "audit.md"
ORDER = ("clean", "offset", "upstreamed", "partially upstreamed", "conflict", "target gone",
         "blocked")  # fmt: skip


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def audit_subprocess(
    downstream: Path, new: Path, old: Path, repeat: int
) -> tuple[float, float, dict]:
    """Best wall-clock and best CPU time (user + system) of ``patchkeeper audit --json``, and
    its JSON result."""
    best = best_cpu = float("inf")
    data: dict = {}
    for _ in range(repeat):
        start, cpu = time.perf_counter(), _children_cpu()
        run = subprocess.run(
            [SCRIPT, "audit", "--json", "--to", str(new), "--pristine", str(old)],
            cwd=downstream,
            capture_output=True,
            text=True,
            check=False,
        )
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, _children_cpu() - cpu)
        if run.returncode not in (0, 1):
            raise SystemExit(f"audit failed ({run.returncode}): {run.stderr}")
        data = json.loads(run.stdout)
    return best, best_cpu, data


def audit_in_process(downstream: Path, new: Path, old: Path) -> dict[str, float]:
    """One in-process audit with timers around its parts: seconds of CPU per part."""
    from patchkeeper.audit import release, verdicts
    from patchkeeper.audit.release import AuditRequest
    from patchkeeper.config import load_config
    from patchkeeper.upstream import treeindex

    spent: dict[str, float] = {}

    def timed(owner: object, name: str, label: str) -> None:
        original = getattr(owner, name)

        def wrapper(*args: object, **kwargs: object) -> object:
            start = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.process_time() - start

        setattr(owner, name, wrapper)

    labels = (
        "reading and parsing the series",
        "judging the patches that do not apply",
        "of which: added lines counted against both pins",
        "of which: the new tree's line index (one pass)",
    )
    timed(release, "load_series_tolerant", labels[0])
    timed(verdicts, "_judge_failing", labels[1])
    timed(verdicts, "file_shares", labels[2])
    timed(treeindex.LineIndex, "_scan", labels[3])
    config = load_config(start=downstream)
    wall, cpu = time.perf_counter(), time.process_time()
    release.audit_release(config, AuditRequest(str(new), pristine=str(old)))
    out = {"the whole audit, in-process: CPU time": time.process_time() - cpu}
    out["the whole audit, in-process: wall clock"] = time.perf_counter() - wall
    out.update((f"({label}, CPU)", spent.get(label, 0.0)) for label in labels)
    return out


def gnu_loop(downstream: Path, new: Path) -> tuple[float, int]:
    """GNU ``patch -p1 --dry-run --fuzz 0`` once per patch on the new tree: (seconds, fails)."""
    patches = downstream / "patches"
    names = (patches / "series").read_text().split()
    start = time.perf_counter()
    failures = 0
    for name in names:
        run = subprocess.run(
            ["patch", "-p1", "--dry-run", "--fuzz", "0", "-s", "-f", "-d", str(new / "vllm"),
             "-i", str(patches / name)],
            capture_output=True,
            check=False,
        )  # fmt: skip
        failures += run.returncode != 0
    return time.perf_counter() - start, failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--patches", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2718)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", action="store_true", help=f"write {RESULTS.relative_to(ROOT)}")
    args = parser.parse_args()

    old = sdist_tree("vllm==0.27.1")
    new = sdist_tree("vllm==0.28.0")
    with tempfile.TemporaryDirectory(prefix="bench-audit-") as tmp:
        topics = Path(tmp) / "topics"
        count = len(write_series(old, topics))
        seed_wall, seed_cpu, seed_data = audit_subprocess(topics, new, old, args.repeat)
        downstream = Path(tmp) / "downstream"
        generate(old, downstream, args.patches, args.seed)
        wall, cpu, data = audit_subprocess(downstream, new, old, args.repeat)
        parts = audit_in_process(downstream, new, old)
        gnu_seconds, gnu_failures = gnu_loop(downstream, new)
    seed_verdicts = Counter(v["verdict"] for v in seed_data["verdicts"])
    counts = Counter(v["verdict"] for v in data["verdicts"])
    not_applying = sum(counts[v] for v in ORDER if v not in ("clean", "offset"))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    seed_text = ", ".join(f"{seed_verdicts[v]} {v}" for v in ORDER if seed_verdicts.get(v))
    rows = [
        (f"the {count}-patch vLLM-fork series over vLLM 0.27.1 (`tests/port/vllm_series.py`: "
         f"{seed_text}), `audit --to vllm-0.28.0` (console script, best of {args.repeat})",
         f"{seed_wall:.2f} s ({seed_cpu:.2f} s CPU)", "< 1 s"),
        (f"`patchkeeper audit --to vllm-0.28.0 --pristine vllm-0.27.1`, {args.patches} patches "
         "(console script, start-up included, best of "
         f"{args.repeat})", f"{wall:.2f} s ({cpu:.2f} s CPU)", "< 3 s"),
        *((name, f"{seconds:.2f} s", "") for name, seconds in parts.items()),
        (f"GNU `patch -p1 --dry-run --fuzz 0`, once per patch ({gnu_failures} fail)",
         f"{gnu_seconds:.2f} s", ""),
    ]  # fmt: skip
    verdicts = ", ".join(f"{counts[v]} {v}" for v in ORDER if counts.get(v))
    lines = [
        "| what | figure | target |",
        "|---|---|---|",
        *(f"| {a} | {b} | {c} |" for a, b, c in rows),
    ]
    print("\n".join(lines))
    print(f"\nverdicts: {verdicts} ({not_applying} do not apply as they are)")
    print(f"load average during the run: {load:.1f} on {os.cpu_count()} cores")
    if args.write:
        write(lines, verdicts, load, args)


def write(table: list[str], verdicts: str, load: float, args: argparse.Namespace) -> None:
    """Write ``benchmarks/results/audit.md``."""
    text = f"""# Audit benchmark

Command: `python benchmarks/bench_audit.py --patches {args.patches} --repeat {args.repeat}
--write`. {args.patches} patches generated over vLLM 0.27.1 by
`benchmarks/generate_series.py` (seed {args.seed}: 1-3 hunks per patch, an inserted block, a
changed or a deleted line, a new module in about 3 % of them), audited against vLLM 0.28.0
with the old pin's tree given (`--pristine`), both sdists unpacked in the corpus cache.
Python {platform.python_version()}; the machine's load average during the run was
{load:.1f} on {os.cpu_count()} cores (shared with other work), so the wall-clock figures are
upper bounds; the CPU time of the process is the steadier figure.

{chr(10).join(table)}

Verdicts: {verdicts}.

The GNU loop answers a smaller question (does each patch apply to the new tree on its own)
with one process per patch; the audit carries every applying patch forward, judges each one
that does not (already upstream, written differently, moved, blocked) and reads the new
tree once for all of them: the line index registers every substantive line of the series,
then one pass over the tree's `.py` files (51 MB for vLLM 0.28.0) keeps, per registered line,
the files that hold it (`src/patchkeeper/treeindex.py`).
"""
    RESULTS.write_text(text)
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
