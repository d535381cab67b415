"""Fuzz the engine's commands with mutated patches, series files and configuration files.

What must hold: no exit 3, no exit outside 0/1/2, no command over 10 s, no file
changed by a failed command (or by one that only reads). The fuzzer is
``tests/engine/fuzzing.py`` (the suite runs a few hundred inputs of it, marked ``slow``);
this script runs it at length, in-process, and prints the figures for docs/reliability.md.

Run: ``python benchmarks/fuzz_engine.py [--inputs 20000] [--seed 0] [--keep DIR]``
(mutated inputs that broke a rule are kept under ``DIR/problems``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "engine")]

from fuzzing import fuzz  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, help="scratch directory to keep (default: temporary)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="patchkeeper-fuzz-") as scratch:
        root = args.keep or Path(scratch)
        root.mkdir(parents=True, exist_ok=True)
        report = fuzz(root, args.inputs, seed=args.seed, progress=1000)
    exits = ", ".join(f"exit {code}: {count}" for code, count in sorted(report.exits.items()))
    print(f"inputs: {report.inputs} (seed {args.seed}); {exits}")
    print(f"time: {report.seconds:.0f} s; slowest command: {report.slowest:.2f} s")
    print(f"problems: {len(report.problems)}")
    for problem in report.problems:
        print(f"  {problem}")
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
