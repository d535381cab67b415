"""A helper of the plugin's that the new upstream defines and calls itself: upstream took
the patch's change in (part of rule 2 of :mod:`patchkeeper.runtime.judge.judge`).

A replacement that adds behaviour to an upstream function often keeps that behaviour in a
helper of its own and calls it: a wrapper that calls upstream's ``get_groups`` and, when
it raises, falls back to ``_try_full_allocation_groups``. When the new upstream module of
the target defines a function of that very name, which the old module neither defined nor
imported, and the new target calls it where the old one did not, upstream took the
plugin's change in: the patch does again what upstream does now (**remove**, once
upstream's version is checked to cover it).

Every fact is needed:

- the replacement (a function the audit reads) calls the helper by its bare name and its
  module does not import that name from another package (the plugin's own: defined in
  its module, or in a module of the plugin it imports relatively);
- the name is specific: three words or more (``_try_full_allocation_groups``); two
  projects pick a short name (``_setup``, ``get_groups``) apart and meaning different
  things;
- the new upstream target calls the name and the old one did not;
- the new upstream module defines the name as a function and the old module had no such
  name (defined or imported). The old module is the one holding the class the target
  names as well as the one defining the method reached: a method the class inherited at the
  old release (``forward_native`` of ``CustomOp``, defined in ``vllm.model_executor.
  custom_op``) is read in the base's module, but a helper the class's own module already
  had (``get_masked_input_and_mask`` beside ``VocabParallelEmbedding``) is not new upstream:
  the plugin followed upstream there.

Upstream's helper need not be the plugin's line for line (it is upstream's version of
the change): the rule reads that the change moved into upstream, not that the code is
equal, which rule 0 reads.
"""

from __future__ import annotations

import ast
import builtins

from patchkeeper.runtime.judge.drift import REMOVE, Code, Drift, with_decision
from patchkeeper.runtime.lookup.resolve import FOUND, Resolution, resolve
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.syntax.astwalk import calls

#: The fewest words (parts between underscores) of a helper name specific enough to say
#: the change is the plugin's (``_try_full_allocation_groups`` has four).
MIN_WORDS = 3

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def called_names(node: ast.AST | None) -> frozenset[str]:
    """The names ``node`` calls by their bare name (``helper(x)``; not ``obj.helper(x)``);
    empty for ``None``."""
    if node is None:
        return frozenset()
    return frozenset(c.func.id for c in calls(node) if isinstance(c.func, ast.Name))


def specific(name: str) -> bool:
    """Whether ``name`` has :data:`MIN_WORDS` words or more (parts between underscores)."""
    return len([part for part in name.split("_") if part]) >= MIN_WORDS


def own_helpers(mine: Code) -> frozenset[str]:
    """The specific names (:func:`specific`) the replacement ``mine`` calls by their bare
    name that are neither builtins, nor imported by its module from another package, nor
    bound by the scopes around it to an attribute chain (:attr:`Code.outer_aliases`): the
    plugin's own helpers."""
    node = mine.parsed
    if not isinstance(node, _FUNCTIONS):
        return frozenset()
    imported = {name for name, _module in mine.imports}
    # a name bound to upstream's object (``_orig = module.get_groups``) is upstream's
    imported.update(name for name, _chain in mine.outer_aliases)
    return frozenset(
        name
        for name in called_names(node)
        if specific(name)
        and name not in imported
        and name != node.name
        and not hasattr(builtins, name)
    )


def new_in_module(
    name: str, modules: tuple[tuple[str, ...], str], trees: tuple[UpstreamTree, UpstreamTree]
) -> bool:
    """Whether the new module (``modules[1]`` in ``trees[1]``) defines ``name`` as a
    module-level function and none of the old modules (``modules[0]`` in ``trees[0]``) had
    such a name, defined or imported."""
    new_summary = trees[1].summary(modules[1])
    if new_summary is None:
        return False
    found = new_summary.definitions.get(name)
    if found is None or found.kind != "function":
        return False
    for module in modules[0]:
        old_summary = trees[0].summary(module)
        if old_summary is not None and (
            name in old_summary.definitions or name in old_summary.imports
        ):
            return False
    return True


def old_modules(target: str, old: Resolution, tree: UpstreamTree) -> tuple[str, ...]:
    """The old release's modules of ``target`` (``old``: its resolution in the old ``tree``):
    the module defining what was reached, and, when that is a method the class inherits
    (``old.via`` has an ``inherits from`` step), first the module of the class the target
    names."""
    if not any(" inherits from " in step for step in old.via):
        return (old.module,)
    owner = resolve(tree, target.rsplit(".", 1)[0])
    if owner.status != FOUND or owner.partial:
        return (old.module,)
    return tuple(dict.fromkeys((owner.module, old.module)))


def adopted_helpers(
    mine: Code,
    spans: tuple[Code, Code],
    modules: tuple[tuple[str, ...], str],
    trees: tuple[UpstreamTree, UpstreamTree],
) -> tuple[str, ...]:
    """The plugin's helpers (:func:`own_helpers` of the replacement ``mine``) that the new
    upstream target (``spans[1]``) calls and the old one (``spans[0]``) did not, defined
    new in the target's module (:func:`new_in_module`; ``modules``: the target's modules in
    the old tree, :func:`old_modules`, and its module in the new tree), sorted; empty when
    there is none (see the module docstring)."""
    helpers = own_helpers(mine)
    if not helpers:
        return ()
    old_calls, new_calls = (called_names(span.parsed) for span in spans)
    wanted = (helpers & new_calls) - old_calls
    return tuple(sorted(n for n in wanted if new_in_module(n, modules, trees)))


def adopted_reason(
    target: str, modules: tuple[tuple[str, ...], str], names: tuple[str, ...]
) -> str:
    """The evidence of a *remove* for ``names`` (:func:`adopted_helpers`) of the entry
    patching ``target``, whose old modules are ``modules[0]`` (:func:`old_modules`) and new
    upstream module ``modules[1]``: the old modules are named when they are not the new
    one."""
    listed = ", ".join(f"{name}()" for name in names)
    olds, module = modules
    where = "" if olds == (module,) else f" in {' or '.join(olds)}"
    return (
        f"the new upstream {target} calls {listed}, which the replacement calls as the "
        f"plugin's own helper and which {module} defines now (the old release had neither "
        f"the call nor the name{where}): upstream took the patch's change in; remove the "
        "patch once upstream's version is checked to cover it"
    )


def adopted_helper(
    entry: PatchEntry,
    drift: Drift,
    spans: tuple[Code, Code, Code],
    resolved: tuple[Resolution, Resolution],
    trees: tuple[UpstreamTree, UpstreamTree],
) -> Drift | None:
    """``drift`` as *remove* when the new upstream target calls a helper of the plugin's
    that the replacement calls, new in the target's module (:func:`adopted_helpers`;
    ``spans``: the old and new upstream definitions and the replacement; ``resolved``: the
    target in the old and the new tree); ``None`` otherwise."""
    old_code, new_code, mine = spans
    old, new = resolved
    modules = (old_modules(entry.target, old, trees[0]), new.module)
    names = adopted_helpers(mine, (old_code, new_code), modules, trees)
    if not names:
        return None
    return with_decision(drift, REMOVE, adopted_reason(entry.target, modules, names))
