"""Benchmark: ``apply`` and ``audit`` of one very large patch (188,000 lines by default).

    python benchmarks/bench_large_patch.py [--lines 188000] [--shape files] [--profile apply]

A downstream sometimes carries one huge patch: a vendored library added as a new file, a
generated module rewritten, a mass rename of a name through a package. Its cost should grow
about linearly with its size. In a temporary directory the script writes

- an upstream ``bigpkg`` 1.0: files ``bigpkg/mod_NNNN.py`` of 2,000 distinct lines each;
- its release 1.1: every file with three lines more at its top (every hunk lands three lines
  down: an *offset*), and every tenth file with the patch's change already made (upstream
  took that part);
- a downstream (``patchkeeper.toml``, the series ``patches/series``) with one patch,
  ``big.patch``, of about ``--lines`` lines. ``--shape files``: a changed line every 20 lines
  of as many files as it takes, and a created module of a fifth of the lines (a vendored
  file); ``--shape one``: the same changes in one file as long as it takes; ``--shape
  created``: one created file alone.

Then it times, each in a fresh process: ``patchkeeper apply --target COPY`` (a copy of 1.0)
and ``patchkeeper audit --to bigpkg-1.1 --json``, printing wall and CPU seconds and the peak
resident set (``os.wait4``), and the summary each printed. ``--profile apply`` (or
``audit``) runs that command in this process under cProfile instead and prints the 25
costliest functions by cumulative time.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Lines of each upstream module, and the distance between two changed lines.
MODULE_LINES = 2000
STEP = 20
CONTEXT = 3
CONFIG = """upstream = "bigpkg"
pin = "1.0"
series = "patches/series"
strip = 1
directory = ""
pristine = "../bigpkg-1.0"
"""


def module(number: int, lines: int = MODULE_LINES) -> list[str]:
    """The lines of upstream module ``number`` (1.0), each distinct."""
    return [f"value_{number}_{j} = compute({j}, 'mod_{number}')\n" for j in range(lines)]


def changed(line: str) -> str:
    """The patch's change of one line."""
    return line.replace("compute(", "compute_fast(")


def module_diff(path: str, lines: list[str]) -> list[str]:
    """A unified diff of ``path`` changing every :data:`STEP`-th line (from line 10)."""
    out = [f"--- a/{path}\n", f"+++ b/{path}\n"]
    for index in range(10, len(lines) - CONTEXT, STEP):
        before = lines[index - CONTEXT : index]
        after = lines[index + 1 : index + 1 + CONTEXT]
        start = index - CONTEXT + 1
        count = len(before) + 1 + len(after)
        out.append(f"@@ -{start},{count} +{start},{count} @@\n")
        out += [" " + line for line in before]
        out += ["-" + lines[index], "+" + changed(lines[index])]
        out += [" " + line for line in after]
    return out


def created_diff(path: str, count: int) -> list[str]:
    """A unified diff creating ``path`` of ``count`` lines (a vendored module)."""
    body = [f"VENDORED_{j} = {{'key': {j}, 'name': 'vendored_{j}'}}\n" for j in range(count)]
    return [
        "--- /dev/null\n",
        f"+++ b/{path}\n",
        f"@@ -0,0 +1,{count} @@\n",
        *("+" + line for line in body),
    ]


def build(root: Path, lines: int, shape: str) -> dict[str, int]:
    """Write the two releases and the downstream under ``root``; the patch's figures."""
    old, new, down = root / "bigpkg-1.0", root / "bigpkg-1.1", root / "downstream"
    diff: list[str] = ["Subject: switch every computation to compute_fast\n", "\n", "---\n"]
    files = 0
    created = lines // 5 if shape == "files" else (lines if shape == "created" else 0)
    budget = lines - created
    if shape == "one":
        length = budget * STEP // (3 + 2 * CONTEXT) + 20
        numbers = [0]
    else:
        per_file = len(module_diff("x", module(0)))
        numbers = list(range(max(1, budget // per_file))) if budget > 0 else []
        length = MODULE_LINES
    for number in numbers:
        body = module(number, length)
        path = f"bigpkg/mod_{number:04}.py"
        for tree in (old, new):
            (tree / "bigpkg").mkdir(parents=True, exist_ok=True)
        (old / path).write_text("".join(body))
        released = [changed(line) for line in body] if number % 10 == 9 else body
        (new / path).write_text("# release 1.1\n\n\n" + "".join(released))
        diff += module_diff(path, body)
        files += 1
    if created:
        for tree in (old, new):
            (tree / "bigpkg").mkdir(parents=True, exist_ok=True)
        diff += created_diff("bigpkg/vendored.py", created)
    for tree, version in ((old, "1.0"), (new, "1.1")):
        (tree / "PKG-INFO").write_text(f"Metadata-Version: 2.1\nName: bigpkg\nVersion: {version}\n")
    (down / "patches").mkdir(parents=True)
    (down / "patches" / "big.patch").write_text("".join(diff))
    (down / "patches" / "series").write_text("big.patch\n")
    (down / "patchkeeper.toml").write_text(CONFIG)
    hunks = sum(1 for line in diff if line.startswith("@@"))
    return {"lines": len(diff), "files changed": files, "created lines": created, "hunks": hunks}


def timed(argv: list[str], cwd: Path) -> tuple[float, float, int, str]:
    """Run ``argv`` in ``cwd``: wall seconds, CPU seconds, peak RSS (KiB, ``os.wait4``) and
    what it printed."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        process = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        _pid, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0)
        printed = out.read().decode()
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed: {printed}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, printed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=188_000)
    parser.add_argument("--shape", choices=("files", "one", "created"), default="files")
    parser.add_argument("--profile", choices=("apply", "audit"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        figures = build(root, args.lines, args.shape)
        print("patch: " + ", ".join(f"{value:,} {name}" for name, value in figures.items()))
        down = root / "downstream"
        target = root / "target"
        shutil.copytree(root / "bigpkg-1.0", target)
        commands = {
            "apply": ["apply", "--target", str(target)],
            "audit": ["audit", "--to", str(root / "bigpkg-1.1"), "--json"],
        }
        if args.profile:
            _profile(commands[args.profile], down)
            return
        for name, words in commands.items():
            seconds, cpu, rss, printed = timed([sys.executable, "-m", "patchkeeper", *words], down)
            if name == "audit":
                said = [f"{v['verdict']}: {v['summary']}" for v in json.loads(printed)["verdicts"]]
            else:
                said = printed.strip().splitlines()[-1:]
            print(f"{name}: {seconds:.1f} s wall, {cpu:.1f} s CPU, {rss / 1024:.0f} MiB peak")
            print("  " + "; ".join(said)[:400])


def _profile(words: list[str], down: Path) -> None:
    """Run ``patchkeeper WORDS`` in this process, in ``down``, under cProfile."""
    from patchkeeper.main import main as patchkeeper

    os.chdir(down)
    profiler = cProfile.Profile()
    with contextlib.redirect_stdout(io.StringIO()):  # the command's own output
        profiler.enable()
        patchkeeper(words)
        profiler.disable()
    stream = io.StringIO()
    pstats.Stats(profiler, stream=stream).sort_stats("cumulative").print_stats(25)
    print(stream.getvalue(), file=sys.stderr)


if __name__ == "__main__":
    main()
