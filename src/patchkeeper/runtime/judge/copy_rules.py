"""Rules 7 and 8 of the judging (:mod:`patchkeeper.runtime.judge.judge`): what an upstream
change of the target means for the plugin's copy of it, once no extension point decides (rule 6).
An update that is only noise, that the copy does not carry, that a subclass inherits, that a
forwarding or gated replacement already follows, or that the copy's callers still fit is
*retain*; a *retain* whose replacement passes a keyword upstream dropped, or whose copy missed
an earlier upstream change, is *update*."""

from __future__ import annotations

import ast

from patchkeeper.runtime.judge.drift import RETAIN, UPDATE, Code, Drift, with_decision
from patchkeeper.runtime.judge.dropped_keywords import dropped_keywords
from patchkeeper.runtime.judge.gated_binding import Gated, parameter_shape
from patchkeeper.runtime.judge.inherited import inherited_reason
from patchkeeper.runtime.judge.noise import (
    callers_fit_reason,
    cosmetic_reason,
    forwarded_signature_reason,
    outside_copy_reason,
    removal_only_reason,
    statement_follows_releases,
)
from patchkeeper.runtime.judge.signatures import call_changes
from patchkeeper.runtime.judge.unpassed import for_definition
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import Mechanism, PatchEntry

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def dropped_keyword(drift: Drift, mine: Code, trees: tuple[UpstreamTree, UpstreamTree]) -> Drift:
    """``drift`` (a *retain*) as *update* when the replacement ``mine`` passes a keyword
    to an upstream callable that took it at the old release and does not at the new one
    (:func:`patchkeeper.runtime.judge.dropped_keywords.dropped_keywords`): the call fails
    however unchanged the target is."""
    dropped = dropped_keywords(mine, trees)
    if not dropped:
        return drift
    return with_decision(
        drift,
        UPDATE,
        f"the replacement calls {', '.join(dropped)}, a keyword the new upstream no longer "
        "takes (renamed or dropped): the call fails at the new release; pass what the new "
        "signature takes",
    )


def after_hooks(
    entry: PatchEntry,
    drift: Drift,
    old_code: Code | None,
    new_code: Code | None,
    mine: Code | None,
    header: str,
    lost: frozenset[str] = frozenset(),
    module: str = "",
    unpassed: frozenset[tuple[str, str]] = frozenset(),
    gated: Gated = None,
    ahead: str = "",
) -> Drift:
    """Rules 7 and 8 (see :mod:`patchkeeper.runtime.judge.judge`); ``lost``:
    :func:`patchkeeper.runtime.judge.keywords.lost_names` of the target's ``module`` at the old
    release; ``unpassed``: the parameters upstream added that no upstream call passes
    (:func:`patchkeeper.runtime.judge.unpassed.unpassed_parameters`); ``gated``: see
    :func:`patchkeeper.runtime.judge.judge.judge_pending`; ``ahead``: the version gate on the
    entry's way that is false at the old release and lets it run at the new one, as
    ``"file:line: test"`` (``""`` when none: :func:`new_release_copy_reason`)."""
    if drift.decision == UPDATE and old_code is not None and new_code is not None:
        reason = cosmetic_reason(old_code, new_code, header)
        if reason:
            return with_decision(drift, RETAIN, f"the upstream change is cosmetic: {reason}")
        # only what the copy's module imports from the target's module fails there
        taken = {name for name, source in mine.imports if source == module} if mine else set()
        lost_here = lost if "*" in taken else lost & taken
        inherited = inherited_reason(entry, old_code, new_code, mine, lost_here, unpassed)
        if inherited:
            return with_decision(drift, RETAIN, inherited)
        if inherited is not None:
            return drift  # a subclass overriding what changed: not a copy the rules below read
        # a wrapper copies nothing: what upstream changed in the body reaches it only
        # through the values it works on (signatures.dropped_literals), not through lines
        copy = entry.mechanism is not Mechanism.WRAPPER
        if mine is not None and copy and drift.upstream_changes == ("body",):
            outside = outside_copy_reason(old_code, new_code, mine)
            if outside:
                return with_decision(drift, RETAIN, outside)
            removed = removal_only_reason(old_code, new_code, lost)
            if removed:
                return with_decision(drift, RETAIN, removed)
        changes = drift.upstream_changes
        if mine is not None and any(c.startswith("signature") for c in changes):
            forwarded = forwarded_signature_reason(old_code, new_code, mine)
            if forwarded:
                return with_decision(drift, RETAIN, forwarded)
        follows = _gated_signature_reason(entry, mine, new_code, changes, gated)
        follows = follows or new_release_copy_reason(entry, mine, new_code, changes, ahead)
        if follows:
            return with_decision(drift, RETAIN, follows)
        binding = call_changes(old_code.parsed, new_code.parsed, changes)
        unread = _unread_replacement_reason(entry, mine, binding)
        if unread:
            return with_decision(drift, RETAIN, unread)
        if (
            mine is not None
            and entry.mechanism not in (Mechanism.WRAPPER, Mechanism.SUBCLASS)
            and not statement_follows_releases(entry, mine)
        ):
            own = for_definition(unpassed, getattr(new_code.parsed, "name", ""))
            fits = callers_fit_reason(old_code, new_code, mine, changes, lost_here, own)
            if fits:
                return with_decision(drift, RETAIN, fits)
    if drift.decision == RETAIN and drift.outside_banners:
        return with_decision(
            drift,
            UPDATE,
            f"the copy differs from the old upstream outside its Modification banners "
            f"({len(drift.outside_banners)} line(s)): it missed an earlier upstream change",
        )
    return drift


