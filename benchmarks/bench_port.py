"""Benchmark: ``port`` speed on real series, and verdict accuracy against hand-checked verdicts.

Targets: the Debian urllib3 series to 1.26.20 under 2 s with both
sdists cached; a generated 200-patch series over vLLM from 0.27.1 to 0.28.0 under 60 s, with
the time per patch and where it goes. Accuracy: for the urllib3 series and the Django series
(3.2.25 -> 4.2.30) the port's verdict per patch next to the expected one, and the count of
agreements. ``port --continue``: the Django port to the end, each stop
resolved, with the judgements a stopped port keeps and without them, side by side.

Times are the console script in a subprocess, start-up included, best of ``--repeat`` runs.
Where the time goes is measured in-process, by wrapping the port's steps with timers.

Run: ``python benchmarks/bench_port.py [--patches 200] [--repeat 3] [--skip-vllm]
[--only-continue]`` (downloads the sdists and Debian series once into the corpus cache).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "port")]

SCRIPT = shutil.which("patchkeeper", path=str(Path(sys.executable).parent)) or "patchkeeper"

UPSTREAMED = "upstreamed"
CARRIED = "carried"
GONE = "target gone"
CATEGORY = {
    "clean": CARRIED,
    "offset": CARRIED,
    "merged": CARRIED,
    "resolved": CARRIED,
    "partially upstreamed": CARRIED,
    "conflict": CARRIED,
    "blocked": CARRIED,
    "upstreamed": UPSTREAMED,
    "dropped": UPSTREAMED,
    "target gone": GONE,
}

#: urllib3 1.26.12 -> 1.26.20 (the expected verdicts, checked by hand).
URLLIB3 = {
    "01_do-not-use-embedded-python-six.patch": (CARRIED, "Debian-only: use the system six"),
    "02_require-cert-verification.patch": (CARRIED, "Debian-only: CERT_REQUIRED by default"),
    "CVE-2023-43804.patch": (UPSTREAMED, "fixed in 1.26.17; CVE-2024-37891 rewrote its line"),
    "CVE-2023-45803.patch": (UPSTREAMED, "fixed in 1.26.18"),
    "CVE-2024-37891.patch": (UPSTREAMED, "fixed in 1.26.19"),
    "CVE-2025-50181.patch": (CARRIED, "2025 CVE: not in 1.26.x"),
    "CVE-2025-66418.patch": (CARRIED, "2025 CVE: not in 1.26.x"),
    "CVE-2026-21441.patch": (CARRIED, "2026 CVE: not in 1.26.x"),
    "Prevent-issue-in-HTTPResponse-.read-when-decoded_con.patch": (CARRIED, "with 21441"),
    "fix-missed-coverage-when-calling-read-having-amt-Non.patch": (CARRIED, "with 21441"),
    "apply-suggestion-from-pquentin.patch": (CARRIED, "with 21441"),
    "CVE-2026-44431.patch": (CARRIED, "2026 CVE: not in 1.26.x"),
}

#: Django 3.2.25 -> 4.2.30. Every security backport of Debian's 3.2 series is in the 4.2
#: branch (4.2.30 is its last release); the Debian-only patches are carried; 4.0 removed
#: django/bin/django-admin.py. The ten checked by hand carry their reason.
DJANGO = {
    "0001-disable-sources-in-sphinxdoc.diff": (
        CARRIED,
        "checked: Debian-only (no _sources in the docs package); docs/conf.py still has "
        "html_copy_source unset, the hunk applies 30 lines down",
    ),
    "0002-use_debian_geoip_database_as_default.diff": (
        CARRIED,
        "checked: Debian-only GeoIP path; 4.0's black reformatting of geoip2/base.py makes "
        "three real conflicts (quotes and the 'cache not in' line)",
    ),
    "0004-Use-locally-installed-documentation-sources.patch": (CARRIED, "Debian-only"),
    "0004-Set-the-default-shebang-to-new-projects-to-use-Pytho.patch": (CARRIED, "Debian-only"),
    "0005-Use-usr-bin-env-python3-shebang-for-django-admin.py.patch": (
        GONE,
        "checked: django/bin/django-admin.py was removed in 4.0 (deprecated in 3.1); nothing "
        "in 4.2 holds its content, the patch is obsolete",
    ),
    "0006-Fixed-32690-Fixed-__in-lookup-crash-when-combining-w.patch": (UPSTREAMED, "4.0"),
    "0007-Refs-32786-Made-Query.clear_ordering-not-to-cause-si.patch": (
        UPSTREAMED,
        "checked: in 4.0; clear_ordering(force=True) and the query.py hunks are in 4.2, "
        "16 of 17 added code lines, black-formatted",
    ),
    "0008-Refs-32690-Altered-lookups-Query-rhs-alterations-dur.patch": (UPSTREAMED, "4.0"),
    "0009-Fixed-33282-Fixed-a-crash-when-OR-ing-subquery-and-a.patch": (
        UPSTREAMED,
        "checked: in 4.0, then reworked (get_group_by_cols lost its alias argument in 4.2), "
        "so only 3 of 8 added code lines are still there: upstreamed and rewritten",
    ),
    "0011-Moved-RequestSite-import-to-the-toplevel.patch": (UPSTREAMED, "in 4.0"),
    "0012-Add-Python-3.11-support-for-tests.patch": (UPSTREAMED, "4.2 supports 3.11"),
    "0013-fix-url-validator.patch": (UPSTREAMED, "4.2's URLValidator splits the URL once"),
    "0014-CVE-2024-39329.patch": (UPSTREAMED, "4.2.14"),
    "0015-CVE-2024-39330.patch": (
        UPSTREAMED,
        "checked: 4.2.14; storage.py became the package storage/, and storage/base.py has "
        "both validate_file_name calls of the fix",
    ),
    "0016-CVE-2024-39614.patch": (
        UPSTREAMED,
        "checked: 4.2.14; upstream truncates with an assignment expression "
        "((index := lang_code.rfind(...)) > 0), which no line of the backport matches",
    ),
    "0017-CVE-2024-41989.patch": (UPSTREAMED, "4.2.15"),
    "0018-CVE-2024-41991.patch": (
        UPSTREAMED,
        "checked: 4.2.15; MAX_URL_LENGTH lives in django/utils/http.py and urlize became a "
        "class (self.simple_url_re), so 1 of 5 added code lines match",
    ),
    "0019-CVE-2024-42005.patch": (UPSTREAMED, "4.2.15"),
    "0020-CVE-2024-45231.patch": (UPSTREAMED, "4.2.16"),
    "0021-CVE-2024-53907.patch": (UPSTREAMED, "4.2.17"),
    "0022-CVE-2024-56374.patch": (UPSTREAMED, "4.2.18; 2 of 3 lines in fields/__init__.py"),
    "0023-CVE-2025-13372.patch": (UPSTREAMED, "4.2.27"),
    "0024-CVE-2025-26699.patch": (
        UPSTREAMED,
        "checked: 4.2.20; wordwrap was rewritten upstream with the same lines, 7 of 9 added "
        "code lines there",
    ),
    "0025-CVE-2025-32873.patch": (UPSTREAMED, "4.2.21"),
    "0026-CVE-2025-48432.patch": (UPSTREAMED, "4.2.22"),
    "0027-CVE-2025-48432-2.patch": (UPSTREAMED, "4.2.23"),
    "0028-CVE-2025-57833.patch": (UPSTREAMED, "4.2.24"),
    "0029-CVE-2025-59681.patch": (UPSTREAMED, "4.2.25; CVE-2026-1287 rewrote its lines"),
    "0030-CVE-2025-59682.patch": (UPSTREAMED, "4.2.25"),
    "0031-CVE-2025-64459.patch": (
        UPSTREAMED,
        "checked: 4.2.26; the connector check is in query_utils.py (3 of 4 added lines, the "
        "fourth written as a set literal)",
    ),
    "0032-CVE-2025-64460.patch": (UPSTREAMED, "4.2.27"),
    "0034-CVE-2025-13473.patch": (UPSTREAMED, "4.2.28"),
    "0035-CVE-2025-14550.patch": (UPSTREAMED, "4.2.28"),
    "0036-CVE-2026-1207.patch": (UPSTREAMED, "4.2.28"),
    "0037-CVE-2026-1285.patch": (UPSTREAMED, "4.2.28"),
    "0038-CVE-2026-1287.patch": (UPSTREAMED, "4.2.28"),
    "0039-CVE-2026-1312.patch": (UPSTREAMED, "4.2.28"),
    "Workaround-changes-in-CVE-2025-6069.patch": (
        UPSTREAMED,
        "checked: 4.2.30's test_html.py expects either result depending on "
        "htmlparser_fixed_security, a test-only change no line of the workaround matches",
    ),
}


def run(args: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run([SCRIPT, *args], cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - start, done


def downstream(tmp: Path, srcpkg: str, upstream: str) -> Path:
    from corpus import debian_series

    patches, version = debian_series(srcpkg)
    root = tmp / srcpkg
    root.mkdir()
    shutil.copytree(patches, root / "patches")
    (root / "patchkeeper.toml").write_text(f'upstream = "{upstream}"\npin = "{version}"\n')
    return root


def best_port(root: Path, to: str, repeat: int) -> tuple[float, dict]:
    """The fastest of ``repeat`` runs of ``port --to`` (aborting in between) and its report."""
    times, data = [], {}
    for _ in range(repeat):
        seconds, done = run(["port", "--json", "--to", to], root)
        data = json.loads(done.stdout)
        times.append(seconds)
        if data["outcome"] == "stopped":
            run(["port", "--abort"], root)
        else:
            shutil.rmtree(Path(data["output"]))
    return min(times), data


def accuracy(data: dict, expected: dict, title: str) -> None:
    print(f"\n### {title}\n")
    print("| patch | port verdict | expected | agrees | reason |")
    print("|---|---|---|---|---|")
    agree = 0
    for patch in data["patches"]:
        want, reason = expected[patch["name"]]
        got = CATEGORY[patch["verdict"]]
        agree += got == want
        verdict = ("pending " if patch["pending"] else "") + patch["verdict"]
        mark = "yes" if got == want else "**no**"
        print(f"| `{patch['name']}` | {verdict} | {want} | {mark} | {reason} |")
    counts = Counter(CATEGORY[p["verdict"]] for p in data["patches"])
    print(f"\n{agree} of {len(data['patches'])} agree; port: {dict(counts)}")


def bench_urllib3(tmp: Path, repeat: int) -> None:
    from port_support import resolve

    root = downstream(tmp, "python-urllib3", "urllib3")
    seconds, _ = best_port(root, "urllib3==1.26.20", repeat)
    print(f"urllib3 1.26.12 -> 1.26.20, port (stops at the six conflict): {seconds:.2f} s")
    run(["port", "--to", "urllib3==1.26.20"], root)
    files = root / ".patchkeeper-port" / "conflict" / "files" / "src" / "urllib3"
    resolve(
        files / "connectionpool.py",
        b"from ._collections import HTTPHeaderDict\nimport six\nfrom six.moves import queue\n\n",
    )
    resolve(files / "request.py", b"import six\nfrom six.moves.urllib.parse import urlencode\n")
    seconds, done = run(["port", "--continue", "--json"], root)
    print(f"urllib3, port --continue to the end: {seconds:.2f} s")
    accuracy(json.loads(done.stdout), URLLIB3, "urllib3 1.26.12 -> 1.26.20")


def bench_django(tmp: Path, repeat: int) -> None:
    root = downstream(tmp, "python-django", "Django")
    seconds, data = best_port(root, "Django==4.2.30", repeat)
    print(
        f"\nDjango 3.2.25 -> 4.2.30, port (stops at the first conflict, previews the rest): "
        f"{seconds:.2f} s"
    )
    accuracy(data, DJANGO, "Django 3.2.25 -> 4.2.30")


# --------------------------------------------------------------------------- continue


CONFLICT = re.compile(rb"<<<<<<< [^\n]*\n(.*?)\|\|\|\|\|\|\| .*?>>>>>>> [^\n]*\n", re.S)


def take_new_pin(root: Path) -> None:
    """Resolve every conflict region of the stopped patch by keeping the new pin's side."""
    files = root / ".patchkeeper-port" / "conflict" / "files"
    for path in files.rglob("*"):
        if path.is_file() and b"<<<<<<< " in path.read_bytes():
            path.write_bytes(CONFLICT.sub(lambda m: m.group(1), path.read_bytes()))


