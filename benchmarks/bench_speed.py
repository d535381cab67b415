"""Benchmark: patchkeeper beside the fastest peer, pairs in one run.

    python benchmarks/bench_speed.py [--runs 5] [--no-griffe] [--no-runtime] [--no-10k]
                                     [--no-series] [--no-floor]

Prints one row per target: patchkeeper's figure, the peer's figure from the same run, the
ratio and whether the target is met; writes the table to ``benchmarks/results/speed.md``.
Everything runs as the console would run it, each command a fresh process, wall seconds
measured around it and CPU seconds and peak memory taken from ``os.wait4``. The 2 cores are
shared: the tools take turns, run by run, so that a busy moment falls on both, and the
medians are compared. The corpus comes from the cache (``benchmarks/fetch_corpus.py``).

- ``apply``: 1,000 (and 10,000) generated patches (``generate_series.py``) over the vLLM
  0.27.1 sdist, against one ``git apply`` of the same patches in a ``git init`` copy. Each run
  starts from the pristine tree (the touched files put back, then ``sync``); the results must
  be byte-identical. patchkeeper's parse cache lives in a private ``PATCHKEEPER_CACHE``: the
  first run fills it (shown as "cold"), the median is over the runs after it.
- ``verify --pristine`` of that series (every file of the tree compared), against ``git
  apply -R --check`` of the series on the target plus ``diff -rq`` of the pristine tree and
  the target (the target: at most 2x, in wall time; the CPU seconds of both are printed
  too). ``git apply --check`` and ``-R --check`` given the patch files check each one
  against the files as they are (nothing is written between them), so they fail where two
  patches touch one file; only the series concatenated into one input is chained in
  memory, which is what the peer is given. For reference, ``git apply`` of the series on a
  pristine copy plus ``diff -rq`` of that copy and the target is printed beside it.
- start-up: ``patchkeeper --version`` and ``--help`` against ``python -c pass``.
- runtime: ``runtime inventory`` + ``runtime audit`` of vllm-ascend 0.30.0rc2 from vLLM
  0.30.0 to 0.32.0, cold (empty cache) and warm, as ``bench_runtime.py`` runs them; beside
  it, griffe (the field's tool for API drift) loading both vLLM releases, installed into a
  temporary virtual environment by pip (``pip install griffe``: a peer, not a dependency).
- runtime audit beside its parse floor: ``runtime audit`` of the same pair with its cache
  empty before each run, against a fresh process that only runs :func:`ast.parse` on
  exactly the files that audit parses (the audit lists them itself when
  ``PATCHKEEPER_PARSE_LOG`` names a file: :mod:`patchkeeper.runtime.syntax.parsing`; each
  file once), on as many worker processes as the audit's pool
  (:func:`patchkeeper.runtime.parallel.workers_for`). The audit also reads both trees' files
  as bytes for its name index (regular expressions, no parse): that work is not in the
  floor, which is therefore a strict one.
"""

from __future__ import annotations

import argparse
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
sys.path.insert(0, str(BENCHMARKS))

from bench_series import GIT_ENV, restore, tree_digest  # noqa: E402
from generate_series import PACKAGE, generate  # noqa: E402

from patchkeeper.upstream.fetch import fetch_requirement  # noqa: E402

RESULTS = BENCHMARKS / "results" / "speed.md"
MIB = 1024
PLUGIN, OLD, NEW = "vllm-ascend==0.30.0rc2", "vllm==0.30.0", "vllm==0.32.0"


@dataclass(frozen=True)
class Run:
    """One process: wall seconds, CPU seconds (user + system), peak RSS in KiB."""

    wall: float
    cpu: float
    rss_kib: int


def run(
    argv: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None, ok=(0,)
) -> Run:
    """Run ``argv`` to completion (output discarded) and measure it; fail on another exit."""
    start = time.perf_counter()
    process = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
    )
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        message = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
        raise SystemExit(f"{' '.join(argv[:4])} ... exited {code}:\n{message[-3000:]}")
    if process.stderr:
        process.stderr.close()
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


def median(runs: list[Run], what: str = "wall") -> float:
    return statistics.median(getattr(r, what) for r in runs)


@dataclass
class Row:
    """One line of the table."""

    target: str
    ours: str
    peer: str
    ratio: str
    met: bool | None

    def cells(self) -> list[str]:
        verdict = "" if self.met is None else ("met" if self.met else "**not met**")
        return [self.target, self.ours, self.peer, self.ratio, verdict]


