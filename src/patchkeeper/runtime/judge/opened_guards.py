"""Patches that start to run at the new release: a guard on their way that stopped them at
the old release lets them through at the new one.

A plugin that supports several upstream releases, or writes ahead of the next one, puts a
patch of an upstream module only some releases have behind a guard of that module:

- ``if importlib.util.find_spec("vllm.config.engram") is not None:`` (a probe of the
  module, under any name the call has: ``find_spec``, ``util.find_spec``);
- ``try: import vllm.model_executor.layers.mamba.ops.scatter_states as ops ... except
  ImportError: pass`` (the import fails where the module is missing, and the guard skips the
  rest of the block);
- ``if hasattr(Request, "num_in_flight_tokens"):`` (a feature probe,
  :mod:`patchkeeper.runtime.judge.feature_probes`, answered in both trees), whose branch is
  not taken at the old release and is at the new one.

When the old release lacks the module and the new one has it, the patch never ran at the
old release and runs from the new one on. The audit's comparison of the two releases then
says nothing of it: an unchanged target was never patched at the old release (its *retain*
rests on nothing the plugin ran), and a target new upstream is the module arriving, not
upstream taking the plugin's change in. What the patch does is first tried at the new
release: the decision is **look**, with the guard and the module for a reason, and the
decision of the other rules kept next in the evidence.

The modules a ``try`` guards are those its block imports at its own level (``import a.b``,
``from a.b import c``: the module ``a.b.c`` when the new tree has it, else ``a.b``) before
the patch statement (an import after it fails only once the patch has run; for a patch in
another file, the block's leading imports); only upstream modules count (those the new tree
has), so a guard of another library or of the plugin's own module decides nothing.
"""

from __future__ import annotations

import ast
from pathlib import Path

from patchkeeper.runtime.judge.drift import LOOK, Drift, with_decision
from patchkeeper.runtime.judge.feature_probes import has_attribute, probes
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import Condition, PatchEntry
from patchkeeper.runtime.syntax.names import Table
from patchkeeper.runtime.syntax.parsing import plugin_file_tree


def _probed(test: str) -> str:
    """The module a test probes to be present (``find_spec("a.b") is not None``, or the
    call alone), ``""`` for another test."""
    try:
        node = ast.parse(test, mode="eval").body
    except SyntaxError:
        return ""
    if (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], ast.IsNot)
        and isinstance(node.comparators[0], ast.Constant)
        and node.comparators[0].value is None
    ):
        node = node.left
    if not isinstance(node, ast.Call) or not node.args:
        return ""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    first = node.args[0]
    if name != "find_spec" or not isinstance(first, ast.Constant):
        return ""
    return first.value if isinstance(first.value, str) else ""


def _guarded(parsed: ast.Module, line: int, before: int, new: UpstreamTree) -> list[str]:
    """The absolute modules the ``try`` block at ``line`` of ``parsed`` imports at its own
    level before the line ``before`` (an import after the patch statement fails only once
    the patch has run), in order; ``before`` 0: its leading imports (the patch is in another
    file, reached from a statement of the block after them)."""
    for node in ast.walk(parsed):
        if isinstance(node, ast.Try) and node.lineno == line:
            out: list[str] = []
            for statement in node.body:
                if before and statement.lineno >= before:
                    break
                if isinstance(statement, ast.Import):
                    out.extend(alias.name for alias in statement.names)
                elif isinstance(statement, ast.ImportFrom) and statement.module:
                    if statement.level:
                        continue  # the plugin's own module
                    for alias in statement.names:
                        inner = f"{statement.module}.{alias.name}"
                        known = new.module_file(inner) is not None
                        out.append(inner if known else statement.module)
                elif not before:
                    break
            return out
    return []


def _opened(
    entry: PatchEntry, condition: Condition, root: Path, trees: tuple[UpstreamTree, UpstreamTree]
) -> str:
    """The upstream module whose arrival at the new release opens ``condition`` on the way
    to ``entry``; ``""`` when it opens on no such module."""
    old, new = trees
    if condition.kind == "if":
        modules = [_probed(condition.text)]
    elif condition.kind == "try-import":
        parsed = plugin_file_tree(root / condition.file)
        before = entry.line if condition.file == entry.file else 0
        modules = [] if parsed is None else _guarded(parsed, condition.line, before, new)
    else:
        return ""
    for module in modules:
        if module and new.module_file(module) is not None and old.module_file(module) is None:
            return module
    return ""


def _opened_probe(
    entry: PatchEntry, table: Table, trees: tuple[UpstreamTree, UpstreamTree]
) -> tuple[Condition, str] | None:
    """The first feature probe on the way to ``entry`` whose branch the old release does not
    take and the new one does, with what the new release answers it (``"upstream's
    vllm.v1.request.Request has num_in_flight_tokens there"``)."""
    for probe in probes(entry, table):
        before = has_attribute(trees[0], probe.dotted, probe.attribute)
        after = has_attribute(trees[1], probe.dotted, probe.attribute)
        if before is None or after is None or before == after:
            continue
        if before != probe.when_missing:
            continue  # the branch was taken at the old release
        state = "lacks" if probe.when_missing else "has"
        return probe.condition, f"upstream's {probe.dotted} {state} {probe.attribute} there"
    return None


def opened_guards(
    root: Path,
    entries: list[PatchEntry],
    trees: tuple[UpstreamTree, UpstreamTree],
    tables: dict[str, Table],
) -> dict[PatchEntry, str]:
    """Per entry of ``entries`` (files relative to the plugin ``root``) on whose way a guard
    stopped the patch at the old release (``trees[0]``) and lets it through at the new one
    (``trees[1]``): why, as one sentence naming the guard's file and line and the module.
    ``tables``: the module-level names of the files with a feature probe
    (:func:`patchkeeper.runtime.judge.feature_probes.probe_tables`, built once for both
    probe rules)."""
    out: dict[PatchEntry, str] = {}
    for entry in entries:
        activation = entry.activation
        if activation is None:
            continue
        if entry.file in tables:
            opened = _opened_probe(entry, tables[entry.file], trees)
            if opened is not None:
                condition, probed = opened
                out[entry] = (
                    f"the patch did not run at the old release: its feature probe at "
                    f"{condition.file}:{condition.line} ({condition.described()}) is false "
                    f"there and true at the new release ({probed}); it runs for the first "
                    "time at the new release, so the comparison of the two releases says "
                    "nothing of it: read it against the new upstream's code before keeping it"
                )
                continue
        for condition in activation.conditions:
            if condition.kind not in ("if", "try-import"):
                continue
            module = _opened(entry, condition, root, trees)
            if not module:
                continue
            shown = condition.text if condition.kind == "try-import" else f"if {condition.text}"
            out[entry] = (
                f"the patch did not run at the old release: its guard at {condition.file}:"
                f"{condition.line} ({shown}) needs {module}, which only the "
                "new upstream has; it runs for the first time at the new release, so the "
                "comparison of the two releases says nothing of it: read it against the new "
                "upstream's code before keeping it"
            )
            break
    return out


def opened_look(judged: Drift, why: str) -> Drift:
    """``judged`` as *look* for ``why`` (:func:`opened_guards`), its own reason kept next in
    the evidence; ``judged`` itself when ``why`` is empty or it is a *look* already."""
    if not why or judged.decision == LOOK:
        return judged
    return with_decision(judged, LOOK, why)
