"""Feature probes on the way to an entry: ``if not hasattr(Request, "num_in_flight_tokens"):``.

A plugin that backports an upstream change often guards it with a probe of the feature
instead of a version gate (:mod:`patchkeeper.runtime.syntax.gates`): the patch runs only while
upstream lacks the attribute (``not hasattr(X, "name")``), or only while upstream still has
one (``hasattr(X, "name")``). A probe whose branch is taken at the old release and not at
the new one makes the entry dead code there (the judge's rule 2: *remove*).

A probe is a condition of the entry's activation (:class:`~patchkeeper.runtime.model.
Condition`) whose whole test is ``hasattr(NAME, "attribute")`` or its ``not`` (an ``else``
branch negates it), ``NAME`` an upstream class or module the plugin file imports (its
module-level import table, :func:`patchkeeper.runtime.syntax.names.scope_table`). Python's
``hasattr`` is true for a class when the class, or a base, defines the attribute (a
``def``, a class attribute) or, for an instance attribute the probe of a class cannot see
but a backport's probe means, when the class's source assigns ``self.<attribute>``
(``__init__`` sets it); for a module, when it defines or imports the name. Both trees are
read statically (:func:`patchkeeper.runtime.lookup.resolve.resolve`), never imported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.runtime.judge.drift import upstream_code
from patchkeeper.runtime.judge.named_gates import dead_named_gate
from patchkeeper.runtime.lookup.resolve import FOUND, resolve
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import Condition, PatchEntry
from patchkeeper.runtime.syntax.names import Table, scope_table
from patchkeeper.runtime.syntax.parsing import ParsedFiles

#: The whole test of a probe: ``hasattr(NAME, "attribute")``, perhaps under ``not``.
PROBE = re.compile(
    r"""^(?P<negated>not\s+)?\(?\s*hasattr\(\s*(?P<name>[A-Za-z_][\w.]*)\s*,\s*"""
    r"""(?P<quote>['"])(?P<attribute>\w+)(?P=quote)\s*\)\s*\)?$"""
)


@dataclass(frozen=True)
class Probe:
    """One probe on the way to an entry: the ``condition``, the upstream object probed
    (``dotted``), the ``attribute``, and whether the branch is taken when the attribute is
    missing (``when_missing``: ``not hasattr(...)``, or the ``else`` of ``hasattr(...)``)."""

    condition: Condition
    dotted: str
    attribute: str
    when_missing: bool


def probes(entry: PatchEntry, table: Table) -> list[Probe]:
    """The probes of ``entry``'s activation whose object ``table`` (the plugin file's
    module-level names) binds to a dotted path."""
    activation = entry.activation
    if activation is None:
        return []
    out = []
    for condition in activation.conditions:
        found = PROBE.match(condition.text.strip())
        if found is None:
            continue
        head, _, rest = found["name"].partition(".")
        bound = table.get(head)
        if bound is None:
            continue
        dotted = f"{bound.dotted}.{rest}" if rest else bound.dotted
        # an ``else`` condition's text is already its ``if`` test negated (``not (...)``)
        out.append(Probe(condition, dotted, found["attribute"], bool(found["negated"])))
    return out


def has_attribute(tree: UpstreamTree, dotted: str, attribute: str) -> bool | None:
    """Whether ``hasattr(<dotted>, attribute)`` holds in ``tree`` (see the module
    docstring); ``None`` when ``dotted`` itself is not there (nothing to probe)."""
    owner = resolve(tree, dotted)
    if owner.status != FOUND or owner.partial:
        return None
    found = resolve(tree, f"{dotted}.{attribute}")
    if found.status == FOUND and not found.partial:
        return True
    if owner.definition is None or owner.definition.kind != "class":
        return False
    code = upstream_code(tree, owner)
    assigned = re.compile(rf"\bself\.{re.escape(attribute)}\s*(?::[^=\n]*)?=(?!=)")
    return code is not None and assigned.search("".join(code.lines)) is not None


def dead_probe(
    entry: PatchEntry, table: Table, trees: tuple[UpstreamTree, UpstreamTree], version: str
) -> str:
    """Why the first probe on the way to ``entry`` that lets it run at the old release
    stops it at the new one, as one sentence naming the condition's file and line; ``""``
    when there is none (a probe whose object a tree lacks decides nothing)."""
    for probe in probes(entry, table):
        before = has_attribute(trees[0], probe.dotted, probe.attribute)
        after = has_attribute(trees[1], probe.dotted, probe.attribute)
        if before is None or after is None or before == after:
            continue
        if before == probe.when_missing:
            continue  # the branch was not taken at the old release either
        now = "has" if after else "no longer has"
        where = f"{probe.condition.file}:{probe.condition.line}"
        return (
            f"its feature probe is false at {version or 'the new release'} ({where}: "
            f"{probe.condition.text}): upstream's {probe.dotted} {now} {probe.attribute}, so "
            "the branch the patch is in no longer runs: dead code there"
        )
    return ""


def has_probe(entry: PatchEntry) -> bool:
    """Whether a condition on the way to ``entry`` calls ``hasattr``: a candidate probe."""
    activation = entry.activation
    return activation is not None and any("hasattr(" in c.text for c in activation.conditions)


def probe_tables(modules: ParsedFiles, entries: list[PatchEntry]) -> dict[str, Table]:
    """The module-level names (imports and aliases, also inside module-level ``if``/``try``
    blocks; none when the file does not parse) of each plugin file holding an entry with a
    ``hasattr`` condition (:func:`has_probe`), by file: built once and read by both probe
    rules, the probe that stops a patch (:func:`dead_probes`) and the one that lets it run
    first at the new release (:func:`patchkeeper.runtime.judge.opened_guards.
    opened_guards`)."""
    tables: dict[str, Table] = {}
    for entry in entries:
        if entry.file in tables or not has_probe(entry):
            continue
        module = modules[entry.file]
        package = Path(entry.file).name == "__init__.py"
        tables[entry.file] = (
            {} if module is None else scope_table(module.body, {}, entry.module, package)
        )
    return tables


def dead_probes(
    modules: ParsedFiles,
    tables: dict[str, Table],
    entries: list[PatchEntry],
    trees: tuple[UpstreamTree, UpstreamTree],
    versions: tuple[str, str],
) -> dict[PatchEntry, str]:
    """Per entry on the way to which a feature probe stops running at the new release,
    why (:func:`dead_probe`), or a name bound to a version test does
    (:func:`patchkeeper.runtime.judge.named_gates.dead_named_gate`). ``modules`` are the
    plugin files parsed once for every check that reads them (:class:`ParsedFiles`),
    ``tables`` their names by :func:`probe_tables`."""
    out: dict[PatchEntry, str] = {}
    for entry in entries:
        if entry.activation is None:
            continue
        why = dead_named_gate(modules, entry, versions)
        if not why and entry.file in tables:
            why = dead_probe(entry, tables[entry.file], trees, versions[1])
        if why:
            out[entry] = why
    return out
