"""Benchmark: ``runtime audit`` against what the vllm-ascend maintainers really did.

    python benchmarks/runtime_history.py [--only 0.29.0rc1_0.30.0rc1]

For each pair of consecutive plugin releases, ``benchmarks/runtime_history/<old>_<new>.toml``
holds the truth, written from the diff of the two releases' ``vllm_ascend/patch/``
directories: per entry of the older release, what the maintainers did (*remove*: deleted;
*migrate*: moved to an upstream registry or hook; *update*: body changed to follow upstream;
*retain*: unchanged) and why. The older plugin release is audited from its vLLM (the
``VLLM_TAG`` of its Dockerfile, recorded in the truth file) to the newer release's vLLM, and
each suggestion is scored against the truth.

The audit without its judging layer is scored too (*before*): the same run with the judging of
:mod:`patchkeeper.runtime.judge.judge` switched off, so that each entry keeps the suggestion of
:func:`patchkeeper.runtime.judge.drift.decide` alone (the inventory is today's: it also sees the
registry removals and parameter-module patches, a handful of entries).

Other plugins (the corpus ``benchmarks/runtime_history/plugins.toml``, written by
``benchmarks/plugin_corpus.py``) have their truth files under
``benchmarks/runtime_history/plugins/<plugin>/<old>_<new>.toml`` (same format, with
``plugin`` and ``package`` in ``[pair]``). For every plugin of the corpus the script also
prints its inventory figures at its newest release (entries; recall against the corpus's
by-hand grep: grep lines with an inventory entry on the same file and line; activation:
entries the entry points reach), then per plugin and per set (development, test:
``benchmarks/runtime_history/test_set.toml``) the agreement, the confusion table and what
``runtime port`` reproduced. For the test set only totals are printed and written: no
entry's decision is listed.

Prints per pair the confusion table (rows: truth, columns: suggestion) and the agreement,
then writes all of it, with every disagreement and the audit's evidence, to
``benchmarks/results/runtime-history.md``. Every release is an sdist fetched once into the
corpus cache (``patchkeeper.upstream.fetch``), the vLLM ones included.
"""

from __future__ import annotations

import argparse
import ast
import copy
import difflib
import io
import subprocess
import sys
import time
import tokenize
from collections import Counter
from pathlib import Path

import tomllib
from packaging.version import InvalidVersion, Version

from patchkeeper.runtime.inventory.runtime_inventory import scan_plugin
from patchkeeper.runtime.judge import judging
from patchkeeper.runtime.judge import runtime_audit as audit
from patchkeeper.runtime.judge.drift import codes
from patchkeeper.runtime.judge.samecode import find_definition, same_ast
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.port import plan
from patchkeeper.runtime.settings import resolve_settings
from patchkeeper.runtime.store import plugin_stores
from patchkeeper.runtime.syntax.gates import release_version, versions_named
from patchkeeper.upstream.fetch import fetch_requirement

HERE = Path(__file__).resolve().parent
TRUTHS = HERE / "runtime_history"
PLUGIN_TRUTHS = TRUTHS / "plugins"
CORPUS = TRUTHS / "plugins.toml"
TEST_SET = TRUTHS / "test_set.toml"
RESULT = HERE / "results" / "runtime-history.md"
#: Truth classes, in table order; a suggestion outside them gets its own column.
CLASSES = ("retain", "update", "migrate", "remove")
#: Suggestions that count as *retain* (nothing to do: the change upstream is cosmetic).
AS_RETAIN = {"cosmetic": "retain"}


def entry_id(entry, patch_directory: str, seen: Counter) -> str:
    """The truth files' name of an entry: ``file-under-patch-dir::target[key]`` (``#n`` for
    the n-th entry of the same name in one file)."""
    file = entry.file.removeprefix(patch_directory + "/")
    key = f"[{entry.key}]" if entry.key is not None else ""
    name = f"{file}::{entry.target}{key}"
    seen[name] += 1
    return name if seen[name] == 1 else f"{name}#{seen[name]}"


def corpus() -> dict[str, dict]:
    """The corpus's plugins by name."""
    return {p["name"]: p for p in tomllib.loads(CORPUS.read_text(encoding="utf-8"))["plugin"]}


def test_set() -> set[str]:
    """The test set's plugins."""
    return set(tomllib.loads(TEST_SET.read_text(encoding="utf-8"))["test"])


def tree(requirement: str) -> Path:
    """The unpacked sdist of ``requirement`` (fetched once), or its wheel where the corpus
    says the plugin release has no sdist."""
    name, _, version = requirement.partition("==")
    kind = "sdist"
    for release in corpus().get(name, {}).get("release", []):
        if release["version"] == version:
            kind = release["kind"]
    return Path(fetch_requirement(requirement, kind=kind).root)


def plugin_of(pair: dict) -> tuple[str, str, str | None]:
    """The pair's plugin, package and patch directory (``None``: the package's ``patch``)."""
    name = pair.get("plugin", "vllm-ascend")
    found = corpus().get(name, {})
    package = pair.get("package") or found.get("package", "vllm_ascend")
    directory = found.get("patch_directory")
    if directory == f"{package}/patch":
        directory = None
    return name, package, directory


