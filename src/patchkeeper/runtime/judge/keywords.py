"""New parameters that reach a copy, if at all, through a ``**mapping`` built at run time
(rule 7 of :mod:`patchkeeper.runtime.judge.judge`): *look*.

When upstream adds parameters with a default to a function the plugin replaces by its own
copy, and the only upstream calls that may pass them pass a ``**mapping`` argument
(``rejection_sample(..., **self._extra_kwargs(x))``), whether the copy, which lacks them,
is ever called with them depends on what the mapping holds at run time: often nothing
unless a feature the plugin does not use is switched on. Saying *update* claims a break the
trees do not show, and *retain* claims there is none: the audit says *look*, naming the
parameters and the call form, and leaves the check to a maintainer.
"""

from __future__ import annotations

import ast

from patchkeeper.runtime.judge.drift import LOOK, Code, Drift, with_decision
from patchkeeper.runtime.judge.noise import (
    callers_fit_reason,
    statement_follows_releases,
    takes_the_calls,
)
from patchkeeper.runtime.judge.unpassed import for_definition, without
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import Mechanism, PatchEntry

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def starred_keywords_reason(
    old: Code,
    new: Code,
    mine: Code,
    changes: tuple[str, ...],
    lost: frozenset[str],
    unpassed: frozenset[str],
    starred: frozenset[str],
) -> str:
    """Why the audit cannot tell whether a function copy ``mine`` needs an update, or ``""``:
    the calls of upstream's new signature bind to the copy once the parameters of
    ``starred`` (added with a default, passed by no upstream call by name or position, but
    perhaps through a ``**mapping``, :func:`patchkeeper.runtime.judge.unpassed.
    starred_parameters`) are left out with those of ``unpassed`` (passed by no call at all),
    and not without leaving them out; and the copy is one whose callers' calls otherwise
    still fit (:func:`patchkeeper.runtime.judge.noise.callers_fit_reason`: no banners, no
    release test of its own, nothing of ``lost`` named). ``changes``: the upstream changes
    of the target (kind/signature/body)."""
    before, after, ours = old.parsed, new.parsed, mine.parsed
    if not starred or not (
        isinstance(before, _FUNCTIONS)
        and isinstance(after, _FUNCTIONS)
        and isinstance(ours, _FUNCTIONS)
    ):
        return ""
    if takes_the_calls(ours, before, without(after, unpassed)):
        return ""  # the calls bind without leaving the starred ones out: not this rule
    if not callers_fit_reason(old, new, mine, changes, lost, unpassed | starred):
        return ""
    listed = ", ".join(sorted(starred))
    return (
        f"upstream added {listed} (with a default) to {after.name}, which the plugin replaces "
        "by its own copy lacking them; no upstream call passes them by name or position, but "
        "a call passes a **mapping that may hold them at run time: the copy breaks only when "
        "it does, which the trees cannot tell; find what fills the mapping (a feature the "
        "plugin may not support) before keeping or updating the copy"
    )


def starred_decision(
    entry: PatchEntry,
    drift: Drift,
    spans: tuple[Code, Code, Code],
    lost: frozenset[str],
    module: str,
    parameters: tuple[frozenset[tuple[str, str]], frozenset[tuple[str, str]]],
) -> Drift:
    """Rule 7's *look* for a function copy whose new upstream parameters only a
    ``**mapping`` may pass (:mod:`patchkeeper.runtime.judge.keywords`); ``drift`` as it is
    otherwise. ``lost``: :func:`lost_names` of the target's ``module`` at the old release;
    ``parameters``: the unpassed and the starred parameters
    (:func:`patchkeeper.runtime.judge.unpassed.starred_parameters`)."""
    old_code, new_code, mine = spans
    unpassed, starred = parameters
    if entry.mechanism in (Mechanism.WRAPPER, Mechanism.SUBCLASS):
        return drift
    if statement_follows_releases(entry, mine):
        return drift
    taken = {name for name, source in mine.imports if source == module}
    lost_here = lost if "*" in taken else lost & taken
    name = getattr(new_code.parsed, "name", "")
    reason = starred_keywords_reason(
        old_code,
        new_code,
        mine,
        drift.upstream_changes,
        lost_here,
        for_definition(unpassed, name),
        for_definition(starred, name),
    )
    return with_decision(drift, LOOK, reason) if reason else drift


def lost_names(
    trees: tuple[UpstreamTree, UpstreamTree], old_module: str, new_module: str
) -> frozenset[str]:
    """The module-level names (definitions and imports) the target's module had at the old
    release and no longer has at the new one: names a copy's kept lines would miss."""
    before, after = trees[0].summary(old_module), trees[1].summary(new_module)
    if before is None or after is None:
        return frozenset()
    had = {n for n in before.definitions if "." not in n} | set(before.imports)
    has = {n for n in after.definitions if "." not in n} | set(after.imports)
    return frozenset(had - has)