def base_env(cache: Path) -> dict[str, str]:
    env = dict(os.environ, PATCHKEEPER_CACHE=str(cache))
    # As installed: bytecode written once (pip does it), not compiled by every process.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def console_script() -> str:
    beside = Path(sys.executable).parent / "patchkeeper"
    found = str(beside) if beside.exists() else shutil.which("patchkeeper")
    if not found:
        raise SystemExit("the patchkeeper console script is not installed (pip install -e .)")
    return found


# --------------------------------------------------------------------------- apply, verify


def series_pair(work: Path, pk: str, count: int, runs: int, env: dict[str, str]) -> dict:
    """``apply`` against ``git apply``, and ``verify`` against ``git apply -R --check`` of the
    concatenated series + ``diff -rq`` and against ``git apply`` on a pristine copy + ``diff
    -rq``, for a generated series of ``count`` patches."""
    pristine = fetch_requirement("vllm==0.27.1").root
    downstream = work / f"series-{count}"
    series = generate(pristine, downstream, count)
    paths = list(series.expected)
    patch_files = [str(downstream / "patches" / name) for name in series.names]
    ours, theirs = work / f"pk-{count}", work / f"git-{count}"
    for copy in (ours, theirs):
        shutil.copytree(pristine, copy, symlinks=True)
    run(["git", "init", "-q", str(theirs)], env={**env, **GIT_ENV})
    git_env = {**env, **GIT_ENV}
    apply_ours = [pk, "-C", str(downstream), "apply", "--target", str(ours)]
    apply_git = ["git", "-C", str(theirs), "apply", f"--directory={PACKAGE}", *patch_files]
    figures: dict[str, list[Run]] = {"ours": [], "git": [], "verify": [], "check": [], "diff": []}
    cold = None
    for number in range(runs + 1):  # the first run of patchkeeper fills its parse cache
        restore(ours, pristine, paths)
        restore(theirs, pristine, paths)
        os.sync()
        order = [("git", apply_git, theirs), ("ours", apply_ours, ours)]
        for name, argv, _copy in order if number % 2 else reversed(order):
            result = run(argv, env=git_env if name == "git" else env)
            if name == "ours" and number == 0:
                cold = result
            elif number:
                figures[name].append(result)
    if tree_digest(ours) != tree_digest(theirs):
        raise SystemExit(f"patchkeeper's and git's trees differ after {count} patches")
    if any((ours / p).read_bytes() != data for p, data in series.expected.items() if data):
        raise SystemExit("patchkeeper's tree is not what the generator expects")
    verify = [pk, "-C", str(downstream), "verify", "--target", str(ours), "--pristine"]
    verify.append(str(pristine))
    # Given several patch files, git apply --check (or -R --check) checks each against the
    # files as they are, so a later patch fails where an earlier one changed its file; git
    # chains them only by writing each result, or in memory when they come as one input. So
    # the peer is -R --check of the concatenated series on the target + diff -rq of pristine
    # and target (exit 1: they differ, as they should), and, for reference, git apply of the
    # series to a pristine copy compared with the target (the same reading and matching of
    # every hunk; diff -rq reads both trees whole).
    check = ["git", "-C", str(theirs), "apply", f"--directory={PACKAGE}", *patch_files]
    diff = ["diff", "-rq", "-x", ".git", "-x", ".patchkeeper", str(ours), str(theirs)]
    joined = work / f"series-{count}.patch"
    joined.write_bytes(b"".join(Path(name).read_bytes() for name in patch_files))
    reverse = ["git", "-C", str(ours), "apply", "-R", "--check", f"--directory={PACKAGE}"]
    reverse.append(str(joined))
    against = ["diff", "-rq", "-x", ".git", "-x", ".patchkeeper", str(pristine), str(ours)]
    figures["reverse"], figures["against"] = [], []
    for number in range(runs):
        restore(theirs, pristine, paths)
        os.sync()
        pair = [("verify", verify), ("check", check)]
        for name, argv in pair if number % 2 else reversed(pair):
            figures[name].append(run(argv, env=git_env if name == "check" else env))
            if name == "check":
                figures["diff"].append(run(diff, env=env))
                figures["reverse"].append(run(reverse, env=git_env))
                figures["against"].append(run(against, env=env, ok=(1,)))
    figures["cold"] = [cold] if cold else []
    return figures


