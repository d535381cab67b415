"""Benchmark patchkeeper against GNU patch and git on real trees.

    .venv/bin/python benchmarks/bench_series.py [--runs 5] [--patches 1000] [--seed 2718]

In one run, on one machine, every figure the median of ``--runs`` runs (wall time, the
interpreter's start included, each tool on its own fresh copy):

- a generated series of 1,000 small patches over the vLLM 0.27.1 sdist
  (``generate_series.py``): ``patchkeeper apply --target COPY`` against a shell loop of
  ``patch -p1 --fuzz 0 -s`` (one process per patch) and one ``git apply`` of all the patches
  in a ``git init`` copy; the three resulting trees must be byte-identical (and equal to what
  the generator expects). Then ``patchkeeper verify --target COPY --pristine PRISTINE``, and
  the peak memory (max RSS from ``wait4``) of the patchkeeper processes;
- Debian's ``python-urllib3`` series on the urllib3 1.26.12 sdist: ``apply``, ``verify`` and
  ``audit --to urllib3==1.26.20`` (the sdist cached).

Targets: apply at least 3x faster than the loop, verify under 2 s,
peak memory under 200 MiB, each urllib3 command within 0.5 s. Everything is written to a
temporary directory (the corpus comes from the cache, ``benchmarks/fetch_corpus.py``); the
table is printed and written to ``benchmarks/results/series.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
REPOSITORY = BENCHMARKS.parent
sys.path.insert(0, str(REPOSITORY / "tests"))  # the corpus helpers live with the tests
sys.path.insert(0, str(BENCHMARKS))

from generate_series import CONFIG as GENERATOR_CONFIG  # noqa: E402
from generate_series import PACKAGE, generate  # noqa: E402

from corpus import debian_series  # noqa: E402
from patchkeeper.upstream.fetch import fetch_requirement  # noqa: E402

RESULTS = BENCHMARKS / "results" / "series.md"
GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C"}
#: The loop the issue compares with: one GNU patch process per patch, stop at the first failure.
LOOP = 'cd "$1" && for p in $(cat "$2/series"); do patch -p1 --fuzz 0 -s -i "$2/$p" || exit 1; done'
SKIP_DIRS = {".git", ".patchkeeper"}
MIB = 1024


@dataclass(frozen=True)
class Run:
    """One process: wall seconds, max RSS (KiB, from ``wait4``), exit code, output."""

    seconds: float
    max_rss_kib: int
    returncode: int
    output: str


def run(command: list[str], *, env: dict[str, str] | None = None, ok: tuple = (0,)) -> Run:
    """Run ``command`` to completion and measure it; fail loudly on an unexpected exit."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )
        _pid, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        output = out.read().decode("utf-8", "replace")
    if proc.returncode not in ok:
        raise SystemExit(f"{command[:4]}... exited {proc.returncode}:\n{output[-3000:]}")
    return Run(seconds, usage.ru_maxrss, proc.returncode, output)


def console_script() -> str:
    beside = Path(sys.executable).parent / "patchkeeper"
    found = str(beside) if beside.exists() else shutil.which("patchkeeper")
    if not found:
        raise SystemExit("the patchkeeper console script is not installed (pip install -e .)")
    return found


def restore(copy: Path, pristine: Path, paths: list[str]) -> None:
    """Put ``paths`` of ``copy`` back as ``pristine`` has them (remove those it lacks)."""
    for relative in paths:
        source, target = pristine / relative, copy / relative
        if source.exists():
            shutil.copy2(source, target)
        elif target.exists():
            target.unlink()
            parent = target.parent
            while parent != copy and not any(parent.iterdir()):
                parent.rmdir()
                parent = parent.parent
    shutil.rmtree(copy / ".patchkeeper", ignore_errors=True)


def tree_digest(root: Path) -> dict[str, str]:
    """relative path -> sha256 of every file under ``root`` (``.git`` and our state left out)."""
    digest = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in files:
            path = Path(folder, name)
            digest[path.relative_to(root).as_posix()] = hashlib.sha256(
                path.read_bytes()
            ).hexdigest()
    return digest


def median(runs: list[Run]) -> float:
    return statistics.median(r.seconds for r in runs)


# --------------------------------------------------------------------------- vLLM series