def _without_results(store: type) -> type:
    """``store`` (the runtime audit's summary cache) with its remembered whole results
    (``#result``) neither read nor written."""

    class WithoutResults(store):  # type: ignore[misc, valid-type]
        def stored(self, name):
            return None if name == "#result" else super().stored(name)

        def get_value(self, name, *args, **kwargs):
            return None if name == "#result" else super().get_value(name, *args, **kwargs)

        def put_value(self, name, *args, **kwargs):
            if name != "#result":
                super().put_value(name, *args, **kwargs)

    return WithoutResults


def score(truth_file: Path, before: bool = False) -> dict:
    """Audit one pair and compare; returns the pair's figures and rows (``before``: with
    the judging layer switched off, the decision from the comparison of the two releases
    alone)."""
    truth = tomllib.loads(truth_file.read_text(encoding="utf-8"))
    pair = truth["pair"]
    plugin_name, package, directory = plugin_of(pair)
    plugin = tree(f"{plugin_name}=={pair['plugin_old']}")
    old, new = tree(f"vllm=={pair['vllm_old']}"), tree(f"vllm=={pair['vllm_new']}")
    start = time.perf_counter()
    # "before": nothing judged, no judgement recalled from (or written to) the audit's
    # store, and no remembered whole result (which the judged run would otherwise give back).
    saved = (judging.judge_pending, judging.recalled_judgement, plugin_stores.SummaryCache)
    if before:
        judging.judge_pending = lambda case: case.drift
        judging.recalled_judgement = lambda *_args, **_kwargs: (None, None)
        plugin_stores.SummaryCache = _without_results(plugin_stores.SummaryCache)
    try:
        result = audit.audit_runtime(
            None,
            old=str(old),
            new=str(new),
            plugin=plugin,
            package=package,
            patch_directory=directory,
        )
    finally:
        judging.judge_pending, judging.recalled_judgement, plugin_stores.SummaryCache = saved
    seconds = time.perf_counter() - start
    expected = {row["entry"]: row for row in truth["entry"]}
    seen: Counter = Counter()
    rows, extra = [], []
    for audited in result.entries:
        name = entry_id(audited.entry, result.inventory.patch_directory, seen)
        suggested = audited.drift.decision
        suggested = AS_RETAIN.get(suggested, suggested)
        row = expected.pop(name, None)
        if row is None:
            extra.append(name)  # found only by today's inventory: listed, not scored
            continue
        rows.append((name, row["truth"], suggested, row, audited))
    newer = tree(f"{plugin_name}=={pair['plugin_new']}")
    reproduced, classes = reproduce(
        result, rows, plugin, (old, new), newer, package=package, directory=directory
    )
    return {
        "plugin": plugin_name,
        "pair": pair,
        "rows": rows,
        "unmatched": sorted(expected),
        "extra": extra,
        "seconds": seconds,
        "port": reproduced,
        "port_classes": classes,
        "later": later_truths(truth_file),
        "newer": newer,
        "patch_directory": result.inventory.patch_directory,
    }