def series_rows(count: int, figures: dict, apply_limit: float) -> list[Row]:
    ours, git = figures["ours"], figures["git"]
    ratio = median(ours) / median(git)
    cold = figures["cold"][0] if figures["cold"] else None
    rss = max(r.rss_kib for r in ours) / MIB
    rows = [
        Row(
            f"`apply` of {count:,} patches: wall <= {apply_limit}x one `git apply`",
            f"{median(ours):.2f} s ({median(ours, 'cpu'):.2f} s CPU"
            + (f"; first run, parse cache empty: {cold.wall:.2f} s)" if cold else ")"),
            f"{median(git):.2f} s ({median(git, 'cpu'):.2f} s CPU)",
            f"{ratio:.2f}x",
            ratio <= apply_limit,
        ),
    ]
    if count == 1000:
        rows.append(
            Row(
                f"`apply` of {count:,} patches: peak memory < 100 MiB",
                f"{rss:.0f} MiB",
                f"{max(r.rss_kib for r in git) / MIB:.0f} MiB",
                "",
                rss < 100,
            )
        )
        verify = median(figures["verify"])
        verify_cpu = median(figures["verify"], "cpu")
        pair = [r.wall + d.wall for r, d in zip(figures["reverse"], figures["against"])]
        pair_median = statistics.median(pair)
        pair_cpu = statistics.median(
            r.cpu + d.cpu for r, d in zip(figures["reverse"], figures["against"])
        )
        rows.append(
            Row(
                f"`verify --pristine` of {count:,} patches: <= 2x `git apply -R --check` of"
                " the series as one concatenated input (chained in memory) + `diff -rq` of"
                " pristine and target",
                f"{verify:.2f} s ({verify_cpu:.2f} s CPU)",
                f"{pair_median:.2f} s ({median(figures['reverse']):.2f} + "
                f"{median(figures['against']):.2f}; {pair_cpu:.2f} s CPU)",
                f"{verify / pair_median:.2f}x (CPU {verify_cpu / pair_cpu:.2f}x)",
                verify / pair_median <= 2,
            )
        )
        peer = [c.wall + d.wall for c, d in zip(figures["check"], figures["diff"])]
        peer_median = statistics.median(peer)
        rows.append(
            Row(
                f"for reference: `verify --pristine` of {count:,} patches beside `git apply`"
                " of the series to a pristine copy + `diff -rq` of it and the target (`git"
                " apply -R --check` given the patch files checks each against the files as"
                " they are: it fails where two patches touch one file)",
                f"{verify:.2f} s",
                f"{peer_median:.2f} s ({median(figures['check']):.2f} + "
                f"{median(figures['diff']):.2f})",
                f"{verify / peer_median:.2f}x",
                None,
            )
        )
    return rows


# --------------------------------------------------------------------------- start-up


def startup_rows(pk: str, runs: int, env: dict[str, str]) -> list[Row]:
    commands = {
        "pass": [sys.executable, "-c", "pass"],
        "--version": [pk, "--version"],
        "--help": [pk, "--help"],
    }
    figures: dict[str, list[Run]] = {name: [] for name in commands}
    for _ in range(max(runs, 5) * 4):
        for name, argv in commands.items():
            figures[name].append(run(argv, env=env))
    base = median(figures["pass"])
    rows = []
    for name in ("--version", "--help"):
        ratio = median(figures[name]) / base
        rows.append(
            Row(
                f"`patchkeeper {name}`: <= 2.5x `python -c pass`",
                f"{median(figures[name]) * 1000:.0f} ms",
                f"{base * 1000:.0f} ms",
                f"{ratio:.2f}x",
                ratio <= 2.5,
            )
        )
    return rows


# --------------------------------------------------------------------------- runtime, griffe


