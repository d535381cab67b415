"""Benchmark: ``audit --to`` on a vLLM fork's backport series, scored against truth by construction.

A fork of vLLM carries backports of upstream fixes taken early and changes of its own; at each
release it asks ``audit --to NEW`` which patches to retire, carry or port. This script builds
such a series at run time from three cached vLLM sdists X < X+1 < X+2 (nothing of vLLM is
committed) and knows every patch's truth because it made the patch:

- **backport**: one hunk of ``diff -u`` between X and X+1 of a module (context 3), as a patch
  against X. At X+1 the truth is *upstreamed*. At X+2 it is *upstreamed* when X+2 left the
  hunk's post-image lines as X+1 wrote them; when X+2 rewrote them again, the fix is there,
  written differently: *upstreamed* or *partially upstreamed* (or *target gone* when X+2
  deleted the module); when X+2 has the hunk's pre-image again (upstream reverted the fix),
  *clean* or *offset*.
- **own (carried)**: a statement of our own inserted before a line, or a constant of a line
  changed (``True``/``False`` swapped, a number bumped), where X+1 and X+2 left the lines and
  their context as X had them: *clean* or *offset* at both.
- **own (conflict)**: the same kind of edit on a line X+1 changed: *conflict* at X+1 (never
  upstreamed); at X+2 *conflict*, or *clean*/*offset* when X+2 restored the lines of X.

Patches never share a line of context, so the series applies to X at fuzz 0 in any order.
Two series are built: a small one (``--small`` modules) and one at scale (``--scale``
patches over the whole tree); each is audited ``--to`` X+1 and X+2 with ``--pristine X`` by
the installed console script (``--json``); every wrong verdict is printed with its evidence.
The scale series is timed (wall clock and CPU of the subprocess) beside ``git apply --check``
of every patch on the same new tree, one process per patch, in the same run.

Run: ``python benchmarks/vllm_backports.py [--releases 0.27.1,0.28.0,0.29.0] [--small 6]
[--scale 240] [--seed 7] [--keep DIR]`` (sdists from the corpus cache, fetched when missing).
"""

from __future__ import annotations

import argparse
import ast
import difflib
import itertools
import json
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests")]

from corpus import sdist_tree  # noqa: E402

SCRIPT = shutil.which("patchkeeper", path=str(Path(sys.executable).parent)) or "patchkeeper"
PACKAGE = "vllm"
CONTEXT = 3
CARRIED = frozenset({"clean", "offset"})
UPSTREAM = frozenset({"upstreamed", "partially upstreamed"})


@dataclass(frozen=True)
class Patch:
    """One patch of the series: its file name, text, kind and the verdicts right at X+1, X+2."""

    name: str
    text: str
    kind: str
    path: str
    right_next: frozenset[str]
    right_after: frozenset[str]
    note: str


@dataclass
class Module:
    """One module of the package in the three releases (``None`` where it does not exist)."""

    path: str
    old: list[str]
    next: list[str] | None
    after: list[str] | None


def read_lines(path: Path) -> list[str] | None:
    """A file's lines with their ends, or ``None`` when it is missing or not UTF-8."""
    try:
        return path.read_text(encoding="utf-8").splitlines(keepends=True)
    except (FileNotFoundError, UnicodeDecodeError):
        return None


def modules(trees: tuple[Path, Path, Path]) -> list[Module]:
    """Every ``.py`` module of the package in X, with its text in X+1 and X+2."""
    base = trees[0] / PACKAGE
    found = []
    for file in sorted(base.rglob("*.py")):
        rel = file.relative_to(base).as_posix()
        old = read_lines(file)
        if not old or not all(line.endswith("\n") for line in old):
            continue
        found.append(
            Module(
                rel, old, read_lines(trees[1] / PACKAGE / rel), read_lines(trees[2] / PACKAGE / rel)
            )
        )
    return found


def line_map(old: list[str], new: list[str] | None) -> list[int | None]:
    """Per line of ``old``: its line number in ``new`` where the diff keeps it, else ``None``."""
    where: list[int | None] = [None] * len(old)
    if new is None:
        return where
    for tag, i1, i2, j1, _ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            where[i1:i2] = range(j1, j1 + i2 - i1)
    return where


def kept(where: list[int | None], lines: range) -> bool:
    """Whether the new text keeps ``lines`` of the old one, whole and with nothing between."""
    found = [where[k] for k in lines if 0 <= k < len(where)]
    return None not in found and all(b == a + 1 for a, b in itertools.pairwise(found))  # type: ignore[operator]


