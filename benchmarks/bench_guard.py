"""Benchmark: the import-time cost of ``patchkeeper.guard.check`` for 250 locked targets
(target: under 20 ms, so that a plugin's import barely notices it).

    python benchmarks/bench_guard.py [--targets 250] [--runs 7]

The targets are real: the first N top-level functions and classes, file by file in sorted
order, of the vLLM 0.30.0 sdist (fetched once into the corpus cache), locked with
:func:`patchkeeper.runtime.live.lock.build_lock`. Each run is a fresh interpreter that imports
``patchkeeper.guard`` and calls ``check`` on the lock, timed inside the child with
``time.perf_counter`` (import of the guard module included, interpreter start excluded):

- *audited*: the upstream is the locked one (one read and one sha256 per file);
- *changed*: a copy of the locked files, each with one line appended, so every file is
  parsed and every definition hashed (the slow path, when upstream differs);
- *commented*: a copy with a comment line put into every locked definition (before its last
  line), so every target's text differs and its code is compared without docstrings and
  comments too (the slowest path; the guard reports none of them).

Both are measured in a bare interpreter and, for the audited case, in one that has already
imported ``hashlib``, ``json``, ``ast``, ``textwrap`` and ``warnings`` (a vLLM process has:
vLLM and torch import them before any plugin), which is the cost a plugin adds.

Prints the median and the largest of the runs for both, in milliseconds, as wall time and
as CPU time of the child (the 2 cores are shared: under load the wall time measures the
neighbours).
"""

from __future__ import annotations

import argparse
import ast
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from patchkeeper.runtime.live.lock import build_lock
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.upstream.fetch import fetch_requirement

UPSTREAM = "vllm==0.30.0"
#: At most this many targets per file, so that the lock spans many files as a plugin's does.
PER_FILE = 3
#: What a vLLM process has imported before any plugin loads (vLLM and torch import these).
PRELOADED = "import hashlib, json, ast, textwrap, warnings; "
CHILD = (
    "import time, sys; {preload}t = time.perf_counter(); c = time.process_time(); "
    "import patchkeeper.guard as g; "
    "found = g.differences(sys.argv[1], root=sys.argv[2]); "
    "print((time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000, len(found))"
)


def targets(root: Path, count: int) -> list[str]:
    """The first ``count`` top-level definitions of the tree, as dotted targets."""
    found: list[str] = []
    for path in sorted((root / "vllm").rglob("*.py")):
        module = ".".join(path.relative_to(root).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        try:
            tree = ast.parse(path.read_bytes())
        except SyntaxError:
            continue
        defined = [
            node.name
            for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        ]
        for name in defined[:PER_FILE]:
            found.append(f"{module}.{name}")
            if len(found) == count:
                return found
    return found


def comment_inside(path: Path, record: dict) -> str:
    """The text of ``path`` with a comment line before the last line of every locked
    definition of ``record`` (indented as that line): the text differs, the code does not."""
    from patchkeeper.runtime.live.guard import find_definition

    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(True)
    tree = ast.parse(text)
    ends = set()
    for item in record["targets"].values():
        node = find_definition(tree, item["qualname"])
        if node is not None and node.end_lineno > node.lineno:
            ends.add(node.end_lineno)
    for end in sorted(ends, reverse=True):
        last = lines[end - 1]
        indent = last[: len(last) - len(last.lstrip())]
        lines.insert(end - 1, f"{indent}# changed\n")
    return "".join(lines)


def timed(lock: Path, root: Path, runs: int, preload: str) -> list[tuple[float, float, int]]:
    """(wall, CPU) milliseconds and the differences found of ``runs`` fresh-interpreter
    checks."""
    out = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", CHILD.format(preload=preload), str(lock), str(root)],
            capture_output=True,
            text=True,
            check=True,
        )
        wall, cpu, found = done.stdout.split()
        out.append((float(wall), float(cpu), int(found)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=250)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    root = Path(fetch_requirement(UPSTREAM, kind="sdist").root)
    chosen = targets(root, args.targets)
    lock_data, unguarded, skipped = build_lock(UpstreamTree(root, ("vllm",)), chosen, UPSTREAM)
    locked = sum(len(r["targets"]) for r in lock_data["files"].values())
    with tempfile.TemporaryDirectory() as scratch:
        lock = Path(scratch) / "patchkeeper.lock"
        lock.write_text(json.dumps(lock_data), encoding="utf-8")
        changed = Path(scratch) / "changed"
        for relative in lock_data["files"]:
            copy = changed / relative
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / relative, copy)
            with copy.open("a", encoding="utf-8") as handle:
                handle.write("\n# changed\n")
        commented = Path(scratch) / "commented"
        for relative, record in lock_data["files"].items():
            copy = commented / relative
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_text(comment_inside(root / relative, record), encoding="utf-8")
        left_out = len(unguarded) + len(skipped)
        print(f"{locked} targets in {len(lock_data['files'])} files ({left_out} skipped)")
        cases = [
            ("audited, bare interpreter", root, ""),
            ("audited, standard modules a vLLM process has loaded", root, PRELOADED),
            ("changed, bare interpreter", changed, ""),
            ("commented, bare interpreter", commented, ""),
        ]
        for label, tree, preload in cases:
            times = timed(lock, tree, args.runs, preload)
            wall, cpu = [t[0] for t in times], [t[1] for t in times]
            print(
                f"{label}: wall median {statistics.median(wall):.1f} ms (max {max(wall):.1f}), "
                f"CPU median {statistics.median(cpu):.1f} ms (max {max(cpu):.1f}); "
                f"{times[0][2]} differences"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