def continue_to_the_end(root: Path, to: str, memo: bool) -> tuple[float, int]:
    """Seconds for ``port`` then one ``port --continue`` per stop (each conflict resolved to
    the new pin's side) until the port is done; and the number of stops. Without ``memo``
    the judgements kept in the work directory are deleted before each ``--continue``, which
    replays the whole series as before the memo existed."""
    seconds, done = run(["port", "--json", "--to", to], root)
    stops = 0
    while json.loads(done.stdout)["outcome"] == "stopped":
        stops += 1
        take_new_pin(root)
        if not memo:
            (root / ".patchkeeper-port" / "judged.pickle").unlink(missing_ok=True)
        took, done = run(["port", "--continue", "--json"], root)
        seconds += took
    shutil.rmtree(Path(json.loads(done.stdout)["output"]))
    return seconds, stops


def bench_continue(tmp: Path) -> None:
    """Django 3.2.25 -> 4.2.30 to the end, every stop resolved, with and without the memo
    (``patchkeeper.port.memo``), side by side in one run."""
    root = downstream(tmp, "python-django", "Django")
    print("\nDjango 3.2.25 -> 4.2.30, port and every --continue to the end:\n")
    print("| run | seconds in total | stops |")
    print("|---|---|---|")
    for memo in (True, False, True, False):
        seconds, stops = continue_to_the_end(root, "Django==4.2.30", memo)
        label = "judgements kept (memo)" if memo else "whole series judged again"
        print(f"| {label} | {seconds:.2f} | {stops} |")