def hunk_text(path: str, old: list[str], new: list[str], group: list[tuple]) -> str:
    """The ``diff --git`` text of one group of difflib opcodes (one hunk)."""
    i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
    body = []
    for tag, a1, a2, b1, b2 in group:
        if tag == "equal":
            body += [" " + line for line in old[a1:a2]]
            continue
        body += ["-" + line for line in old[a1:a2]]
        body += ["+" + line for line in new[b1:b2]]

    def span(start: int, end: int) -> str:
        return f"{start + (end > start)},{end - start}"

    return (
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -{span(i1, i2)} +{span(j1, j2)} @@\n" + "".join(body)
    )


def backports(module: Module) -> list[tuple[range, str, frozenset[str], str]]:
    """Every hunk of X -> X+1 of ``module``: (X lines it covers, patch text, right at X+2, note)."""
    if module.next is None or module.next == module.old:
        return []
    matcher = difflib.SequenceMatcher(None, module.old, module.next, autojunk=False)
    after = "".join(module.after or [])
    out = []
    for group in matcher.get_grouped_opcodes(CONTEXT):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        if module.after is None:
            right, note = UPSTREAM | {"target gone"}, "module gone at X+2"
        elif "".join(module.next[j1:j2]) in after:
            right, note = frozenset({"upstreamed"}), "X+2 keeps the hunk"
        elif "".join(module.old[i1:i2]) in after:
            right, note = CARRIED, "X+2 restored the lines of X (the fix reverted)"
        else:
            right, note = UPSTREAM, "X+2 rewrote the lines again"
        out.append(
            (range(i1, i2), hunk_text(module.path, module.old, module.next, group), right, note)
        )
    return out


def statement_lines(lines: list[str]) -> list[int]:
    """0-based numbers of lines that hold a whole simple statement (one line of source)."""
    try:
        tree = ast.parse("".join(lines))
    except SyntaxError:
        return []
    simple = (ast.Assign, ast.Return, ast.Expr, ast.AugAssign, ast.AnnAssign, ast.Raise)
    found = []
    for node in ast.walk(tree):
        docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if isinstance(node, simple) and node.lineno == node.end_lineno and not docstring:
            found.append(node.lineno - 1)
    return sorted(set(found))


CONSTANT = re.compile(r"\b(True|False|\d+)\b")


def own_edit(line: str, number: int, rng: random.Random) -> list[str]:
    """Our own change to ``line``: a constant swapped or bumped, or a statement inserted
    before it (same indentation)."""
    match = CONSTANT.search(line)
    if match and rng.random() < 0.5 and not line.lstrip().startswith(("#", "def ", "class ")):
        word = match.group(1)
        new = {"True": "False", "False": "True"}.get(word) or str(int(word) + 1)
        return [line[: match.start()] + new + line[match.end() :]]
    indent = line[: len(line) - len(line.lstrip())]
    return [f"{indent}_fork_tweak_{number} = {rng.randint(2, 99)}  # ours\n", line]


def own_patch(module: Module, at: int, number: int, rng: random.Random) -> str:
    """The patch text of our own edit of line ``at`` (0-based) of ``module`` in X."""
    old = module.old
    start, end = max(0, at - CONTEXT), min(len(old), at + 1 + CONTEXT)
    new = old[start:at] + own_edit(old[at], number, rng) + old[at + 1 : end]
    group = difflib.SequenceMatcher(None, old[start:end], new, autojunk=False).get_opcodes()
    shifted = [(t, a1 + start, a2 + start, b1 + start, b2 + start) for t, a1, a2, b1, b2 in group]
    full_new = old[:start] + new + old[end:]
    return hunk_text(module.path, old, full_new, shifted)


