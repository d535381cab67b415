"""Benchmark: ``runtime inventory`` + ``runtime audit`` of vllm-ascend 0.30.0rc2 from vLLM
0.30.0 to 0.32.0 (targets: under 3 s cold, under 0.5 s warm, under 300 MiB).

Run: ``python benchmarks/bench_runtime.py [--runs 3]`` (downloads the three sdists once into
the corpus cache). Each command runs as the console would run it, in a fresh process
(``python -m patchkeeper runtime ... --json``, output discarded), with
``PATCHKEEPER_CACHE`` pointing at a private directory:

- *cold*: the directory is empty before the inventory (no parsed-tree cache at all);
- *warm*: the same pair again, with the caches the previous pair left.

The upstream trees and the plugin are given as directories, so no command downloads. Prints
per run the seconds of each command and their sum, then the medians, and the largest
resident set of any child (``ru_maxrss`` of that child from ``os.wait4``). CPU seconds (user
+ system, also from ``os.wait4``) are printed beside wall seconds: the 2 cores are shared,
and under load the wall time says more about the neighbours than about the code.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
PLUGIN = "vllm-ascend==0.30.0rc2"
OLD, NEW = "vllm==0.30.0", "vllm==0.32.0"
WARM_UP = (
    "import patchkeeper.main, patchkeeper.render.runtime, "
    "patchkeeper.runtime.judge.runtime_audit, patchkeeper.runtime.inventory.runtime_inventory"
)


def trees() -> tuple[Path, Path, Path]:
    """The unpacked sdists (plugin, old upstream, new upstream), fetched once."""
    from patchkeeper.upstream.fetch import fetch_requirement

    return tuple(Path(fetch_requirement(r, kind="sdist").root) for r in (PLUGIN, OLD, NEW))


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int]:
    """Run ``argv``; return (wall seconds, CPU seconds, peak RSS in KiB) of that child."""
    start = time.perf_counter()
    process = subprocess.Popen(
        argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        message = process.stderr.read().decode() if process.stderr else ""
        raise SystemExit(f"{' '.join(argv)} exited {code}: {message}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    plugin, old, new = trees()
    base = [sys.executable, "-m", "patchkeeper", "runtime"]
    where = ["--plugin", str(plugin), "--package", "vllm_ascend", "--json"]
    commands = {
        "inventory": [*base, "inventory", *where],
        "audit": [*base, "audit", "--from", str(old), "--to", str(new), *where],
    }
    figures: dict[str, list[tuple[float, float]]] = {"cold": [], "warm": []}
    peak = 0
    with tempfile.TemporaryDirectory() as scratch:
        cache = Path(scratch) / "cache"
        # The commands run in a downstream: a minimal configuration naming the upstream
        # (``runtime audit`` keeps its evidence there, as a user's downstream would).
        (Path(scratch) / "patchkeeper.toml").write_text('upstream = "vllm"\n', encoding="utf-8")
        env = dict(os.environ, PATCHKEEPER_CACHE=str(cache))
        # As installed: the modules' bytecode is written once (pip does it at install),
        # not compiled again by every process as PYTHONDONTWRITEBYTECODE would have it.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run([sys.executable, "-c", WARM_UP], env=env, check=True)
        for run in range(1, args.runs + 1):
            shutil.rmtree(cache, ignore_errors=True)
            for label in ("cold", "warm"):
                parts = []
                for name, argv in commands.items():
                    seconds, cpu, rss = timed(argv, env, Path(scratch))
                    peak = max(peak, rss)
                    parts.append(f"{name} {seconds:.2f} s ({cpu:.2f} s CPU, {rss / 1024:.0f} MiB)")
                    figures[label].append((seconds, cpu))
                wall = sum(f[0] for f in figures[label][-2:])
                cpu = sum(f[1] for f in figures[label][-2:])
                summary = f"total {wall:.2f} s ({cpu:.2f} s CPU)"
                print(f"run {run} {label}: {', '.join(parts)}; {summary}")
    for label, values in figures.items():
        inventory, audit = values[0::2], values[1::2]
        median = statistics.median
        print(
            f"{label}: median inventory {median(v[0] for v in inventory):.2f} s, "
            f"audit {median(v[0] for v in audit):.2f} s, "
            f"inventory + audit {median(a[0] + b[0] for a, b in zip(inventory, audit)):.2f} s "
            f"({median(a[1] + b[1] for a, b in zip(inventory, audit)):.2f} s CPU)"
        )
    print(f"peak RSS of any command: {peak / 1024:.0f} MiB")
    print(f"load average at the end: {os.getloadavg()[0]:.2f} (2 cores, shared)")


if __name__ == "__main__":
    main()