def runtime_rows(work: Path, runs: int, env: dict[str, str]) -> tuple[list[Row], float]:
    """``runtime inventory`` + ``runtime audit`` cold and warm (as ``bench_runtime.py``)."""
    plugin, old, new = (Path(fetch_requirement(r, kind="sdist").root) for r in (PLUGIN, OLD, NEW))
    scratch = work / "runtime"
    scratch.mkdir()
    (scratch / "patchkeeper.toml").write_text('upstream = "vllm"\n', encoding="utf-8")
    cache = scratch / "cache"
    env = dict(env, PATCHKEEPER_CACHE=str(cache))
    base = [sys.executable, "-m", "patchkeeper", "runtime"]
    where = ["--plugin", str(plugin), "--package", "vllm_ascend", "--json"]
    pair = [
        [*base, "inventory", *where],
        [*base, "audit", "--from", str(old), "--to", str(new), *where],
    ]
    figures: dict[str, list[tuple[float, float, int]]] = {"cold": [], "warm": []}
    for _ in range(runs):
        shutil.rmtree(cache, ignore_errors=True)
        for label in ("cold", "warm"):
            results = [run(argv, env=env, cwd=scratch, ok=(0, 1)) for argv in pair]
            figures[label].append(
                (
                    sum(r.wall for r in results),
                    sum(r.cpu for r in results),
                    max(r.rss_kib for r in results),
                )
            )
    rows = []
    for label, limit in (("cold", 3.0), ("warm", 0.5)):
        wall = statistics.median(f[0] for f in figures[label])
        cpu = statistics.median(f[1] for f in figures[label])
        rows.append(
            Row(
                f"runtime inventory + audit, vllm-ascend, vLLM 0.30.0 -> 0.32.0, {label}:"
                f" < {limit} s",
                f"{wall:.2f} s ({cpu:.2f} s CPU)",
                "",
                "",
                wall < limit,
            )
        )
    rss = max(f[2] for values in figures.values() for f in values) / MIB
    rows.append(Row("runtime: peak memory < 300 MiB", f"{rss:.0f} MiB", "", "", rss < 300))
    cold = statistics.median(f[0] for f in figures["cold"])
    return rows, cold


#: The parse floor of the audit: ``ast.parse`` of every file of a list (argv[1], one path a
#: line), on argv[2] forked worker processes (0: in this one), the largest files handed out
#: first, as the audit's pool does; nothing is sent back but that a file is done. The cyclic
#: garbage collector is off, as in the audit's parsing (``runtime/gc_threshold.py``): with it
#: on, parsing alone takes about a tenth longer, and the floor would be a lenient one.
PARSE_FLOOR = """
import ast, gc, os, sys

gc.disable()

def parse(path):
    with open(path, "rb") as handle:
        ast.parse(handle.read())

with open(sys.argv[1], encoding="utf-8", errors="surrogateescape") as handle:
    paths = handle.read().splitlines()
workers = int(sys.argv[2])
if workers:
    import multiprocessing
    paths.sort(key=lambda path: -os.stat(path).st_size)
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for _ in pool.imap_unordered(parse, paths, 4):
            pass
else:
    for path in paths:
        parse(path)
"""


def audit_floor_row(work: Path, runs: int, env: dict[str, str]) -> Row:
    """The cold ``runtime audit`` (its cache empty: the plugin scanned, both trees read)
    beside its parse floor, in the same run: ``ast.parse`` of exactly the files the audit
    parses (listed by the audit itself, :data:`~patchkeeper.runtime.syntax.parsing.
    PARSE_LOG_ENV`, each file once) on as many processes as the audit's pool has."""
    from patchkeeper.runtime.parallel import workers_for
    from patchkeeper.runtime.syntax.parsing import PARSE_LOG_ENV, read_parse_log

    plugin, old, new = (Path(fetch_requirement(r, kind="sdist").root) for r in (PLUGIN, OLD, NEW))
    scratch = work / "audit-floor"
    scratch.mkdir()
    (scratch / "patchkeeper.toml").write_text('upstream = "vllm"\n', encoding="utf-8")
    cache = scratch / "cache"
    env = dict(env, PATCHKEEPER_CACHE=str(cache))
    audit = [sys.executable, "-m", "patchkeeper", "runtime", "audit", "--from", str(old)]
    audit += ["--to", str(new), "--plugin", str(plugin), "--package", "vllm_ascend", "--json"]
    log = scratch / "parsed.log"
    run(audit, env=dict(env, **{PARSE_LOG_ENV: str(log)}), cwd=scratch, ok=(0, 1))
    parsed = [line for line in log.read_text(encoding="utf-8").splitlines() if line]
    files = read_parse_log(log)
    listing = scratch / "files.txt"
    listing.write_text("".join(f"{path}\n" for path in files), encoding="utf-8")
    size = sum(os.stat(path).st_size for path in files) / 1e6
    workers = workers_for(len(files))
    floor = [sys.executable, "-c", PARSE_FLOOR, str(listing), str(workers)]
    figures: dict[str, list[Run]] = {"audit": [], "floor": []}
    for number in range(runs):
        shutil.rmtree(cache, ignore_errors=True)
        os.sync()
        pair = [("audit", audit), ("floor", floor)]
        for name, argv in pair if number % 2 else reversed(pair):
            figures[name].append(run(argv, env=env, cwd=scratch, ok=(0, 1)))
    ours, base = median(figures["audit"]), median(figures["floor"])
    return Row(
        "runtime audit, cold: <= 1.25x its parse floor (vllm-ascend 0.30.0rc2, vLLM 0.30.0 ->"
        f" 0.32.0; floor: `ast.parse` of the {len(files):,} files the audit parses,"
        f" {size:.1f} MB, listed by the audit itself, on {max(workers, 1)} processes as the"
        f" audit; it parsed {len(parsed):,} times)",
        f"{ours:.2f} s ({median(figures['audit'], 'cpu'):.2f} s CPU)",
        f"{base:.2f} s ({median(figures['floor'], 'cpu'):.2f} s CPU)",
        f"{ours / base:.2f}x",
        ours / base <= 1.25,
    )