def build(mods: list[Module], count: int, rng: random.Random, prefix: str) -> list[Patch]:
    """About ``count`` patches over ``mods``: 3/4 backports, 1/8 carried, 1/8 conflicts."""
    taken: dict[str, list[range]] = {}

    def free(path: str, lines: range) -> bool:
        wide = range(lines.start - CONTEXT - 1, lines.stop + CONTEXT + 1)
        return all(wide.stop <= r.start or r.stop <= wide.start for r in taken.get(path, []))

    def take(path: str, lines: range) -> None:
        taken.setdefault(path, []).append(range(lines.start - CONTEXT, lines.stop + CONTEXT))

    want_backports, want_own = count * 3 // 4, count - count * 3 // 4
    pool = [(m, b) for m in mods for b in backports(m)]
    rng.shuffle(pool)
    patches: list[tuple[str, Patch]] = []
    for module, (lines, text, right, note) in pool[:want_backports]:
        if not free(module.path, lines):
            continue
        take(module.path, lines)
        patches.append((module.path, Patch("", text, "backport", module.path,
                                           frozenset({"upstreamed"}), right, note)))  # fmt: skip
    carried: list[tuple[Module, int]] = []
    conflicts: list[tuple[Module, int]] = []
    for module in mods:
        if module.next is None:
            continue
        next_map, after_map = line_map(module.old, module.next), line_map(module.old, module.after)
        for at in statement_lines(module.old):
            window = range(max(0, at - CONTEXT), min(len(module.old), at + CONTEXT + 1))
            if kept(next_map, window) and kept(after_map, window):
                carried.append((module, at))
            elif next_map[at] is None and module.old[at].strip():
                conflicts.append((module, at))
    rng.shuffle(carried)
    rng.shuffle(conflicts)
    number = 0
    for kind, picks in (("own, carried", carried), ("own, conflict", conflicts)):
        made = 0
        for module, at in picks:
            if made >= want_own // 2 or not free(module.path, range(at, at + 1)):
                continue
            take(module.path, range(at, at + 1))
            number += 1
            made += 1
            text = own_patch(module, at, number, rng)
            if kind == "own, carried":
                right_next = right_after = CARRIED
                note = "X+1 and X+2 keep the lines"
            else:
                window = range(max(0, at - CONTEXT), min(len(module.old), at + CONTEXT + 1))
                right_next = frozenset({"conflict"})
                if module.after is None:
                    right_after, note = frozenset({"target gone"}), "module gone at X+2"
                elif kept(line_map(module.old, module.after), window):
                    right_after, note = CARRIED, "X+2 restored the lines of X"
                else:
                    right_after, note = frozenset({"conflict"}), "X+1 changed the line"
            patches.append((module.path, Patch("", text, kind, module.path, right_next,
                                               right_after, note)))  # fmt: skip
    rng.shuffle(patches)
    return [
        Patch(f"{prefix}{k + 1:04d}-{p.kind.split(',')[-1].strip()}-{Path(p.path).stem}.patch",
              p.text, p.kind, p.path, p.right_next, p.right_after, p.note)
        for k, (_, p) in enumerate(patches)
    ]  # fmt: skip


def write_downstream(dest: Path, patches: list[Patch], pin: str) -> None:
    """``dest/patches/*.patch``, ``dest/patches/series`` and ``dest/patchkeeper.toml``."""
    (dest / "patches").mkdir(parents=True)
    for patch in patches:
        (dest / "patches" / patch.name).write_text(patch.text, encoding="utf-8")
    (dest / "patches" / "series").write_text("".join(p.name + "\n" for p in patches))
    (dest / "patchkeeper.toml").write_text(
        f'upstream = "vllm"\npin = "{pin}"\nseries = "patches/series"\nstrip = 1\n'
        f'directory = "{PACKAGE}"\n',
        encoding="utf-8",
    )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def audit(downstream: Path, new: Path, old: Path) -> tuple[float, float, dict]:
    """``patchkeeper audit --json --to NEW --pristine OLD``: (wall s, CPU s, JSON)."""
    start, cpu = time.perf_counter(), _children_cpu()
    run = subprocess.run(
        [SCRIPT, "audit", "--json", "--to", str(new), "--pristine", str(old)],
        cwd=downstream, capture_output=True, text=True, check=False,
    )  # fmt: skip
    wall, spent = time.perf_counter() - start, _children_cpu() - cpu
    if run.returncode not in (0, 1):
        raise SystemExit(f"audit failed ({run.returncode}): {run.stderr[-2000:]}")
    return wall, spent, json.loads(run.stdout)