#: What the scan records for a replacement it cannot name (``module:qualname``): a lambda,
#: or an expression (a function defined inside another one, a call's result).
UNNAMED = {"<lambda>": "a lambda", "<expr>": "an expression"}


def _unread_replacement_reason(
    entry: PatchEntry, mine: Code | None, changes: tuple[str, ...]
) -> str:
    """Why a change of the upstream body alone needs no update of a replacement the audit
    cannot read (:data:`UNNAMED`: a function bound at run time, not a copy it can compare),
    or ``""``. With the same signature and decorators, the calls upstream's callers make
    still fit the replacement, and nothing shows that the replacement copies the body that
    changed: the plugin's own implementation stands (the vllm-ascend maintainers kept 15 of
    17 such entries over six releases, ``benchmarks/runtime_history.py``). A change of the
    signature, the decorators or the kind of definition is not covered: callers changed."""
    what = UNNAMED.get(entry.replacement)
    if mine is not None or what is None or changes != ("body",):
        return ""
    return (
        f"the replacement is {what}, not a copy of upstream's code (nothing to compare), and "
        f"upstream changed only the body of {entry.target} (signature and decorators are "
        "the same: its callers' calls still fit the replacement); read the replacement if "
        "it copies upstream's body"
    )


def _gated_signature_reason(
    entry: PatchEntry,
    mine: Code | None,
    new_code: Code,
    changes: tuple[str, ...],
    gated: Gated,
) -> str:
    """Why a changed upstream signature needs no update of a replacement name the plugin
    binds through a module-level version gate, or ``""``: the branch live at the new release
    binds the name to a function whose parameters (names, kinds, which have defaults) are the
    new upstream's. The plugin wrote that branch for the new release ahead of it: upstream's
    callers bind to it as they do to upstream's function, and the plugin's implementation is
    its own (not one definition the copy rules read). Only a name the audit reads no single
    definition of (``mine`` is ``None``) and a change that includes the signature; a
    decorator or kind-of-definition change is not covered. A gate the upgrade moves makes the
    entry *update* after all (the branch for the old release is to be cut:
    :func:`patchkeeper.runtime.judge.release_branches.gated_branch_update`)."""
    parsed = new_code.parsed
    if gated is None or mine is not None or not isinstance(parsed, _FUNCTIONS):
        return ""
    if not any(c.startswith("signature") for c in changes):
        return ""
    if any(not c.startswith(("signature", "body")) for c in changes):
        return ""
    where, line, shape, _ = gated
    if shape != parameter_shape(parsed.args):
        return ""
    name = entry.replacement.partition(":")[2]
    return (
        f"the replacement {name} is bound by a version gate ({where}:{line}) whose branch live "
        f"at the new release binds it to a function with the new upstream signature of "
        f"{entry.target}: the plugin already follows the change there (its implementation is "
        "its own; read it if it copies upstream's body)"
    )


def new_release_copy_reason(
    entry: PatchEntry,
    mine: Code | None,
    new_code: Code,
    changes: tuple[str, ...],
    ahead: str,
) -> str:
    """Why a changed upstream signature needs no update of a copy the plugin installs only
    from the new release on, or ``""``. ``ahead`` is the version gate on the entry's way that
    is false at the old release and true at the new one (``if not vllm_version_is("0.28.0"):
    utils.f = my_f`` audited from 0.28.0): the patch did not run at the old release, so the
    old upstream it is compared with is not what it was written against. When the copy's
    parameters (names, kinds, which have defaults: :func:`parameter_shape`) are the new
    upstream's, the plugin wrote it for the new release ahead of it, and upstream's callers
    bind to it as they do to upstream's function. Only a function the audit reads
    (``mine``), a function upstream, and a change of the signature and perhaps the body; a
    decorator or kind-of-definition change is not covered, nor a copy whose parameters are
    the old ones (it was not written for the new release)."""
    parsed, copy = new_code.parsed, mine.parsed if mine is not None else None
    if not ahead or not isinstance(parsed, _FUNCTIONS) or not isinstance(copy, _FUNCTIONS):
        return ""
    if not any(c.startswith("signature") for c in changes):
        return ""
    if any(not c.startswith(("signature", "body")) for c in changes):
        return ""
    if parameter_shape(copy.args) != parameter_shape(parsed.args):
        return ""
    name = entry.replacement.partition(":")[2] or entry.replacement
    return (
        f"the patch runs only from the new release on (its version gate {ahead} is false at "
        f"the old release) and the replacement {name} takes the new upstream parameters of "
        f"{entry.target}: the plugin wrote it for the new release ahead of it, and upstream's "
        "callers bind to it (its implementation is its own; read it if it copies upstream's "
        "body)"
    )
