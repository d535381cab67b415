"""Findings of the audit across entries and files.

- *duplicate*: two entries in two files patch the same target (the later import wins, and
  the other patch is silently dead or wraps the first);
- *breaks-at-import* / *breaks-when-called*: an upstream name the plugin imports or
  references (``from vllm.x import y``, ``vllm.x.y`` attribute chains, base classes, helpers
  a copied body calls) that the old release defines and the new one does not define there;
  where it went when the name is defined elsewhere (a renamed private helper is searched by
  its name too);
- *version-gate*: every version gate of the patch directory
  (:mod:`patchkeeper.runtime.syntax.gates`), the branch live at the new release, and the edit.

Only the patch directory is read, as ASTs; upstream is read through
:class:`~patchkeeper.runtime.lookup.upstream_tree.UpstreamTree` (never imported).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.errors import Finding
from patchkeeper.runtime.lookup.resolve import FOUND, resolve_all, target_modules
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.syntax import names
from patchkeeper.runtime.syntax.astwalk import scoped_nodes
from patchkeeper.runtime.syntax.gates import Gate, evaluate, gate_edit, versions_named
from patchkeeper.runtime.syntax.parsing import parse_file


def duplicates(entries: list[PatchEntry]) -> list[Finding]:
    """Targets (with the same registry key) patched from two or more files: a ``duplicate``
    finding at the first, its message beginning with the target."""
    by_target: dict[tuple[str, str | None], list[PatchEntry]] = defaultdict(list)
    for entry in entries:
        by_target[(entry.target, entry.key)].append(entry)
    out = []
    for (target, key), group in sorted(by_target.items(), key=lambda x: (x[0][0], x[0][1] or "")):
        files = sorted({e.file for e in group})
        if len(files) < 2:
            continue
        first = min(group, key=lambda e: (e.file, e.line))
        where = ", ".join(f"{e.file}:{e.line}" for e in sorted(group, key=lambda e: e.file))
        label = f"{target}[{key}]" if key else target
        out.append(
            Finding(
                "duplicate",
                first.file,
                first.line,
                f"{label} is patched in {len(files)} files ({where}): the one imported last wins",
                "keep one",
            )
        )
    return out


@dataclass(frozen=True)
class _Reference:
    dotted: str
    file: str
    line: int
    at_import: bool


#: One patch file's facts for the cross-checks, read in one parse (:func:`file_facts`):
#: ``(references, tests)``, ``references`` as ``(dotted, line, at_import)`` of every upstream
#: name imported or referenced, ``tests`` as ``(line, source)`` of every ``if`` and
#: conditional expression's test, in :func:`ast.walk` order.
PatchFileFacts = tuple[tuple[tuple[str, int, bool], ...], tuple[tuple[int, str], ...]]


def file_facts(job: tuple[str, str, bool, tuple[str, ...]]) -> PatchFileFacts:
    """The cross-check facts of one patch file, ``job`` being ``(path, module, is_package,
    upstream roots)``: one parse for both :func:`broken_references` and
    :func:`version_gates` (no facts for a file that does not parse)."""
    path, module, is_package, roots = job
    try:
        with open(path, "rb") as handle:
            tree = parse_file(handle.read(), path)
    except (SyntaxError, ValueError, OSError):
        return (), ()
    table = names.scope_table(tree.body, {}, module, is_package)
    references: list[tuple[str, int, bool]] = []
    tests: list[tuple[int, str]] = []
    for node, at_import in scoped_nodes(tree):  # in ast.walk's order
        if isinstance(node, (ast.If, ast.IfExp)):
            tests.append((node.lineno, ast.unparse(node.test)))
        elif isinstance(node, ast.Import):
            references += [
                (a.name, node.lineno, at_import)
                for a in node.names
                if a.name.split(".")[0] in roots and "." in a.name
            ]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in roots:
                references += [
                    (f"{node.module}.{a.name}", node.lineno, at_import)
                    for a in node.names
                    if a.name != "*"
                ]
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            bound = names.dotted(node, table)
            if bound is not None and bound.dotted.split(".")[0] in roots:
                references.append((bound.dotted, node.lineno, at_import))
    return tuple(references), tuple(tests)


def read_patch_files(
    files: list[tuple[Path, str, str, bool]], roots: tuple[str, ...]
) -> dict[str, PatchFileFacts]:
    """:func:`file_facts` of every file (``files``: ``(path, relative, module,
    is_package)``), by relative path, read on every core
    (:func:`patchkeeper.runtime.parallel.map_records`)."""
    import marshal

    from patchkeeper.runtime.parallel import map_records

    jobs = [(str(path), module, is_package, roots) for path, _rel, module, is_package in files]
    sizes = [path.stat().st_size if path.is_file() else 0 for path, *_ in files]
    facts = [marshal.loads(data) for _job, data in map_records(file_facts, jobs, sizes)]
    return {relative: fact for (_path, relative, *_), fact in zip(files, facts, strict=True)}


def broken_references(
    files: list[tuple[Path, str, str, bool]],
    trees: tuple[UpstreamTree, UpstreamTree],
    patched: set[str],
    facts: dict[str, PatchFileFacts] | None = None,
) -> list[Finding]:
    """Upstream names the plugin uses that the old release defines and the new one does
    not, a ``breaks-at-import`` or ``breaks-when-called`` finding each, its message
    beginning with the name (``files``: ``(path, relative, module, is_package)``;
    ``patched``: targets the plugin itself installs, which need not exist upstream;
    ``facts``: the files' :func:`read_patch_files`, read here when not given)."""
    old_tree, new_tree = trees
    if facts is None:
        facts = read_patch_files(files, tuple(new_tree.packages))
    references = [
        _Reference(dotted, relative, line, at_import)
        for _path, relative, *_ in files
        for dotted, line, at_import in facts[relative][0]
    ]
    wanted = sorted({r.dotted for r in references} - patched)
    new_tree.prefetch(target_modules(new_tree, wanted))  # parsed on every core
    new = resolve_all(new_tree, wanted, lambda _t: False)
    gone = [t for t in wanted if new[t].status != FOUND]
    old = resolve_all(old_tree, gone, lambda _t: False)
    existed = [t for t in gone if old[t].status == FOUND and not old[t].partial]
    where = resolve_all(new_tree, existed)
    out = []
    seen: set[tuple[str, str]] = set()
    for ref in references:
        if ref.dotted not in where or (ref.dotted, ref.file) in seen:
            continue
        seen.add((ref.dotted, ref.file))
        found = where[ref.dotted]
        moved = f"; now defined at {', '.join(found.candidates[:3])}" if found.candidates else ""
        kind = "breaks-at-import" if ref.at_import else "breaks-when-called"
        when = "at import" if ref.at_import else "when the code using it runs"
        out.append(
            Finding(
                kind,
                ref.file,
                ref.line,
                f"{ref.dotted} is gone from the new upstream: the plugin breaks {when}{moved}",
            )
        )
    return sorted(out, key=lambda f: (f.path, f.line or 0, f.message))


def version_gates(
    files: list[tuple[Path, str, str, bool]],
    versions: tuple[str, str],
    facts: dict[str, PatchFileFacts] | None = None,
) -> tuple[Gate, ...]:
    """Every ``if`` of the patch directory whose test is a version gate decided at either
    release (``facts``: the files' :func:`read_patch_files`, read here when not given)."""
    if facts is None:
        facts = read_patch_files(files, ())
    gates = []
    for _path, relative, *_ in files:
        for line, test in facts[relative][1]:
            before, after = evaluate(test, versions[0]), evaluate(test, versions[1])
            if before is None and after is None:
                continue
            edit = gate_edit(test, before, after, versions[1])
            gates.append(Gate(relative, line, test, before, after, versions_named(test), edit))
    return tuple(sorted(gates, key=lambda g: (g.file, g.line)))
