"""Benchmark: ``ledger --check`` + ``lint`` on 1,000 patches; ``export --range`` of 100 commits.

Targets: ``ledger --check`` and ``lint`` over a generated 1,000-patch
series under 1 second together; ``export --range`` of 100 commits on the vLLM 0.27.1
repository under 10 seconds. Both are timed as a user runs them: the console script in a
subprocess, start-up included (best of ``--repeat`` runs).

Run: ``python benchmarks/bench_ledger.py [--patches 1000] [--commits 100] [--repeat 3]``
(the vLLM part downloads the sdist once into the corpus cache; ``--skip-vllm`` skips it).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "ledger")]

SCRIPT = shutil.which("patchkeeper", path=str(Path(sys.executable).parent)) or "patchkeeper"


def make_series(root: Path, count: int) -> None:
    """A downstream with ``count`` seed-shaped patches (headers, two hunks, a knob each 10th)."""
    patches = root / "patches"
    patches.mkdir(parents=True)
    (root / "patchkeeper.toml").write_text(
        'upstream = "vllm"\npin = "0.32.0"\ndirectory = "vllm"\n'
    )
    (root / "PATCHES.md").write_text("# Series\n\n<!-- table:begin -->\n<!-- table:end -->\n")
    names = []
    for number in range(count):
        name = f"topic-{number:04d}.patch"
        names.append(name)
        knob = number % 10 == 0
        body = (
            f"Topic {number}: a change carried on top of upstream.\n\n"
            f"Kind: {('fix', 'feature', 'local', 'backport', 'own')[number % 5]}\n"
            f"What: change number {number} | with a pipe, and a long value that\n"
            f"  continues on a second line\n"
            f"Upstream: {'none' if number % 2 else f'vllm #{50000 + number} (open)'}\n"
            f"Cut-against: 0.32.0\nRetires-when: upstream PR\n"
            f"--- exported from {number:040x}\n"
        )
        read = f"envs.VLLM_KNOB_{number}" if knob else str(number)
        diff = (
            f"diff --git a/mod_{number}.py b/mod_{number}.py\n"
            f"--- a/mod_{number}.py\n+++ b/mod_{number}.py\n"
            f"@@ -1,4 +1,4 @@\n import os\n \n-VALUE = 0\n+VALUE = {read}\n \n"
            f"@@ -20,3 +20,4 @@ def f():\n     a = 1\n     b = 2\n+    c = 3\n     return a\n"
        )
        if knob:
            diff += (
                "diff --git a/envs.py b/envs.py\n--- a/envs.py\n+++ b/envs.py\n"
                f"@@ -{number + 1},2 +{number + 1},3 @@\n environment_variables = {{\n"
                f'+    "VLLM_KNOB_{number}": lambda: os.getenv("VLLM_KNOB_{number}"),\n }}\n'
            )
        (patches / name).write_text(body + diff)
    (patches / "series").write_text("".join(f"{name}\n" for name in names))
    subprocess.run([SCRIPT, "-C", str(root), "ledger"], check=True, capture_output=True)


def timed(args: list[str], repeat: int, expect: int = 0) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(args, capture_output=True)
        elapsed = time.perf_counter() - start
        if done.returncode != expect:
            raise SystemExit(f"{' '.join(args)} exited {done.returncode}: {done.stdout[-500:]!r}")
        best = min(best, elapsed)
    return best


def bench_ledger_lint(count: int, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "down"
        make_series(root, count)
        check = timed([SCRIPT, "-C", str(root), "ledger", "--check"], repeat)
        lint = timed([SCRIPT, "-C", str(root), "lint"], repeat)
        print(f"ledger --check, {count} patches: {check:.3f} s")
        print(f"lint, {count} patches:           {lint:.3f} s")
        print(f"together:                        {check + lint:.3f} s (target < 1 s)")


def bench_export_range(commits: int, repeat: int) -> None:
    from realrepo import TAG, commit_files, show, vllm_clone_bare_tree

    with tempfile.TemporaryDirectory() as scratch:
        repo = vllm_clone_bare_tree(Path(scratch) / "vllm")
        listed = subprocess.run(
            ["git", "-C", str(repo), "ls-tree", "-r", "--name-only", TAG, "vllm/"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        files = [name for name in listed if name.endswith(".py")][:commits]
        tip = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", TAG], capture_output=True, text=True, check=True
        ).stdout.strip()
        start = time.perf_counter()
        for number, path in enumerate(files):
            text = show(repo, TAG, path)
            message = (
                f"[bench] topic-{number:03d}\n\nKind: local\nWhat: a comment in {path}\n"
                "Upstream: none\nCut-against: 0.27.1\nRetires-when: stays\n"
            )
            tip = commit_files(repo, tip, message, {path: text + f"# carried change {number}\n"})
        subprocess.run(["git", "-C", str(repo), "update-ref", "refs/heads/bench", tip], check=True)
        print(f"(made {len(files)} topic commits in {time.perf_counter() - start:.1f} s)")
        down = Path(scratch) / "down"
        (down / "patches").mkdir(parents=True)
        (down / "patchkeeper.toml").write_text(
            'upstream = "vllm"\npin = "0.27.1"\ndirectory = "vllm"\n'
            f'[git]\ntag = "bench"\ncheckout = "{repo}"\n'
        )
        elapsed = timed([SCRIPT, "-C", str(down), "export", "--range", f"{TAG}..bench"], repeat)
        written = len(list((down / "patches").glob("*.patch")))
        print(f"export --range, {written} commits on vLLM 0.27.1: {elapsed:.3f} s (target < 10 s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patches", type=int, default=1000)
    parser.add_argument("--commits", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-vllm", action="store_true")
    options = parser.parse_args()
    bench_ledger_lint(options.patches, options.repeat)
    if not options.skip_vllm:
        bench_export_range(options.commits, options.repeat)


if __name__ == "__main__":
    main()