def vllm_benchmark(work: Path, pk: str, runs: int, patches: int, seed: int) -> dict:
    pristine = fetch_requirement("vllm==0.27.1").root
    downstream = work / "vllm-downstream"
    series = generate(pristine, downstream, patches, seed)
    paths = list(series.expected)
    patch_dir = downstream / "patches"
    copies = {name: work / name for name in ("patchkeeper", "gnu-loop", "git-apply")}
    for copy in copies.values():
        shutil.copytree(pristine, copy, symlinks=True)
    run(["git", "init", "-q", str(copies["git-apply"])], env=GIT_ENV)
    commands = {
        "patchkeeper": [pk, "-C", str(downstream), "apply", "--target", str(copies["patchkeeper"])],
        "gnu-loop": ["sh", "-c", LOOP, "sh", str(copies["gnu-loop"] / PACKAGE), str(patch_dir)],
        "git-apply": ["git", "-C", str(copies["git-apply"]), "apply", f"--directory={PACKAGE}"]
        + [str(patch_dir / name) for name in series.names],
    }
    timings: dict[str, list[Run]] = {name: [] for name in commands}
    for _ in range(runs):  # round-robin, so that a busy moment does not hit one tool only
        for name, command in commands.items():
            restore(copies[name], pristine, paths)
            os.sync()
            timings[name].append(run(command, env=GIT_ENV if name == "git-apply" else None))
    digests = {name: tree_digest(copy) for name, copy in copies.items()}
    identical = digests["patchkeeper"] == digests["gnu-loop"] == digests["git-apply"]
    expected = all(
        (copies["patchkeeper"] / p).read_bytes() == d for p, d in series.expected.items()
    )
    if not (identical and expected):
        raise SystemExit(f"the trees differ (identical={identical}, as generated={expected})")
    verify = [
        run(
            [
                pk,
                "-C",
                str(downstream),
                "verify",
                "--target",
                str(copies["patchkeeper"]),
                "--pristine",
                str(pristine),
            ]
        )
        for _ in range(runs)
    ]
    raw = [(patch_dir / n).read_bytes() for n in series.names]
    return {
        "timings": timings,
        "verify": verify,
        "files_compared": len(digests["patchkeeper"]),
        "stats": {
            "patches": len(series.names),
            "files": len(paths),
            "created": len(series.created),
            "hunks": sum(r.count(b"\n@@ ") for r in raw),
            "bytes": sum(len(r) for r in raw),
        },
    }


# --------------------------------------------------------------------------- urllib3 series

URLLIB3_CONFIG = """upstream = "urllib3"
pin = "1.26.12"
series = "debian/patches/series"
strip = 1
directory = ""
"""


def urllib3_benchmark(work: Path, pk: str, runs: int) -> dict:
    patches, version = debian_series("python-urllib3")
    pristine = fetch_requirement(f"urllib3=={version}").root
    fetch_requirement("urllib3==1.26.20")  # cached before anything is timed
    downstream = work / "urllib3-downstream"
    shutil.copytree(patches, downstream / "debian" / "patches")
    (downstream / "patchkeeper.toml").write_text(URLLIB3_CONFIG, encoding="utf-8")
    target = work / "urllib3-target"
    base = [pk, "-C", str(downstream)]
    timings: dict[str, list[Run]] = {"apply": [], "verify": [], "audit": []}
    for _ in range(runs):
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(pristine, target)
        os.sync()
        timings["apply"].append(run([*base, "apply", "--target", str(target)]))
        timings["verify"].append(run([*base, "verify", "--target", str(target)]))
        timings["audit"].append(run([*base, "audit", "--to", "urllib3==1.26.20"], ok=(0, 1)))
    entries = (downstream / "debian" / "patches" / "series").read_text(encoding="utf-8")
    count = sum(1 for line in entries.splitlines() if line.strip() and not line.startswith("#"))
    return {"timings": timings, "version": version, "patches": count}


# --------------------------------------------------------------------------- report


def first_line(command: list[str]) -> str:
    return subprocess.run(command, capture_output=True, text=True, check=False).stdout.split("\n")[
        0
    ]