GRIFFE_LOAD = """
import sys, griffe
for root in sys.argv[1:]:
    griffe.load("vllm", search_paths=[root], allow_inspection=False)
"""


def griffe_row(work: Path, env: dict[str, str], ours_cold: float | None) -> Row:
    """griffe loading both vLLM releases (static analysis only), in a temporary venv."""
    venv = work / "griffe-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "griffe"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    roots = [str(fetch_requirement(r, kind="sdist").root) for r in (OLD, NEW)]
    result = run([str(python), "-c", GRIFFE_LOAD, *roots], env=env)
    version = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('griffe'))"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    ours = f"{ours_cold:.2f} s (cold inventory + audit)" if ours_cold is not None else ""
    ratio = f"{ours_cold / result.wall:.2f}x" if ours_cold is not None else ""
    return Row(
        f"beside griffe {version} loading vLLM 0.30.0 and 0.32.0 (static)",
        ours,
        f"{result.wall:.1f} s ({result.cpu:.1f} s CPU), {result.rss_kib / MIB:.0f} MiB",
        ratio,
        None,
    )


# --------------------------------------------------------------------------- report


def first_line(argv: list[str]) -> str:
    output = subprocess.run(argv, capture_output=True, text=True, check=False).stdout
    return output.split("\n")[0]


def report(rows: list[Row], runs: int, command: str) -> str:
    machine = (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, {first_line(['git', '--version'])}; "
        f"load average {os.getloadavg()[0]:.1f} at the end"
    )
    table = [
        "| target | patchkeeper | peer (same run) | ratio | |",
        "|---|---|---|---|---|",
    ]
    table += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join(
        [
            "# Speed beside the fastest peer",
            "",
            f"Produced by `{command}` on {time.strftime('%Y-%m-%d')} ({machine}). Wall times"
            f" are medians of {runs} runs, interpreter start included, the tools taking turns.",
            "",
            *table,
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-10k", action="store_true", help="skip the 10,000-patch series")
    parser.add_argument("--no-runtime", action="store_true", help="skip the runtime rows")
    parser.add_argument("--no-griffe", action="store_true", help="skip griffe")
    parser.add_argument(
        "--no-floor", action="store_true", help="skip the cold audit beside its parse floor"
    )
    parser.add_argument(
        "--no-series",
        action="store_true",
        help="skip the start-up and series rows (apply, verify): the runtime rows alone",
    )
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    for tool in ("git", "diff"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is needed for the comparison")
    pk = console_script()
    work = Path(tempfile.mkdtemp(prefix="patchkeeper-speed-"))
    env = base_env(work / "cache")
    rows: list[Row] = []
    try:
        print(f"working in {work}", flush=True)
        if not args.no_series:
            rows += startup_rows(pk, args.runs, env)
            rows += series_rows(1000, series_pair(work, pk, 1000, args.runs, env), 1.0)
            print("\n".join(" | ".join(r.cells()) for r in rows), flush=True)
        if not args.no_10k and not args.no_series:
            rows += series_rows(10000, series_pair(work, pk, 10000, args.runs, env), 0.8)
            print(" | ".join(rows[-1].cells()), flush=True)
        cold = None
        if not args.no_runtime:
            runtime, cold = runtime_rows(work, max(1, min(args.runs, 3)), env)
            rows += runtime
            print("\n".join(" | ".join(r.cells()) for r in runtime), flush=True)
        if not args.no_floor:
            rows.append(audit_floor_row(work, max(3, args.runs), env))
            print(" | ".join(rows[-1].cells()), flush=True)
        if not args.no_griffe:
            try:
                rows.append(griffe_row(work, env, cold))
            except (SystemExit, subprocess.CalledProcessError) as exc:
                rows.append(
                    Row(
                        "beside griffe loading vLLM 0.30.0 and 0.32.0", "", f"{exc}"[:200], "", None
                    )
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    command = " ".join(["python benchmarks/bench_speed.py", *sys.argv[1:]])
    text = report(rows, args.runs, command)
    print(text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