# --------------------------------------------------------------------------- vLLM, generated


def generate_vllm(tmp: Path, count: int, seed: int = 11) -> Path:
    """``count`` seed-shaped patches over real vLLM 0.27.1 files, made with git.

    Each patch inserts a few lines after a random line of a random file (one in five edits
    two places of the file, one in ten also creates a file), so that, as in a real series,
    most apply where upstream did not move, some need git's merge and a few conflict.
    """
    from corpus import sdist_tree

    rng = random.Random(seed)
    tree = sdist_tree("vllm==0.27.1")
    root = tmp / "vllm-downstream"
    work = root / "work"
    shutil.copytree(tree / "vllm", work)
    git = ["git", "-c", "commit.gpgSign=false", "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*git, "init", "-q"], cwd=work, check=True)
    subprocess.run([*git, "add", "-A"], cwd=work, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=work, check=True)
    files = sorted(
        p for p in work.rglob("*.py") if p.stat().st_size > 4000 and ".git" not in p.parts
    )
    patches = root / "patches"
    patches.mkdir(parents=True)
    names = []
    for number in range(count):
        path = rng.choice(files)
        lines = path.read_bytes().split(b"\n")
        for _ in range(2 if number % 5 == 0 else 1):
            at = rng.randrange(5, len(lines) - 5)
            indent = re.match(rb"\s*", lines[at]).group(0)
            lines[at:at] = [indent + b"# downstream %d: keep the fast path" % number]
        path.write_bytes(b"\n".join(lines))
        if number % 10 == 0:
            (work / f"downstream_{number}.py").write_text(f"KNOB_{number} = {number}\n")
        subprocess.run([*git, "add", "-A"], cwd=work, check=True)
        diff = subprocess.run(
            [*git, "diff", "--cached", "--no-color", "--no-renames"],
            cwd=work,
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run([*git, "commit", "-qm", f"topic {number}"], cwd=work, check=True)
        name = f"topic-{number:03d}.patch"
        preamble = (
            f"Topic {number}.\n\nKind: local\nWhat: topic {number}\nUpstream: none\n"
            f"Cut-against: 0.27.1\nRetires-when: stays\n--- exported from {number:040x}\n"
        )
        (patches / name).write_bytes(preamble.encode() + diff)
        names.append(name)
    (patches / "series").write_text("\n".join(names) + "\n")
    (root / "patchkeeper.toml").write_text(
        'upstream = "vllm"\npin = "0.27.1"\ndirectory = "vllm"\n'
    )
    shutil.rmtree(work)
    return root


PROFILE = """
import json, sys, time
from collections import defaultdict
from pathlib import Path
import patchkeeper.port.rebase as rebase
import patchkeeper.trees.tree as trees
from patchkeeper.commands import port
from patchkeeper.config import load_config
from patchkeeper.port.request import PortRequest

spent = defaultdict(float)
calls = defaultdict(int)

def timed(module, name, label):
    original = getattr(module, name)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[label] += time.perf_counter() - start
            calls[label] += 1
    setattr(module, name, wrapper)

timed(rebase, "judge_series", "audit of the series on the new pin (judge_series)")
timed(rebase.Rebase, "run", "the whole port loop (Rebase.run)")
timed(rebase, "apply_patch", "fuzz-0 apply, old and new side (apply_patch)")
timed(rebase, "judge_patch", "judging patches that do not apply (judge_patch)")
timed(rebase, "merge_patch", "three-way merge (git merge-file)")
timed(rebase, "refresh", "regenerating patches (git diff --no-index, check)")
timed(trees, "read_file", "of which: reading tree files (read_file)")
config = load_config(start=Path(sys.argv[1]))
start = time.perf_counter()
result = port.run(config, PortRequest(to=sys.argv[2]))
total = time.perf_counter() - start
print(json.dumps({"total": total, "spent": spent, "calls": calls, "counts": result.counts}))
"""


def bench_vllm(tmp: Path, count: int, repeat: int) -> None:
    start = time.perf_counter()
    root = generate_vllm(tmp, count)
    print(f"\nvLLM: generated {count} patches in {time.perf_counter() - start:.1f} s")
    seconds, data = best_port(root, "vllm==0.28.0", repeat)
    counts = Counter(("pending " if p["pending"] else "") + p["verdict"] for p in data["patches"])
    print(
        f"vLLM 0.27.1 -> 0.28.0, {count} patches, port: {seconds:.2f} s "
        f"({1000 * seconds / count:.0f} ms per patch); verdicts: {dict(counts)}"
    )
    done = subprocess.run(
        [sys.executable, "-c", PROFILE, str(root), "vllm==0.28.0"],
        capture_output=True,
        text=True,
        check=True,
    )
    profile = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"\nwhere it goes (in-process run, {profile['total']:.2f} s):\n")
    print("| step | seconds | calls | ms per patch |")
    print("|---|---|---|---|")
    for label, value in profile["spent"].items():
        calls = profile["calls"][label]
        print(f"| {label} | {value:.2f} | {calls} | {1000 * value / count:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patches", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-vllm", action="store_true")
    parser.add_argument("--only-continue", action="store_true", help="only the --continue run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-port-") as scratch:
        tmp = Path(scratch)
        if args.only_continue:
            bench_continue(tmp)
            return
        bench_urllib3(tmp, args.repeat)
        bench_django(tmp, args.repeat)
        bench_continue(tmp)
        if not args.skip_vllm:
            bench_vllm(tmp, args.patches, args.repeat)


if __name__ == "__main__":
    main()
