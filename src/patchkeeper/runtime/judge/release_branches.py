"""A replacement that holds a branch per upstream release, at an upgrade that moves its branch.

A plugin that supports two upstream releases at once writes the difference into its
replacement's own code: ``if vllm_version_is("0.28.0") or not packed(groups): return
original(config, groups)``, ``x if vllm_version_is("0.28.0") else y``. When upstream changes
the target at the upgrade and such a test in the replacement is decided at both releases
with different outcomes (:func:`~patchkeeper.runtime.syntax.gates.evaluate`: true at the
old release and false at the new one, or the other way), the replacement was written for
this very upgrade: its branch for the new release follows upstream's change, and its branch
for the old release is dead once the plugin moves. The maintainers cut it and read the live
one against upstream's change: an *update*, whatever a rule that reads the upstream change
alone says (a wrapper that calls the original, a change outside the copied lines).

Over six vllm-ascend releases and the other development plugins of
``benchmarks/runtime_history.py``, the maintainers updated all 13 entries whose target
upstream changed and whose replacement held such a test; where upstream left the target
unchanged they kept all 8 (the test concerns other code, the cut waits): a replacement of
an unchanged target is not read here.

The same holds for a replacement name its module binds per release in a module-level gate
(``if vllm_version_is("0.28.0"): categorical_sample = _legacy`` ``else: ...``), wherever in
the plugin that module is: the audit reads no single definition of such a name, but the
gate that binds it at the new release is read (:mod:`patchkeeper.runtime.judge.gated_binding`)
and, when the upgrade moves it, the branch for the old release is dead: *update*
(:func:`gated_branch_update`). The vllm-ascend maintainers cut such a gate at the upgrade
that moved it for all 4 entries whose target upstream changed.
"""

from __future__ import annotations

import ast
from typing import cast

from patchkeeper.runtime.judge.drift import RETAIN, UPDATE, Code, Drift, with_decision
from patchkeeper.runtime.judge.gated_binding import Gated
from patchkeeper.runtime.syntax.astwalk import of_kinds
from patchkeeper.runtime.syntax.gates import moves

#: The nodes whose test is read (an ``if`` statement, a conditional expression).
_TESTS = frozenset({ast.If, ast.IfExp})


def moving_gates(mine: Code, versions: tuple[str, str]) -> tuple[str, ...]:
    """``"file:line: test"`` of each ``if``/conditional expression in the replacement
    ``mine`` whose test (or a part of it) is decided at the old and the new release of
    ``versions`` with different outcomes (:func:`patchkeeper.runtime.syntax.gates.moves`),
    in source order; empty when none, when a version is unknown (``""``) or the
    replacement does not parse."""
    node = mine.parsed
    if node is None or not all(versions):
        return ()
    tests = [cast(ast.If | ast.IfExp, found) for found in of_kinds(node, _TESTS)]
    found = sorted(
        (test.lineno, ast.unparse(test.test)) for test in tests if moves(test.test, versions)
    )
    return tuple(f"{mine.name}:{mine.start + line - 1}: {text}" for line, text in found)


def release_branch_update(drift: Drift, mine: Code | None, versions: tuple[str, str]) -> Drift:
    """``drift`` as *update* when it is a *retain* of a target upstream changed
    (:attr:`Drift.upstream_changes`) whose replacement ``mine`` holds a test of upstream's
    release that the upgrade ``versions`` (old, new) moves (:func:`moving_gates`); else
    ``drift`` as it is (see the module docstring)."""
    if drift.decision != RETAIN or not drift.upstream_changes or mine is None:
        return drift
    gates = moving_gates(mine, versions)
    if not gates:
        return drift
    old, new = versions
    kinds = ", ".join(dict.fromkeys(c.split(":", 1)[0] for c in drift.upstream_changes))
    listed = "; ".join(gates[:3]) + (f" and {len(gates) - 3} more" if len(gates) > 3 else "")
    return with_decision(
        drift,
        UPDATE,
        f"upstream changed the target ({kinds}) and the "
        f"replacement tests upstream's release in its own code, a test whose outcome "
        f"differs at {old} and {new} ({listed}): it was written for this upgrade; cut the "
        f"branch for {old} and read the one left against upstream's change",
    )


def gated_branch_update(drift: Drift, gated: Gated, versions: tuple[str, str]) -> Drift:
    """``drift`` as *update* when it is a *retain* of a target upstream changed
    (:attr:`Drift.upstream_changes`) whose replacement name a module-level version gate binds
    (``gated``: :data:`patchkeeper.runtime.judge.gated_binding.Gated`) and the upgrade
    ``versions`` (old, new) moves that gate; else ``drift`` as it is (see the module
    docstring)."""
    if drift.decision != RETAIN or not drift.upstream_changes or gated is None or not gated[3]:
        return drift
    where, line, _, test = gated
    old, new = versions
    kinds = ", ".join(dict.fromkeys(c.split(":", 1)[0] for c in drift.upstream_changes))
    return with_decision(
        drift,
        UPDATE,
        f"upstream changed the target ({kinds}) and the replacement's module binds it in a "
        f"version gate whose outcome differs at {old} and {new} ({where}:{line}: {test}): "
        f"it was written for this upgrade; cut the branch for {old} and read the one left "
        "against upstream's change",
    )