def horizon(downstream: Path, versions: list[str], releases: Path, old: Path) -> tuple[float, dict]:
    """``audit --json --to 'vllm>=X+1,<=X+2' --releases DIR``: (wall s, the X+2 release's
    result, shaped as a single audit's)."""
    start = time.perf_counter()
    run = subprocess.run(
        [SCRIPT, "audit", "--json", "--to", f"vllm>={versions[1]},<={versions[2]}",
         "--releases", str(releases), "--pristine", str(old)],
        cwd=downstream, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if run.returncode not in (0, 1):
        raise SystemExit(f"audit failed ({run.returncode}): {run.stderr[-2000:]}")
    data = json.loads(run.stdout)
    [last] = [r for r in data["releases"] if r["version"] == versions[2]]
    return time.perf_counter() - start, last


def git_apply_check(downstream: Path, new: Path) -> tuple[float, float, int]:
    """``git apply --check`` of each patch on the new tree, one process per patch:
    (wall s, CPU s, patches that do not apply)."""
    start, cpu, failures = time.perf_counter(), _children_cpu(), 0
    patches = downstream / "patches"
    for name in (patches / "series").read_text().split():
        run = subprocess.run(
            ["git", "apply", "--check", "-p1", str(patches / name)],
            cwd=new / PACKAGE, capture_output=True, check=False,
        )  # fmt: skip
        failures += run.returncode != 0
    return time.perf_counter() - start, _children_cpu() - cpu, failures


def score(patches: list[Patch], data: dict, after: bool) -> tuple[Counter, list[str]]:
    """Per kind, right and total; and one line per wrong verdict with its evidence."""
    by_name = {v["name"]: v for v in data["verdicts"]}
    table: Counter = Counter()
    wrong = []
    for patch in patches:
        got = by_name[patch.name]
        right = patch.right_after if after else patch.right_next
        table[(patch.kind, "total")] += 1
        if got["verdict"] in right:
            table[(patch.kind, "right")] += 1
            continue
        wrong.append(
            f"{patch.name} ({patch.kind}; {patch.note}): {got['verdict']}, expected "
            f"{' or '.join(sorted(right))}: {got.get('summary', '')}"
        )
    return table, wrong


def report(label: str, patches: list[Patch], data: dict, after: bool) -> int:
    """Print the score of one audit; return how many verdicts are wrong."""
    table, wrong = score(patches, data, after)
    kinds = sorted({p.kind for p in patches})
    verdicts = Counter(v["verdict"] for v in data["verdicts"])
    print(f"\n## {label}: {len(patches)} patches")
    print("| kind | right | of |\n|---|---|---|")
    for kind in kinds:
        print(f"| {kind} | {table[(kind, 'right')]} | {table[(kind, 'total')]} |")
    right = sum(table[(k, "right")] for k in kinds)
    print(f"| all | {right} | {len(patches)} |")
    notes = Counter(f"{p.kind}: {p.note}" for p in patches)
    print("built: " + "; ".join(f"{n} {what}" for what, n in sorted(notes.items())))
    print("verdicts: " + ", ".join(f"{n} {v}" for v, n in verdicts.most_common()))
    for line in wrong:
        print("  WRONG " + line)
    return len(wrong)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--releases", default="0.27.1,0.28.0,0.29.0", help="X,X+1,X+2")
    parser.add_argument("--small", type=int, default=6, help="modules of the small series")
    parser.add_argument("--scale", type=int, default=240, help="patches of the scale series")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="build the downstreams here and keep them")
    args = parser.parse_args()
    versions = args.releases.split(",")
    trees = tuple(sdist_tree(f"vllm=={v}") for v in versions)
    mods = modules(trees)  # type: ignore[arg-type]
    rng = random.Random(args.seed)
    changed = [m for m in mods if m.next is not None and m.next != m.old]
    rewritten = [m for m in changed if m.after is not None and m.after != m.next]
    small_mods = rng.sample(rewritten, min(args.small, len(rewritten)))
    small = build(small_mods, 10 * len(small_mods), rng, "s")
    scale = build(mods, args.scale, rng, "")
    wrong = 0
    with tempfile.TemporaryDirectory(prefix="vllm-backports-") as tmp:
        base = args.keep or Path(tmp)
        for label, series in (("small", small), ("scale", scale)):
            dest = base / label
            if dest.exists():
                shutil.rmtree(dest)
            write_downstream(dest, series, versions[0])
            for index, after in ((1, False), (2, True)):
                wall, cpu, data = audit(dest, trees[index], trees[0])
                name = f"{label} series --to {versions[index]}"
                wrong += report(name, series, data, after)
                print(f"audit: {wall:.2f} s wall, {cpu:.2f} s CPU (console script)")
                if after:
                    h_wall, last = horizon(dest, versions, trees[0].parent.parent, trees[0])
                    wrong += report(f"{label} series, horizon {versions[1]}..{versions[2]}, "
                                    f"at {versions[2]}", series, last, after)  # fmt: skip
                    print(f"horizon audit (both releases): {h_wall:.2f} s wall")
                if label == "scale":
                    g_wall, g_cpu, fails = git_apply_check(dest, trees[index])
                    print(f"git apply --check, one per patch: {g_wall:.2f} s wall, "
                          f"{g_cpu:.2f} s CPU, {fails} do not apply")  # fmt: skip
    print(f"\n{wrong} wrong verdicts in all")


if __name__ == "__main__":
    main()