def _module_file(root: Path, module: str) -> str | None:
    """The file of plugin ``module`` relative to ``root`` (``a/b.py`` or ``a/b/__init__.py``)."""
    base = Path(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if (root / path).is_file():
            return path.as_posix()
    return None


def _parse(text: str | None) -> ast.Module | None:
    try:
        return ast.parse(text) if text is not None else None
    except SyntaxError:
        return None


def _definition(root: Path, replacement: str, text: str | None = None):
    """The plugin's replacement ``module:qualname`` parsed from the release at ``root``
    (or from ``text``, that module's source as ``runtime port`` wrote it)."""
    module, _, qual = replacement.partition(":")
    if text is None:
        file = _module_file(root, module)
        text = (root / file).read_text(encoding="utf-8", errors="replace") if file else None
    tree = _parse(text)
    return find_definition(tree, qual) if tree is not None else None


def _statements(tree: ast.Module) -> Counter:
    """A module's top-level statements other than definitions, as AST dumps: each name an
    import binds counted alone (``from m import a, b`` is ``a`` and ``b`` from ``m``: a
    formatter may group or order them), docstrings left out."""
    out: Counter = Counter()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                out[
                    f"from {'.' * node.level}{node.module} import {alias.name} as {alias.asname}"
                ] += 1
        elif isinstance(node, ast.Import):
            for alias in node.names:
                out[f"import {alias.name} as {alias.asname}"] += 1
        else:
            out[ast.dump(node)] += 1
    return out


def _statement_at(tree: ast.Module, line: int) -> ast.stmt | None:
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        if first <= line <= node.end_lineno:
            return node
    return None


def reproduced(entry, plugin: Path, newer: Path, changed: dict[str, str]) -> str:
    """Whether what ``runtime port`` wrote for ``entry`` is the maintainers' update:
    ``equal``, ``different`` or ``not written``. Strict: port changed the entry's
    replacement definition or the top-level statements of its patch file, and (1) the
    replacement definition it wrote equals the maintainers' new one (AST without
    docstrings, decorators included), (2) every top-level statement port added to the patch
    file is in the maintainers' new file and none it deleted is (imports compared name by
    name), and (3) the statement holding the entry's patch statement, as port left it, is
    in the maintainers' new file."""
    module = entry.replacement.partition(":")[0] if entry.replacement else ""
    def_file = _module_file(plugin, module) if ":" in (entry.replacement or "") else None
    before_file = (plugin / entry.file).read_text(encoding="utf-8", errors="replace")
    ported_file = changed.get(entry.file, before_file)
    before, ported = _parse(before_file), _parse(ported_file)
    theirs_text = (
        (newer / entry.file).read_text(encoding="utf-8", errors="replace")
        if (newer / entry.file).is_file()
        else None
    )
    theirs = _parse(theirs_text)
    touched = False
    ok = True
    if def_file is not None:
        mine_before = _definition(plugin, entry.replacement)
        mine_after = _definition(plugin, entry.replacement, changed.get(def_file))
        touched |= def_file in changed and not (
            mine_before is not None
            and mine_after is not None
            and ast.dump(mine_before) == ast.dump(mine_after)
        )
        maintainers = _definition(newer, entry.replacement)
        ok &= (
            mine_after is not None and maintainers is not None and same_ast(mine_after, maintainers)
        )
    if before is None or ported is None or theirs is None:
        return "different" if touched else "not written"
    old_statements, new_statements = _statements(before), _statements(ported)
    added, deleted = new_statements - old_statements, old_statements - new_statements
    touched |= bool(added or deleted)
    if not touched:
        return "not written"
    maintained = _statements(theirs)
    ok &= not (added - maintained) and not any(maintained[k] for k in deleted)
    line = _ported_line(before_file, ported_file, entry.line)
    statement = _statement_at(ported, line) if line is not None else None
    if statement is not None:
        ok &= not (_statements(ast.Module([statement], [])) - maintained)
    return "equal" if ok else "different"


def _ported_line(before: str, after: str, line: int) -> int | None:
    """Line ``line`` of ``before`` in ``after`` (``None``: port changed it)."""
    if before == after:
        return line
    matcher = difflib.SequenceMatcher(
        None, before.splitlines(True), after.splitlines(True), autojunk=False
    )
    for a0, b0, size in matcher.get_matching_blocks():
        if a0 < line <= a0 + size:
            return b0 + line - a0
    return None


def reproduce(
    result,
    rows,
    plugin: Path,
    uppers: tuple[Path, Path],
    newer: Path,
    package: str = "vllm_ascend",
    directory: str | None = None,
):
    """What ``runtime port`` does for the truth's *update* entries: ``reproduced`` (what
    it wrote is the maintainers' update: :func:`reproduced`), ``written, different``,
    ``conflict`` (written with conflict markers), ``by hand`` / ``nothing to do`` (nothing
    written for the entry); and each entry's class (:func:`port_class`), as ``(counts,
    [(entry name, class, port's detail)])``."""
    out: Counter = Counter()
    classes: list[tuple[str, str, str]] = []
    settings = resolve_settings(None, plugin=plugin, package=package, patch_directory=directory)
    scanned = scan_plugin(settings)
    trees = tuple(UpstreamTree(root, settings.upstream_packages) for root in uppers)
    actions, changed = plan.port_plan(result, settings.root, trees, scanned.tree)
    by_entry = {(a.file, a.line, a.target): a for a in actions}
    new_version = release_version(str(uppers[1]), uppers[1])
    for name, truth, _suggested, row, audited in rows:
        if truth != "update":
            continue
        entry = audited.entry
        action = by_entry.get((entry.file, entry.line, entry.target))
        kind = action.action if action else "by hand"
        verdict = (
            "conflict" if kind == "conflict" else reproduced(entry, settings.root, newer, changed)
        )
        spans = codes(entry, audited.old, audited.new, trees, scanned.tree)
        upstream = (
            _code_tokens(spans[0].parsed if spans[0] else None),
            _code_tokens(spans[1].parsed if spans[1] else None),
        )
        out[port_outcome(entry, kind, verdict, settings.root, newer, changed, upstream)] += 1
        what = port_class(entry, audited, row, verdict, kind, settings.root, newer, new_version)
        classes.append((name, what, action.detail if action else ""))
    return out, classes


#: What ``runtime port`` did for a truth *update* entry (:func:`port_outcome`), in table
#: order. *clean, wrong* is the worst: a merge port reported clean that writes what the
#: maintainers did not (it must be 0).
OUTCOMES = (
    "exact",
    "clean, partial",
    "clean, not theirs",
    "clean, wrong",
    "clean but behind",
    "conflict",
    "written, different",
    "by hand",
    "nothing to do",
)


def _code_lines(node: ast.AST | None) -> Counter:
    """The lines of a definition as :func:`ast.unparse` writes it (layout and comments
    aside, docstrings left out, its own name written ``_``: a copy's name is its own),
    counted."""
    if node is None:
        return Counter()
    node = copy.deepcopy(node)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        node.name = "_"
    for found in ast.walk(node):
        body = getattr(found, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body.pop(0)
    return Counter(line.strip() for line in ast.unparse(node).splitlines() if line.strip())


def _code_tokens(node: ast.AST | None) -> list[str]:
    """The Python tokens of a definition as :func:`_code_lines` writes it (layout aside)."""
    if node is None:
        return []
    node = copy.deepcopy(node)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        node.name = "_"
    text = ast.unparse(node)
    skip = {tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    try:
        found = tokenize.generate_tokens(io.StringIO(text).readline)
        return [t.string for t in found if t.type not in skip and t.type != tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        return text.split()


def _token_edits(before: list[str], after: list[str]) -> tuple[Counter, Counter]:
    """The tokens inserted and deleted from ``before`` to ``after`` (counted)."""
    inserted: Counter = Counter()
    deleted: Counter = Counter()
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            inserted.update(after[j1:j2])
        if tag in ("replace", "delete"):
            deleted.update(before[i1:i2])
    return inserted, deleted


def port_outcome(
    entry,
    kind: str,
    verdict: str,
    plugin: Path,
    newer: Path,
    changed,
    upstream: tuple[list[str], list[str]] = ([], []),
) -> str:
    """One of :data:`OUTCOMES` for a truth *update* entry: ``exact`` (what port wrote is the
    maintainers' new code, :func:`reproduced`); for a merge port reported clean, compared
    with the copy before, the maintainers' new copy and ``upstream`` (the old and new
    upstream definitions' tokens, :func:`_code_tokens`): ``clean, partial`` when the
    maintainers' new copy has every line port added and none it deleted (they did more,
    :func:`_code_lines`); ``clean, not theirs`` when port's edit is upstream's change
    faithfully applied (every token it inserted upstream's change inserted, every token
    it deleted upstream's change deleted, as often) but the maintainers did otherwise;
    ``clean, wrong`` when port inserted or deleted tokens upstream's change did not (a line
    added twice, a line of the copy lost: a wrong merge, the worst); ``clean but behind``,
    ``conflict``: flagged for a human; ``written, different``: a retarget or gate cut that
    is not the maintainers'; else port's action."""
    if verdict == "equal":
        return "exact"
    if kind in ("conflict", "clean but behind", "by hand", "nothing to do"):
        return kind
    if kind != "merged":
        return "written, different" if verdict == "different" else kind
    replacement = entry.replacement or ""
    module = replacement.partition(":")[0]
    def_file = _module_file(plugin, module) if ":" in replacement else None
    if def_file is None:
        return "clean, wrong"
    before = _code_lines(_definition(plugin, replacement))
    after = _code_lines(_definition(plugin, replacement, changed.get(def_file)))
    theirs = _code_lines(_definition(newer, replacement))
    added, deleted = after - before, before - after
    mine = _code_tokens(_definition(plugin, replacement))
    ported = _code_tokens(_definition(plugin, replacement, changed.get(def_file)))
    inserted, removed = _token_edits(mine, ported)
    up_inserted, up_removed = _token_edits(*upstream)
    faithful = not (inserted - up_inserted) and not (removed - up_removed)
    agreed = all(theirs[k] >= after[k] for k in added) and all(
        theirs[k] < before[k] for k in deleted
    )
    if agreed and theirs:
        return "clean, partial"
    return "clean, not theirs" if faithful else "clean, wrong"


#: The classes of :func:`port_class`, in table order, with what a tool can do about each.
PORT_CLASSES = {
    "reproduced": "runtime port wrote the maintainers' update",
    "later upstream": (
        "the maintainers' new copy tests a release at or after the new one (a version gate "
        "they added): it follows upstream code newer than the new release; no tool can "
        "write it from the two releases"
    ),
    "renamed or moved by the maintainers": (
        "the newer plugin release has no definition of the replacement's name (renamed, "
        "moved to another module, or the patch is an expression): a rewrite"
    ),
    "own change (upstream unchanged)": (
        "upstream left the target's definition unchanged: the maintainers' change is their "
        "own, nothing to follow"
    ),
    "merge conflict": "the three-way merge left conflicts (a human resolves them)",
    "merged, differs": (
        "port merged (or cut gates) without conflict but the maintainers wrote something else "
        "too (their own change beside upstream's)"
    ),
    "audit: retain": "the audit said retain (nothing to merge); the truth says update",
    "left by hand": "port left it by hand (retarget it could not write, remove, migrate)",
}


def _gates_at_or_after(node: ast.AST, version: str) -> bool:
    """Whether ``node`` holds a version gate naming ``version`` or a later release."""
    for found in ast.walk(node):
        if isinstance(found, (ast.If, ast.IfExp)):
            test = ast.unparse(found.test)
            for named in versions_named(test):
                try:
                    if Version(named) >= Version(version):
                        return True
                except InvalidVersion:
                    continue
    return False


def port_class(entry, audited, row, verdict, kind, plugin, newer, new_version) -> str:
    """Why an *update* entry is or is not reproduced by ``runtime port``, from the facts
    of both plugin releases and both upstream definitions (:data:`PORT_CLASSES`): the
    first class that applies, in table order."""
    if verdict == "equal":
        return "reproduced"
    replacement = entry.replacement or ""
    theirs = _definition(newer, replacement) if ":" in replacement else None
    mine = _definition(plugin, replacement) if ":" in replacement else None
    if (
        theirs is not None
        and mine is not None
        and new_version
        and _gates_at_or_after(theirs, new_version)
        and not _gates_at_or_after(mine, new_version)
    ):
        return "later upstream"
    if theirs is None:
        return "renamed or moved by the maintainers"
    if "upstream target unchanged" in row.get("why", "") or (
        audited.new.status == "found" and not audited.drift.upstream_changes
    ):
        return "own change (upstream unchanged)"
    if kind == "conflict":
        return "merge conflict"
    if verdict == "different":
        return "merged, differs"
    if kind == "nothing to do":
        return "audit: retain"
    return "left by hand"


def truth_files(directory: Path) -> list[Path]:
    """The truth files of one plugin's pairs in ``directory`` (``<old>_<new>.toml``)."""
    return sorted(p for p in directory.glob("*_*.toml") if p.stem[:1].isdigit())


def later_truths(truth_file: Path) -> list[tuple[str, dict[str, str]]]:
    """The truths of the pairs after this one, in release order (``[(pair, {entry:
    truth})]``): each pair's older plugin release is the previous pair's newer one."""
    pairs = {}
    for other in truth_files(truth_file.parent):
        data = tomllib.loads(other.read_text(encoding="utf-8"))
        pairs[data["pair"]["plugin_old"]] = (other.stem, data)
    this = tomllib.loads(truth_file.read_text(encoding="utf-8"))["pair"]
    out, release = [], this["plugin_new"]
    while release in pairs:
        stem, data = pairs[release]
        out.append((stem, {row["entry"]: row["truth"] for row in data["entry"]}))
        release = data["pair"]["plugin_new"]
    return out


def lagged(name: str, truth: str, suggested: str, audited, later: list) -> str:
    """Why the disagreement is the maintainers lagging upstream, or ``""``: they kept the
    entry and did what the audit suggests at a later release (the first later pair whose
    truth for the same entry is not *retain* says *update*/*remove*/*migrate* as the audit
    did), or they kept a copy whose upstream target changed its signature or kind (the
    copy is behind upstream; the audit's evidence shows the change)."""
    if truth == "retain" and suggested != "retain":
        for steps, (pair, truths) in enumerate(later, 1):
            later_truth = truths.get(name)
            if later_truth is None or later_truth != "retain":
                if later_truth == suggested:
                    when = "a release later" if steps == 1 else f"{steps} releases later"
                    return f"Maintainers lagged upstream: they did this {when} ({pair})."
                break
    changes = audited.drift.upstream_changes
    if (
        truth == "retain"
        and suggested == "update"
        and any(c.startswith(("signature", "kind")) for c in changes)
    ):
        return "Maintainers lagged upstream: their copy keeps the old signature."
    return ""


def deleted_note(name: str, truth: str, audited, newer: Path, patch_directory: str) -> str:
    """For a *remove* truth the audit disagrees with: that the newer release deleted the
    whole patch file, and whether upstream left the target unchanged (then the reason lies
    outside the target: a feature the plugin dropped, or code it moved); ``""`` otherwise.
    The file is looked for at the release's root and under ``src/`` (a src layout, where
    the audit's settings look too)."""
    file = name.split("::", 1)[0]
    kept = any((base / patch_directory / file).exists() for base in (newer, newer / "src"))
    if truth != "remove" or kept:
        return ""
    unchanged = audited.drift.upstream_changes == () and audited.new.status == "found"
    why = (
        " while upstream left the target unchanged: the reason lies outside the target"
        if unchanged
        else ""
    )
    return f"The newer release deleted the whole file `{file}`{why}."


def agreement(result: dict) -> str:
    """``"agree of total (percent)"`` of one scored pair."""
    rows = result["rows"]
    agree = sum(1 for _n, t, s, _r, _a in rows if t == s)
    return f"{agree} of {len(rows)} ({100 * agree / max(len(rows), 1):.1f}%)"


def look_apart(rows: list) -> str:
    """The agreement with the entries said *look* set apart: ``"agree of decided (percent);
    look N"``, ``decided`` the rows the audit gave a decision (*retain*, *update*,
    *migrate*, *remove*). The agreement column counts a *look* as a disagreement, since no
    truth is *look*; an honest *look* where the trees cannot tell is worth less there than
    a confident guess that happens to match, so both counts are shown."""
    look = sum(1 for _n, _t, s, _r, _a in rows if s == "look")
    agree = sum(1 for _n, t, s, _r, _a in rows if t == s)
    decided = len(rows) - look
    share = f" ({100 * agree / decided:.1f}%)" if decided else ""
    return f"{agree} of {decided}{share}; look {look}"


def table(rows: list) -> tuple[list[str], dict[tuple[str, str], int]]:
    """The columns and the counts of (truth, suggestion)."""
    counts = Counter((truth, suggested) for _n, truth, suggested, _r, _a in rows)
    columns = list(CLASSES) + sorted({s for _t, s in counts} - set(CLASSES))
    return columns, counts


def render(result: dict) -> str:
    """One pair as Markdown: the confusion table, the agreement, the disagreements."""
    pair, rows = result["pair"], result["rows"]
    columns, counts = table(rows)
    agree = sum(1 for _n, t, s, _r, _a in rows if t == s)
    title = f"{result.get('plugin', 'vllm-ascend')} {pair['plugin_old']} -> {pair['plugin_new']}"
    lines = [
        f"## {title} (vLLM {pair['vllm_old']} -> {pair['vllm_new']})",
        "",
        f"Agreement: **{agree} of {len(rows)}** ({100 * agree / max(len(rows), 1):.1f}%); "
        f"audit {result['seconds']:.1f} s (the audit's result is remembered in the corpus"
        " cache: a second run of the script reads it).",
        "",
        "| truth \\ suggested | " + " | ".join(columns) + " |",
        "|---" * (len(columns) + 1) + "|",
    ]
    for truth in [*CLASSES, "?"]:
        if not any(t == truth for t, _s in counts):
            continue
        cells = [str(counts.get((truth, c), 0)) for c in columns]
        lines.append(f"| {truth} | " + " | ".join(cells) + " |")
    listed, kinds = [], Counter()
    for name, truth, suggested, row, audited in rows:
        if truth == suggested:
            continue
        evidence = "; ".join(audited.drift.evidence)[:300]
        lag = lagged(name, truth, suggested, audited, result["later"])
        note = deleted_note(name, truth, audited, result["newer"], result["patch_directory"])
        kinds["lagged" if lag else "deleted file" if note else "other"] += 1
        tail = (f" **{lag}**" if lag else "") + (f" {note}" if note else "")
        listed.append(
            f"- `{name}`: truth {truth} ({row['why']}); suggested {suggested}: {evidence}{tail}"
        )
    lines += [
        "",
        f"Disagreements: {sum(kinds.values())}: the maintainers lagged upstream on "
        f"{kinds['lagged']}, deleted the whole patch file on {kinds['deleted file']}, "
        f"other {kinds['other']}.",
        "",
        *listed,
    ]
    if result["port"]:
        counts = ", ".join(f"{k} {v}" for k, v in sorted(result["port"].items()))
        lines += ["", f"runtime port on the truth's update entries: {counts}"]
        kinds = Counter(what for _n, what, _d in result["port_classes"])
        lines += ["", "Classes: " + ", ".join(f"{k} {kinds[k]}" for k in PORT_CLASSES if kinds[k])]
        lines += [""] + [
            f"- `{name}`: {what}; port: {detail[:160]}"
            for name, what, detail in result["port_classes"]
        ]
    if result["extra"]:
        lines += ["", "Entries without a truth row (not scored): " + ", ".join(result["extra"])]
    if result["unmatched"]:
        lines += ["", "Truth rows the audit did not produce: " + ", ".join(result["unmatched"])]
    return "\n".join(lines) + "\n"


def port_tables(ported: list) -> str:
    """The ``runtime port`` figures of every pair: what it did on the truth's *update*
    entries, and their classes (:data:`PORT_CLASSES`) with an example of each."""
    if not any(counts for _p, counts, _c in ported):
        return ""
    kinds = list(OUTCOMES)
    lines = [
        "`runtime port` on the truth's *update* entries (exact: what port writes for "
        "the entry is the maintainers' new release: the replacement definition, AST without "
        "docstrings, and the patch file's top-level statements it changed; clean, partial: "
        "a clean merge whose every added and deleted line the maintainers' new definition "
        "agrees with, they did more; clean, not theirs: upstream's change applied faithfully "
        "(every line port added or deleted, upstream added or deleted) where the maintainers "
        "did otherwise; clean, wrong: a clean merge writing a line neither upstream's change "
        "nor the maintainers have, or deleting one neither deleted, the worst, must be 0):",
        "",
        "| pair | " + " | ".join(kinds) + " | entries |",
        "|---" * (len(kinds) + 2) + "|",
    ]
    total: Counter = Counter()
    for pair, counts, _classes in ported:
        total += counts
        cells = [str(counts.get(k, 0)) for k in kinds]
        lines.append(f"| {pair} | " + " | ".join(cells) + f" | {sum(counts.values())} |")
    cells = [str(total.get(k, 0)) for k in kinds]
    lines.append("| all | " + " | ".join(cells) + f" | {sum(total.values())} |")
    classes = Counter(what for _p, _c, found in ported for _n, what, _d in found)
    examples: dict[str, str] = {}
    for pair, _counts, found in ported:
        for name, what, _detail in found:
            examples.setdefault(what, f"{pair} `{name}`")
    lines += ["", "The same entries by class (the first class that applies):", ""]
    lines += ["| class | entries | meaning | example |", "|---|---|---|---|"]
    for what, meaning in PORT_CLASSES.items():
        if classes[what]:
            example = examples.get(what, "")
            lines.append(f"| {what} | {classes[what]} | {meaning} | {example} |")
    return "\n".join(lines) + "\n"


def grep_lines(root: Path, directory: str, pattern: str) -> set[tuple[str, int]]:
    """``(file, line)`` of the by-hand grep (the corpus's ``grep`` pattern) under
    ``directory`` of the release at ``root``."""
    if not (root / directory).is_dir():
        return set()
    found = subprocess.run(
        ["grep", "-rEn", "--include=*.py", pattern, directory],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    out = set()
    for line in found.stdout.splitlines():
        file, number, _text = line.split(":", 2)
        out.add((file, int(number)))
    return out


def _upstream_of(release: dict, settings) -> UpstreamTree | None:
    """The vLLM tree a plugin release runs on, when the corpus pins one release (``vllm``
    a plain version): read for the places vLLM loads the plugin itself."""
    try:
        pinned = str(Version(release.get("vllm", "")))
    except InvalidVersion:
        return None
    return UpstreamTree(tree(f"vllm=={pinned}"), settings.upstream_packages)


def inventory_figures(plugin: dict, pattern: str) -> dict:
    """One plugin's inventory at its newest release of the corpus: entries, the grep's
    lines, those with an entry on the same file and line, entries its loading reaches
    (active or conditional: from its entry points, console scripts, and the places the
    pinned vLLM release loads it, :mod:`patchkeeper.runtime.inventory.loading`), and the
    entry points found; ``error`` when the scan fails."""
    release_data = plugin["release"][-1]
    release = release_data["version"]
    root = tree(f"{plugin['name']}=={release}")
    if not (root / plugin["package"]).is_dir() and (root / "src" / plugin["package"]).is_dir():
        root = root / "src"  # a src layout: the audit's settings look there too
    if not (root / plugin["package"]).is_dir():
        # Nothing Python can import by that name, so nothing of it runs: zero entries,
        # said so, rather than a scan that fails on a missing directory.
        return {
            "release": release,
            "entries": 0,
            "grep": 0,
            "found": 0,
            "reached": 0,
            "entry_points": 0,
            "note": unimportable_note(root, plugin["package"]),
        }
    directory = plugin["patch_directory"]
    grep = grep_lines(root, directory, pattern)
    try:
        settings = resolve_settings(
            None,
            plugin=root,
            package=plugin["package"],
            patch_directory=directory,
        )
        scanned = scan_plugin(settings, upstream=_upstream_of(release_data, settings))
    except Exception as error:  # a finding, reported with the plugin: not a crash here
        return {"release": release, "grep": len(grep), "error": f"{type(error).__name__}: {error}"}
    entries = scanned.inventory.entries
    at = {(e.file, e.line) for e in entries}
    reached = sum(
        1 for e in entries if e.activation and e.activation.status.value != "never-imported"
    )
    return {
        "release": release,
        "entries": len(entries),
        "grep": len(grep),
        "found": len(grep & at),
        "reached": reached,
        "entry_points": len(scanned.inventory.entry_points or ()),
    }


def unimportable_note(root: Path, package: str) -> str:
    """Why a release has no importable ``package`` (none at its root or under ``src/``):
    the directories that hold an ``__init__.py`` under a name that is ``package`` with
    ``-`` for ``_`` (``vllm-neuron``, which no ``import`` can name), or that it has none."""
    near = sorted(
        found.parent.relative_to(root).as_posix()
        for found in root.rglob("__init__.py")
        if found.parent.name.replace("-", "_") == package
    )
    if near:
        return (
            f"no importable package {package}: the release ships it as "
            f"{', '.join(near[:3])}, a name no import can reach; nothing of it runs"
        )
    return f"no package {package} in the release: nothing to scan"


def inventory_table(plugins: dict[str, dict], tests: set[str], pattern: str) -> str:
    """The inventory figures of every plugin of the corpus, as Markdown."""
    lines = [
        "| plugin | set | release | entries | grep lines | grep lines with an entry "
        "| entries reached from its loading | entry points | pairs |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, plugin in plugins.items():
        figures = inventory_figures(plugin, pattern)
        which = "test" if name in tests else "development"
        pairs = len(plugin.get("pairs", []))
        if "error" in figures:
            lines.append(
                f"| {name} | {which} | {figures['release']} | scan failed: "
                f"{figures['error'][:120]} | {figures['grep']} | | | | {pairs} |"
            )
            continue
        if "note" in figures:
            lines.append(
                f"| {name} | {which} | {figures['release']} | 0 ({figures['note']}) "
                f"| {figures['grep']} | 0 | 0 | 0 | {pairs} |"
            )
            continue
        lines.append(
            f"| {name} | {which} | {figures['release']} | {figures['entries']} "
            f"| {figures['grep']} | {figures['found']} | {figures['reached']} "
            f"| {figures['entry_points']} | {pairs} |"
        )
    return "\n".join(lines) + "\n"


def corpus_summary(plugins: dict[str, dict], tests: set[str]) -> str:
    """``plugins: N (development D, test T), pairs P``: the corpus's plugins by set and its
    pairs (consecutive releases that moved to another vLLM release, from
    ``plugins.toml``; a plugin without one counts with its zero)."""
    test = sum(1 for name in plugins if name in tests)
    pairs = sum(len(plugin.get("pairs", [])) for plugin in plugins.values())
    return (
        f"plugins: {len(plugins)} (development {len(plugins) - test}, test {test}), pairs {pairs}"
    )


TITLES = {
    "development": "development set",
    "test": "test set",
    "without an upgrade": "development pairs without an upgrade (apart from the sets)",
}


def set_table(results: list[dict], tests: set[str], plugins: tuple[str, ...] = ()) -> str:
    """Agreement and confusion table per plugin and per set (development, test), and what
    ``runtime port`` did on the truth's *update* entries; every plugin of ``plugins`` (the
    corpus) has its row, with its zero when it has no pair."""
    groups: dict[str, list] = {name: [] for name in plugins}
    for result in results:
        name = result.get("plugin", "vllm-ascend")
        groups.setdefault(name, []).append(result)
    # A pair whose two plugin releases run on one vLLM release has no upgrade to judge: what
    # its maintainers did was their own work (a feature retired, a fix of their own), which no
    # upstream tree shows. Such pairs are scored apart, as a check that the audit keeps what
    # nothing upstream moved, and stay out of the sets' agreement.
    sets: dict[str, list] = {"development": [], "test": [], "without an upgrade": []}
    lines = [
        "| plugin or set | pairs | entries scored | agreement | agreement, *look* apart "
        "| port on update entries | wrong merges reported clean |",
        "|---|---|---|---|---|---|---|",
    ]

    def row(label: str, chosen: list[dict]) -> str:
        rows = [r for result in chosen for r in result["rows"]]
        port: Counter = Counter()
        for result in chosen:
            port += result["port"]
        agree = sum(1 for _n, t, s, _r, _a in rows if t == s)
        share = f"{agree} ({100 * agree / len(rows):.1f}%)" if rows else "-"
        apart = look_apart(rows) if rows else "-"
        ported = ", ".join(f"{k} {port[k]}" for k in OUTCOMES if port[k]) or "-"
        return (
            f"| {label} | {len(chosen)} | {len(rows)} | {share} | {apart} | {ported} "
            f"| {port['clean, wrong']} |"
        )

    for name, chosen in groups.items():
        upgrades = []
        for result in chosen:
            pair = result["pair"]
            if pair["vllm_old"] == pair["vllm_new"] and name not in tests:
                sets["without an upgrade"].append(result)
            else:
                sets["test" if name in tests else "development"].append(result)
                upgrades.append(result)
        # a development plugin's own row counts its upgrades, as its set does; its pairs
        # without an upgrade, when it has any, get a row of their own below it
        lines.append(row(name, upgrades))
        if len(upgrades) < len(chosen):
            apart = [result for result in chosen if result not in upgrades]
            lines.append(row(f"{name}, pairs without an upgrade", apart))
    for label, chosen in sets.items():
        lines.append(row(f"**{TITLES[label]}**", chosen))
    for label, chosen in sets.items():
        rows = [r for result in chosen for r in result["rows"]]
        if not rows:
            continue
        columns, counts = table(rows)
        lines += ["", f"Confusion table, {TITLES[label]} (rows: truth, columns: suggestion):", ""]
        lines += ["| truth \\ suggested | " + " | ".join(columns) + " |"]
        lines += ["|---" * (len(columns) + 1) + "|"]
        for truth in CLASSES:
            if any(t == truth for t, _s in counts):
                cells = [str(counts.get((truth, c), 0)) for c in columns]
                lines.append(f"| {truth} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated pair names (file stems)")
    parser.add_argument(
        "--plugins",
        help="comma-separated plugins whose pairs are scored (default: all; vllm-ascend's "
        "pairs are the truth files directly under benchmarks/runtime_history/)",
    )
    parser.add_argument(
        "--no-inventory", action="store_true", help="skip the inventory table of the corpus"
    )
    parser.add_argument(
        "--no-before",
        action="store_true",
        help="skip the vllm-ascend audit with the decision layer switched off (the 'before' "
        "column; half of the run's time)",
    )
    args = parser.parse_args(argv)
    wanted = set(args.only.split(",")) if args.only else None
    chosen = set(args.plugins.split(",")) if args.plugins else None
    plugins, tests = corpus(), test_set()
    pattern = tomllib.loads(CORPUS.read_text(encoding="utf-8"))["grep"]
    summary_line = corpus_summary(plugins, tests)
    print(summary_line)
    inventory_text = ""
    if not args.no_inventory and not wanted:
        inventory_text = inventory_table(
            {k: v for k, v in plugins.items() if not chosen or k in chosen}, tests, pattern
        )
        print(inventory_text)
    files = [] if chosen and "vllm-ascend" not in chosen else truth_files(TRUTHS)
    for name in sorted(plugins):
        if name != "vllm-ascend" and (not chosen or name in chosen):
            files += truth_files(PLUGIN_TRUTHS / name)
    sections, summary, ported, results = [], [], [], []
    for truth_file in files:
        if wanted and truth_file.stem not in wanted:
            continue
        name = tomllib.loads(truth_file.read_text(encoding="utf-8"))["pair"].get(
            "plugin", "vllm-ascend"
        )
        label = truth_file.stem if name == "vllm-ascend" else f"{name} {truth_file.stem}"
        try:
            result = score(truth_file)
        except Exception:  # a finding: the audit cannot read this plugin
            import traceback

            print(f"{label}: the audit failed:\n{traceback.format_exc()}")
            continue
        results.append(result)
        if name in tests:
            print(f"{label}: {len(result['rows'])} entries scored (test set: totals only)")
            continue
        earlier = (
            score(truth_file, before=True) if name == "vllm-ascend" and not args.no_before else None
        )
        text = render(result)
        sections.append(text)
        print(text if wanted else text.split("\nDisagreements:")[0])
        summary.append((label, agreement(earlier) if earlier else "-", agreement(result)))
        ported.append((label, result["port"], result["port_classes"]))
    lines = ["| pair | before | after |", "|---|---|---|"]
    lines += [f"| {pair} | {b} | {a} |" for pair, b, a in summary]
    print("\n".join(lines))
    listed = () if wanted else tuple(n for n in plugins if not chosen or n in chosen)
    sets_text = set_table(results, tests, listed)
    print(sets_text)
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    header = (
        "# runtime audit vs the plugins' maintainers\n\n"
        "Written by `python benchmarks/runtime_history.py`; truth files in "
        "`benchmarks/runtime_history/` (vllm-ascend) and `benchmarks/runtime_history/plugins/`;"
        " the test set's plugins are counted in totals only.\n\n"
        f"{summary_line}\n\n"
    )
    port_text = port_tables(ported)
    print(port_text)
    if not wanted and not chosen:
        table_text = "Agreement with the maintainers per pair:\n\n" + "\n".join(lines) + "\n\n"
        RESULT.write_text(
            header
            + inventory_text
            + "\n"
            + sets_text
            + "\n"
            + table_text
            + port_text
            + "\n"
            + "\n".join(sections),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
