"""A replacement equal to the new upstream definition that calls a helper of its own module
under upstream's name (part of rule 0 of :mod:`patchkeeper.runtime.judge.judge`).

The text of a replacement may equal the new upstream definition while it does something
else: a bare call in it reaches the function of that name its own module defines, not
upstream's. A plugin that swaps a kernel keeps upstream's method line for line and defines
``get_masked_input_and_mask`` in its module to call its own operator; upstream's method
calls upstream's ``get_masked_input_and_mask``. The two definitions equal as text say
nothing then: when the plugin module's function of a name the replacement calls differs
from the new upstream module's function of that name (or upstream's module has none), the
patch is not upstream's code, and the trees cannot tell whether upstream's helper does
what the plugin's does: **look**, naming the helpers.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import replace

from patchkeeper.runtime.judge.adopted_helpers import called_names
from patchkeeper.runtime.judge.drift import EQUALS_NEW, LOOK, Code, Drift, with_decision
from patchkeeper.runtime.judge.samecode import same_ast
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _parsed(text: str) -> ast.stmt | None:
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return None
    return tree.body[0] if tree.body else None


def shadowed_helpers(mine: Code, module: str, tree: UpstreamTree) -> tuple[str, ...]:
    """The names the replacement ``mine`` calls by their bare name that its own module
    defines as functions (:attr:`Code.own_functions`) differently from the new upstream
    ``module`` of ``tree`` (a function of another body, or none of that name), sorted;
    empty when there is none."""
    node = mine.parsed
    if not isinstance(node, _FUNCTIONS) or not mine.own_functions:
        return ()
    called = called_names(node) - {node.name}
    summary = tree.summary(module)
    out: list[str] = []
    for name, text in mine.own_functions:
        if name not in called:
            continue
        found = summary.definitions.get(name) if summary is not None else None
        if found is None or found.kind != "function":
            out.append(name)
            continue
        theirs = _parsed("".join(tree.source_lines(module, found.line, found.end_line)))
        ours = _parsed(text)
        if ours is None or theirs is None or not same_ast(ours, theirs, rename=False):
            out.append(name)
    return tuple(sorted(set(out)))


def shadowed_decision(drift: Drift, mine: Code, module: str, tree: UpstreamTree) -> Drift | None:
    """``drift`` (an *equal to the new upstream* remove) as *look* when the replacement
    ``mine`` calls helpers of its own module under names whose new upstream functions
    differ (:func:`shadowed_helpers`; ``module``: the target's module in the new ``tree``);
    ``None`` when it calls none."""
    names = shadowed_helpers(mine, module, tree)
    if not names:
        return None
    listed = ", ".join(f"{name}()" for name in names)
    rest = tuple(e for e in drift.evidence if e != EQUALS_NEW)
    return with_decision(
        replace(drift, evidence=rest),
        LOOK,
        f"the replacement's text equals the new upstream definition, but it calls {listed} "
        f"of its own module, which {module} does not define the same way: the patch runs "
        "the plugin's helper where upstream runs its own; check whether upstream's helper "
        "does what the plugin's does before removing the patch",
    )