def report(vllm: dict, urllib3: dict, runs: int, command: str) -> str:
    t = vllm["timings"]
    pk, loop, git = median(t["patchkeeper"]), median(t["gnu-loop"]), median(t["git-apply"])
    verify = median(vllm["verify"])
    rss_apply = max(r.max_rss_kib for r in t["patchkeeper"]) / MIB
    rss_verify = max(r.max_rss_kib for r in vllm["verify"]) / MIB
    u = urllib3["timings"]
    s = vllm["stats"]

    def spread(items: list[Run]) -> str:
        values = sorted(r.seconds for r in items)
        return f"{values[0]:.2f}–{values[-1]:.2f}"

    def verdict(ok: bool) -> str:
        return "met" if ok else "**missed**"

    rows = [
        ("vLLM: `patchkeeper apply`", f"{pk:.2f} s", spread(t["patchkeeper"]), ""),
        (
            "vLLM: GNU `patch` loop, one process per patch",
            f"{loop:.2f} s",
            spread(t["gnu-loop"]),
            "",
        ),
        ("vLLM: one `git apply` of all patches", f"{git:.2f} s", spread(t["git-apply"]), ""),
        (
            "vLLM: loop / patchkeeper apply",
            f"{loop / pk:.2f}x",
            "",
            f"≥ 3x: {verdict(loop / pk >= 3)}",
        ),
        ("vLLM: loop / git apply", f"{loop / git:.2f}x", "", ""),
        ("vLLM: git apply / patchkeeper apply", f"{git / pk:.2f}x", "", ""),
        (
            "vLLM: `patchkeeper verify --pristine`",
            f"{verify:.2f} s",
            spread(vllm["verify"]),
            f"< 2 s: {verdict(verify < 2)}",
        ),
        (
            "vLLM: peak RSS of `patchkeeper apply`",
            f"{rss_apply:.0f} MiB",
            "",
            f"< 200 MiB: {verdict(rss_apply < 200)}",
        ),
        ("vLLM: peak RSS of `patchkeeper verify`", f"{rss_verify:.0f} MiB", "", ""),
    ]
    for name in ("apply", "verify", "audit"):
        value = median(u[name])
        label = "audit --to urllib3==1.26.20" if name == "audit" else name
        rows.append(
            (
                f"urllib3: `patchkeeper {label}`",
                f"{value:.2f} s",
                spread(u[name]),
                f"≤ 0.5 s: {verdict(value <= 0.5)}",
            )
        )
    table = ["| measurement | median | range | target |", "|---|---|---|---|"]
    table += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    audit_tail = u["audit"][-1].output.strip().splitlines()[-1:]
    machine = (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, {first_line(['patch', '--version'])}, "
        f"{first_line(['git', '--version'])}"
    )
    return "\n".join(
        [
            "# Series benchmark",
            "",
            f"Produced by `{command}` on {time.strftime('%Y-%m-%d')}"
            f" ({machine}). Wall times, interpreter start included; median of {runs} runs,"
            " the tools taking turns, each on its own copy restored before every run.",
            "",
            *table,
            "",
            f"- vLLM 0.27.1 sdist, generated series (`benchmarks/generate_series.py`, seed"
            f" {vllm['seed']}): {s['patches']} patches, {s['hunks']} hunks, {s['files']} files"
            f" ({s['created']} created), {s['bytes'] / 1024:.0f} KiB of patches. The three"
            f" results are byte-identical ({vllm['files_compared']} files compared) and equal"
            " to what the generator expects.",
            "- Loop: `for p in $(cat series); do patch -p1 --fuzz 0 -s -i $p || exit 1; done`."
            " git: `git apply --directory=vllm` with every patch on one command line, in a"
            " `git init` copy.",
            f"- urllib3 {urllib3['version']} sdist with Debian's `python-urllib3` series"
            f" ({urllib3['patches']} patches); `verify` takes the pristine tree from the"
            " configured pin (cached); the audit's summary line:"
            f" `{' '.join(audit_tail)}`.",
            "- Before every timed run the files the series touches are restored in that"
            " tool's copy and `sync` is called, so no run pays for the writeback of the one"
            " before. GNU patch renames each result over the old file, and ext4's default"
            " `auto_da_alloc` starts writeback on every such rename, so the loop's time"
            " depends on how busy the disk is; patchkeeper overwrites in place under its"
            " journal and git apply writes new files.",
            "- Configuration (`patchkeeper.toml` in each temporary downstream directory):",
            "",
            "```toml",
            "# vLLM",
            *GENERATOR_CONFIG.strip().splitlines(),
            "# urllib3",
            *URLLIB3_CONFIG.strip().splitlines(),
            "```",
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--patches", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2718)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    for tool in ("patch", "git", "sh"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is needed for the comparison")
    pk = console_script()
    work = Path(tempfile.mkdtemp(prefix="patchkeeper-bench-"))
    try:
        print(f"working in {work}", flush=True)
        vllm = vllm_benchmark(work, pk, args.runs, args.patches, args.seed)
        vllm["seed"] = args.seed
        urllib3 = urllib3_benchmark(work, pk, args.runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    command = "python benchmarks/bench_series.py " + " ".join(sys.argv[1:])
    text = report(vllm, urllib3, args.runs, command.strip())
    print(text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
