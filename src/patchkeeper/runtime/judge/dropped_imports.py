"""A patch of a name its module only imported, once the module stops importing it.

A plugin that patches a function everywhere it is read sets it on the module that defines
it and on each module that imported it by name (``eagle_utils._should_share = mine`` and
``dspark_utils._should_share = mine``, where the old ``dspark/utils.py`` did ``from
...eagle.utils import _should_share``). When the new release's ``dspark/utils.py`` no longer
binds the name at module level (it imports it inside the function that uses it, or not at
all), the lookup finds the name at its definition and calls the target *moved* there; the
retarget it suggests is the very place another entry of the plugin already patches with the
same replacement. That entry covers every reader (a function-level import reads the
definition's module at call time), so this one sets a name nothing reads any more:
*remove*, naming the entry that covers it.

The facts read: the old release found the target by following the module's import to a
definition elsewhere (its location is not the target's path), the new release calls it
moved to that same definition, and another entry's target is that definition itself, found
there in the new release, with the same replacement (an entry that sets the name on yet
another module that imported it, ``sampler.gumbel_sample = mine``, rebinds that module's
name alone and covers no other reader), one the plugin defines (a function or class
of its own: an expression or a lambda is not compared). Without such an entry the rules
before decide (a retarget; where the name's readers went the trees cannot tell); so they do
when the module now binds a name extending the old one (``bind_kv_cache`` ->
``bind_kv_cache_to_layers``): its readers read the renamed function, which the patch must
follow (*update*).

When no entry covers it and the new module does not name it at all (no import of it, in a
function or at its top, no use: ``dspark/utils.py`` stopped calling ``get_pp_group``), the
module's code no longer reads the name, while its definition stays where the old module
imported it from: the patch sets a name nothing reads there, and a retarget to the definition
would reach every module that uses it, not this one's readers alone. The trees cannot tell
what replaced the use: *look*, never *remove* (the plugin may still need its change where the
code went).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from patchkeeper.runtime.judge.drift import LOOK, REMOVE, UPDATE, Drift
from patchkeeper.runtime.lookup.resolve import FOUND, MOVED, Resolution
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import PatchEntry

#: Replacements that are not one definition of the plugin's (never compared).
UNNAMED = ("<expr>", "<lambda>", "<removed>")


def _moved_to(resolution: Resolution) -> tuple[str, ...]:
    """The dotted paths a *moved* resolution names (its candidates without their lines)."""
    return tuple(candidate.split(" (", 1)[0] for candidate in resolution.candidates)


def unnamed_there(entry: PatchEntry, tree: UpstreamTree) -> bool:
    """Whether the module of ``entry``'s target exists in ``tree`` and its code names the
    target's last part nowhere: no import of it (at its top or in a function), no name or
    attribute of it (a module that cannot be parsed, or a target that is no module-level name
    of a module of the tree, is not said to)."""
    module, _, name = entry.target.rpartition(".")
    if entry.key is not None or not module or tree.module_file(module) is None:
        return False
    try:
        parsed = ast.parse(tree.source_text(module))
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(parsed):
        if isinstance(node, ast.Name) and node.id == name:
            return False
        if isinstance(node, ast.Attribute) and node.attr == name:
            return False
        if isinstance(node, ast.alias) and name in (node.name.rpartition(".")[2], node.asname):
            return False
    return True


def covered_elsewhere(
    audited: list[tuple[PatchEntry, Resolution, Resolution, Drift]],
    renamed: frozenset[PatchEntry] = frozenset(),
    unnamed: frozenset[PatchEntry] = frozenset(),
) -> list[Drift]:
    """The drift of each ``(entry, old resolution, new resolution, drift)``: *remove* for an
    *update* (retarget) of a name its module only imported at the old release and no longer
    binds at the new one, when another entry already patches the definition it imported
    with the same replacement (see the module docstring); every other drift as it is.
    ``renamed``: entries whose module now binds a new name for theirs (a name extending it,
    :func:`patchkeeper.runtime.judge.missing.renamed_to`): its readers read that name now,
    which the patch must follow, so the entry is no leftover. ``unnamed``: entries whose
    module the new release still has but no longer names theirs (:func:`unnamed_there`):
    uncovered, such an *update* (retarget) is a *look* (see the module docstring)."""
    patched: dict[tuple[str, str], PatchEntry] = {}
    for entry, _old, new, _drift in audited:
        if (
            new.status == FOUND
            and new.location == entry.target
            and entry.replacement not in UNNAMED
            and entry.key is None
        ):
            # Only a patch of the definition itself covers its readers: one of another
            # module that imported it (``sampler.gumbel_sample = mine``) rebinds that
            # module's name alone, and every other reader still gets upstream's function.
            patched.setdefault((new.location, entry.replacement), entry)
    out = []
    for entry, old, new, drift in audited:
        source = old.location if old.status == FOUND else ""
        covering = patched.get((source, entry.replacement))
        if (
            drift.decision != UPDATE
            or new.status != MOVED
            or not source
            or source == entry.target
            or source not in _moved_to(new)
            or entry in renamed
        ):
            out.append(drift)
            continue
        if covering is None or covering is entry:
            if entry not in unnamed:
                out.append(drift)
                continue
            module, _, name = entry.target.rpartition(".")
            reason = (
                f"{entry.target} no longer binds {name} at the new release (the old module "
                f"imported it from {source}, which the new release still defines there), and "
                f"{module} names it nowhere now: its code no longer reads the name, so the "
                f"patch sets a name nothing reads there; a retarget to {source} would reach "
                "every module that uses it, not this one's readers alone: find what the "
                "module does now before retargeting or removing the patch"
            )
            evidence = (reason, *(e for e in drift.evidence if e != reason))
            out.append(replace(drift, decision=LOOK, evidence=evidence))
            continue
        reason = (
            f"{entry.target} no longer binds {source.rsplit('.', 1)[-1]} at the new release "
            f"(the old module imported it from {source}): nothing reads the name there; "
            f"{covering.file}:{covering.line} already patches {source} with the same "
            "replacement, which every reader of the name reaches: this patch is a leftover"
        )
        evidence = (reason, *(e for e in drift.evidence if e != reason))
        out.append(replace(drift, decision=REMOVE, evidence=evidence))
    return out
