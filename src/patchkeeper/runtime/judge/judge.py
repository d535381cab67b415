"""From the drift of one entry to the decision a careful maintainer takes.

:func:`patchkeeper.runtime.judge.drift.decide` compares the old upstream, the new upstream and the
plugin's replacement. This module adds what that comparison cannot see, in this order (the
first rule that applies decides):

0. the new upstream definition equals the replacement (:data:`~patchkeeper.runtime.judge.
   drift.EQUALS_NEW`) -> **remove**, whatever another rule would say: upstream carries
   the plugin's code itself, so the patch only replaces a function by its equal; but
   **look** when the replacement calls a function of its own module that the new upstream
   module defines otherwise, or not at all (the same text runs the plugin's helper:
   :mod:`patchkeeper.runtime.judge.shadowed_helpers`);
1. *never imported* -> **remove** (or re-enable), naming where the import is missing (a
   patch of another library, outside the audited upstream, that a traced loading does not
   reach: **retain**, the fact said); a
   function of a module the loading reaches that no reached scope calls -> **look** (a user,
   a test or upstream may call it: an ``uninstall()`` that restores a registry; *retain*
   beside a kept running patch of its file on the same target: :mod:`.companions`); when
   the plugin's loading is not declared to the upstream (no entry point in its groups, no
   configured activation, no import by the upstream:
   :mod:`patchkeeper.runtime.inventory.loading`), what its users import cannot be traced:
   **look**, never remove; nor when a computed module name the loading reaches
   (``f"plugin.models.{folder}.{name}"``, its values read at run time) may name the module or
   one that imports it (:data:`~patchkeeper.runtime.inventory.activation.MAYBE`): **look**
   (:mod:`patchkeeper.runtime.judge.never_imported`);
2. a version gate on the entry's activation that is dead at the new release, or a feature
   probe (``not hasattr(Request, "num_in_flight_tokens")``) whose branch ran at the old
   release and does not at the new one (:mod:`patchkeeper.runtime.judge.feature_probes`),
   or a name bound to a version test whose branch ran at the old release and does not at
   the new one (``backports = vllm_version_is("0.26.0")``, then ``if backports:``,
   :mod:`patchkeeper.runtime.judge.named_gates`) -> **remove**;
   the new upstream defines a class the entry's file (or a helper module of the patch
   directory it imports) defines, or a constant the file defines in its target's module
   (upstream took the feature in, :mod:`patchkeeper.runtime.judge.landed`) -> **remove**;
   the new upstream target calls a helper of the plugin's that the replacement calls, which
   the target's module now defines and the old one did not have (upstream took the change
   in, :mod:`patchkeeper.runtime.judge.adopted_helpers`) -> **remove**; a patch said to be
   a backport (its file's header, or the comment above the replacement) one of whose
   statements the new upstream definition runs and the old one did not (for a registry key,
   the function each release registers under it: the backported change landed,
   :mod:`patchkeeper.runtime.judge.backport_landed`) -> **remove**; but every rule that
   concludes upstream took the change in (here, in 3 and in 4) says **look** when the
   entry's file imports, unconditionally, an upstream module the old release lacks: the
   patch was written for a newer release than the old upstream
   (:mod:`patchkeeper.runtime.judge.newer_imports`);
3. a target in neither release -> **look** (a typo or a future name; the same release on both
   sides: **retain**, :func:`.missing.same_release`), unless the patch says ``allow_missing``
   or assigns the name (an assignment or a subclass swap adds it: **retain**), and always when
   neither release has the module or class it belongs to (its owner: the assignment has nothing
   to add the name to, the patch can never apply) unless ``try: ... except ImportError`` guards
   the patch (a future name: **retain**); a target that existed at the old release and is gone
   without a trace -> **look** (dropped, or folded into a caller the plugin must now patch: the
   trees cannot tell, and a wrong removal loses a fix), but **retain** when its module is
   dropped (not moved) and ``try: ... except ImportError`` guards the patch (the guard skips it
   there; it still applies at the releases that have the module); moved or renamed (a private
   name's underscore, a name the module extends: ``FusedMoE`` -> ``FusedMoEFactory``) ->
   **update** (retarget); a name in neither release that the plugin adds to a module the new
   release moved (one module of the same name defines the old one's names) -> **update**
   (retarget to it), or dropped -> **look**; a method its class lost: :mod:`.removed_member`;
   an attribute the plugin adds to an upstream class that the new class sets itself, or a
   backport whose parameters the new upstream target now has (upstream took the change in) ->
   **remove**; the audit then carries that to the other entries of a backport's file
   (:func:`patchkeeper.runtime.judge.landed.spread`);
4. a target new upstream (the old release did not define it, or not under the class found)
   -> **remove** when the patch's header says it is a backport (the change landed), else
   **update** (the patch now replaces upstream's own definition), unless the plugin assigns
   it a literal and upstream another literal: **retain**, the plugin's own value
   (:mod:`patchkeeper.runtime.judge.constant_values`, applied by the judging of the entries);
5. a registry key the new upstream has and the old one had too -> **retain** (the plugin
   overrides upstream's value on purpose); one the new upstream added -> **remove** only when
   upstream registers the plugin's own value under it (the replacement's name is in
   upstream's value), **retain** when upstream registers another value (the plugin's
   registration replaces it), **look** when either value cannot be read; a key a release
   registers through a call or a decorator of the registry
   (:mod:`patchkeeper.runtime.judge.registrations`) counts as one its registry holds, and
   upstream registering the plugin's value only under a condition is **look**;
6. the new upstream target, or a function of its module that calls it, consults an extension
   point the old release did not have (:mod:`patchkeeper.runtime.judge.hooks`; not a caller
   that hands the target itself to a registration, :func:`~patchkeeper.runtime.judge.hooks.
   registers_name`: it registers the plugin's replacement) -> **migrate**, unless the
   replacement is a wrapper that calls the original, whatever its own parameters
   (:func:`~patchkeeper.runtime.judge.calling.calls_original`), or hands its extra arguments
   (``*args, **kwargs``) on to a call (:func:`~patchkeeper.runtime.judge.noise.forwards_extra`):
   it runs upstream's own code, hook and all, so the rules after this one decide (a new
   parameter it neither takes nor passes on keeps it an update);
7. an upstream change that is only noise (:mod:`patchkeeper.runtime.judge.noise`) -> **retain**,
   said to be cosmetic with the reason; a subclass swap whose overridden methods (those of
   its class body and of its ``if``/``try`` blocks) did not change upstream, or changed in
   their body alone while the override calls upstream's (``super().name(...)``) or is the
   plugin's own copy its callers still call the same way (no banners, no version test in
   its module), inherits the change -> **retain**; one that overrides a changed method
   otherwise stays **update** (the copy rules below do not read a subclass); a change of
   the body alone that lies only in code the replacement does not copy, or that only
   removes code lines (the copy keeps doing what the old release did; neither is read for
   a wrapper, which copies no lines), new parameters a replacement forwarding
   ``*args``/``**kwargs`` passes through, or a change of the body alone when the
   replacement is a lambda or an expression the audit cannot read (not a copy) -> **retain**;
   a function copy whose callers' calls still bind to it (upstream changed the body alone,
   or the signature too in a way the copy already takes), when the copy has no Modification
   banners, neither it nor its patch statement tests upstream's release and it imports
   nothing from the target's module that the new release lost
   (:func:`patchkeeper.runtime.judge.noise.callers_fit_reason`) -> **retain**; a
   parameter upstream added with a default counts as not there when no upstream call in
   the target's module or in a module importing it (or its class or module) passes it
   (:mod:`patchkeeper.runtime.judge.unpassed`; for a name the plugin rebinds in a module
   importing it, only the calls that look it up there): the calls bind to a copy, or to a
   subclass's override, that lacks it as they did at the old release; an override whose
   parameters never were upstream's is called the plugin's own way, and upstream's new
   signature reaches none of its calls; new parameters that only a ``**mapping`` built at
   run time may pass to such a copy -> **look** (:mod:`patchkeeper.runtime.judge.keywords`);
   a replacement name a module-level version gate binds, at the new release, to a function
   with the new upstream signature (:mod:`patchkeeper.runtime.judge.gated_binding`) ->
   **retain** (the plugin already follows the change there); so is a function copy the
   plugin installs only from the new release on (a version gate on its way false at the old
   release, none false at the new one) whose parameters are the new upstream's: written
   for the new release ahead of it
   (:func:`patchkeeper.runtime.judge.copy_rules.new_release_copy_reason`);
   a target outside the upstream being upgraded (``torch``, or a name an upstream module imports
   from such a library: :func:`patchkeeper.runtime.lookup.resolve.resolve`) -> **retain** (this
   upgrade does not change it; **look** when only the old module imported it: the patch sets a name
   the new module no longer reads); a *retain* of the rules above whose replacement passes a
   keyword to an upstream callable its module imports by name that took it at the old release and
   does not at the new one (``MLAAttentionSpec(compress_ratio=...)`` after upstream renamed the
   field) -> **update**: the call fails however unchanged the target is
   (:mod:`patchkeeper.runtime.judge.dropped_keywords`); so is one of a changed target whose
   replacement tests upstream's release with a test the upgrade moves, or is a class of its
   own keeping a member of the kind upstream left (:mod:`patchkeeper.runtime.judge.overruled`),
   or is a name its module binds in a module-level version gate the upgrade moves (the
   gated signature above included: the branch for the old release is to be cut;
   :func:`patchkeeper.runtime.judge.release_branches.gated_branch_update`);
8. a full-replacement copy that already differs from the OLD upstream outside its
   Modification banners -> **update** even when this upgrade did not touch the target (the
   copy missed an earlier upstream change).

Rules 3 to 5 and the last two of 7 come from the disagreements with the vllm-ascend
maintainers over six releases (``benchmarks/runtime_history.py``).

After the rules, across entries: a backport upstream took in for one entry takes its file's
others along (:func:`patchkeeper.runtime.judge.landed.spread`); a *retain* of a target the new
release does not define where the plugin says, or of a name both releases bind to the very
definition another entry patches, whose replacement function that entry sets and must
update for its upstream change, is **update** too
(:mod:`patchkeeper.runtime.judge.shared_copies`); a function nothing calls goes with the
running patch of its file (:mod:`patchkeeper.runtime.judge.companions`); a retarget of a
name its module only imported, whose definition another entry patches with the same
replacement, is **remove** (:mod:`patchkeeper.runtime.judge.dropped_imports`); so is a
copy whose only addition is a predicate letting the plugin's class through a type test that
the new upstream widened to a base of that class (:mod:`patchkeeper.runtime.judge.
widened_tests`). A ``functools.partial`` of the original binding a keyword the new release
no longer takes breaks every call: **update**, or **remove** when the new upstream computes
that value itself from the same expression (:mod:`patchkeeper.runtime.judge.bound_keywords`).

The two facts that turn a *remove* into a *look* (a patch written for a newer release, a
replacement equal to upstream's that runs a helper of its own) are read in one place, where
every *remove* of rules 0 to 8 is finalised (:func:`_finalised`). Rules 7 and 8 are taken
in :mod:`patchkeeper.runtime.judge.copy_rules`. The audit remembers each
judgement (:mod:`patchkeeper.runtime.judge.entry_memory`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from patchkeeper.runtime.judge.adopted_helpers import adopted_helper
from patchkeeper.runtime.judge.backport_landed import backport_landed, registered_function
from patchkeeper.runtime.judge.calling import calls_original
from patchkeeper.runtime.judge.copy_rules import after_hooks, dropped_keyword
from patchkeeper.runtime.judge.drift import (
    EQUALS_NEW,
    KEY_IN_NEITHER,
    LOOK,
    MIGRATE,
    NOT_AUDITED,
    REMOVE,
    RETAIN,
    UPDATE,
    Code,
    Drift,
    upstream_code,
    with_decision,
)
from patchkeeper.runtime.judge.gated_binding import Gated
from patchkeeper.runtime.judge.hooks import candidates
from patchkeeper.runtime.judge.keywords import lost_names, starred_decision
from patchkeeper.runtime.judge.landed import BACKPORT, attribute_landed, signature_landed
from patchkeeper.runtime.judge.missing import missing_target
from patchkeeper.runtime.judge.never_imported import never_imported, retained_outside
from patchkeeper.runtime.judge.newer_imports import written_ahead
from patchkeeper.runtime.judge.noise import forwards_extra
from patchkeeper.runtime.judge.overruled import overruled
from patchkeeper.runtime.judge.registry_keys import Registered, registry_key_decision
from patchkeeper.runtime.judge.release_branches import gated_branch_update
from patchkeeper.runtime.judge.removed_member import removed_member
from patchkeeper.runtime.judge.shadowed_helpers import shadowed_decision
from patchkeeper.runtime.judge.unpassed import (
    rebinding_scope,
    starred_parameters,
    unpassed_parameters,
    user_module,
)
from patchkeeper.runtime.lookup.resolve import (
    FOUND,
    MOVED,
    OUTSIDE,
    Resolution,
)
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import ActivationStatus, PatchEntry
from patchkeeper.runtime.syntax.gates import evaluate


def _dead_gate(entry: PatchEntry, new_version: str) -> str:
    """The first version condition on the way to ``entry`` that is false at
    ``new_version``, as ``"file:line: test"``; ``""`` when none."""
    activation = entry.activation
    if activation is None or not new_version:
        return ""
    for condition in activation.conditions:
        # the text is what holds on the branch: an ``else``'s is its ``if`` test negated
        if evaluate(condition.text, new_version) is False:
            return f"{condition.file}:{condition.line}: {condition.text}"
    return ""


def _ahead_gate(entry: PatchEntry, versions: tuple[str, str]) -> str:
    """The first version condition on the way to ``entry`` that is false at the old release
    when none is false at the new one (the patch runs only from the new release on), as
    ``"file:line: test"``; ``""`` otherwise or when a release is unknown."""
    if not versions[0] or not versions[1] or _dead_gate(entry, versions[1]):
        return ""
    return _dead_gate(entry, versions[0])


@dataclass(frozen=True)
class Pending:
    """A judgement that waits for one fact of the old tree (:func:`settle`): whether it
    defines each hook name of ``candidates`` (``(hook name, how it is reached)``: the
    extension points the new target or its callers consult and the old target did not,
    :func:`patchkeeper.runtime.judge.hooks.candidates`). A hook the old release defined nowhere
    makes the entry *migrate* (rule 6, on ``drift``); when the old release defined them
    all, the judgement is ``otherwise`` (the rules after it)."""

    drift: Drift
    candidates: tuple[tuple[str, str], ...]
    otherwise: Drift


@dataclass(frozen=True)
class Case:
    """Everything the judge reads of one entry (:func:`judge_pending`): the entry, its drift,
    its target in both trees, the compared spans and what is read of the entry's file. The
    judgement's memory key is a digest of all but ``trees``, ``spans`` and ``registered``
    (:func:`patchkeeper.runtime.judge.entry_memory.judgement_key`: the trees name the store,
    the drift stands for the spans and the registration).

    Attributes:
        entry: the patch entry, with its activation.
        drift: its drift (:func:`patchkeeper.runtime.judge.drift.decide`, or remembered).
        old, new: its target resolved in the old and the new upstream tree.
        trees: the old and the new upstream tree.
        spans: the old upstream definition, the new one and the replacement
            (:func:`patchkeeper.runtime.judge.drift.codes`; ``None`` where one is not read).
        versions: the old and new upstream versions (``""`` when unknown: gates are then
            not evaluated).
        header: the entry's file's header comment (its ``Note:`` and the rest), read for
            what the patch says it avoids on purpose.
        landed: the features the entry's file carries (its classes and constants, the
            classes of the patch directory's helper modules it imports) that the new
            upstream now defines (:func:`patchkeeper.runtime.judge.landed.landed_features`):
            upstream took the feature in, and the whole file goes (**remove**).
        dead_probe: why a feature probe on the way to the entry stops it at the new release
            (:func:`patchkeeper.runtime.judge.feature_probes.dead_probe`; ``""`` when none):
            dead code there (**remove**).
        gated: what a module-level version gate of the replacement's module binds its name
            to at the new release (:func:`patchkeeper.runtime.judge.gated_binding.
            gated_parameters`; ``None`` when none): a signature the plugin already follows.
        registered: for a registry entry, how the old and the new upstream register its key
            through a call or a decorator (:data:`~patchkeeper.runtime.judge.registry_keys.
            Registered`), read by rule 5.
        newer: the upstream modules the entry's file imports unconditionally (at module
            level or in the function holding the patch) that the old release lacks and the
            new one has (:func:`patchkeeper.runtime.judge.newer_imports.newer_imports`): the
            patch was written for a newer release than the old upstream, and a rule that
            concludes upstream took its change in says **look** instead.
        introduction: the comment lines right above the replacement in its file
            (:func:`patchkeeper.runtime.judge.backport_landed.introduction`), read for a
            backport note; ``""`` when the file says nothing of a backport.
    """

    entry: PatchEntry
    drift: Drift
    old: Resolution
    new: Resolution
    trees: tuple[UpstreamTree, UpstreamTree]
    spans: tuple[Code | None, Code | None, Code | None]
    versions: tuple[str, str]
    header: str = ""
    landed: tuple[str, ...] = ()
    dead_probe: str = ""
    gated: Gated = None
    registered: Registered = (None, None)
    newer: tuple[str, ...] = ()
    introduction: str = ""


def judge(case: Case) -> Drift:
    """The refined :class:`Drift` of one entry (see the module docstring):
    :func:`judge_pending`, settled at once (:func:`settle`)."""
    return settle(judge_pending(case), case.trees[0])


def settle(judged: Drift | Pending, old_tree: UpstreamTree) -> Drift:
    """The judgement of :func:`judge_pending`'s result: a :class:`Drift` as it is; a
    :class:`Pending` one *migrate* when the old tree (:meth:`UpstreamTree.defined`) lacks
    one of its hook names, else its ``otherwise``. (Look the hook names of many entries up
    in one pass first: :meth:`UpstreamTree.find_definitions`.)"""
    if isinstance(judged, Drift):
        return judged
    hooks = [how for name, how in judged.candidates if not old_tree.defined(name)]
    if not hooks:
        return judged.otherwise
    return with_decision(
        judged.drift,
        MIGRATE,
        "the new upstream consults an extension point the old release did not have: "
        + "; ".join(hooks),
    )


def judge_pending(case: Case) -> Drift | Pending:
    """The refined :class:`Drift` of ``case``'s entry (see the module docstring), or, when
    rule 6 has hook names to check, a :class:`Pending` judgement: every rule but that check,
    which reads the whole old tree, is taken here (so that many entries can be judged in
    worker processes and their hook names looked up in the old tree in one pass
    afterwards)."""
    return _finalised(case, _judged(case))


@dataclass(frozen=True)
class TookIn:
    """A *remove* of a rule that concludes upstream took the patch's change in (rules 2 to
    4 of the module docstring: a feature, an attribute, a signature, a helper or a
    backported statement of the patch's that the new upstream has now, or a backport's
    target new upstream), before
    :func:`_finalised` reads whether the patch was written for a newer release."""

    drift: Drift


def _finalised(case: Case, judged: Drift | Pending | TookIn) -> Drift | Pending:
    """``judged`` (:func:`_judged`) with the two facts that turn a *remove* into a *look*:

    - a remove concluding upstream took the change in (:class:`TookIn`) is a *look* when
      the entry's file imports upstream modules the old release lacks: the patch was written
      for a newer release (:func:`~patchkeeper.runtime.judge.newer_imports.written_ahead`);
    - rule 0: a replacement equal to the new upstream definition is a *remove* whatever
      another rule says (one that also says remove keeps its own, more specific, reason
      first), but a *look* when it calls a helper of its own module that the new upstream
      module defines otherwise (:func:`~patchkeeper.runtime.judge.shadowed_helpers.
      shadowed_decision`)."""
    if isinstance(judged, TookIn):
        judged = written_ahead(judged.drift, case.newer)
    drift = case.drift
    # Upstream has the replacement itself: nothing outweighs that.
    equal = drift.decision == REMOVE and drift.evidence[:1] == (EQUALS_NEW,)
    if not equal:
        return judged
    mine = case.spans[2]
    if mine is not None and case.new.status == FOUND:
        # equal text that calls the plugin module's own helper is not upstream's code
        shadowed = shadowed_decision(drift, mine, case.new.module, case.trees[1])
        if shadowed is not None:
            return shadowed
    if isinstance(judged, Pending) or judged.decision != REMOVE:
        return drift
    return judged


def _judged(case: Case) -> Drift | Pending | TookIn:
    """Rules 1 to 8 of the module docstring (:func:`_finalised` then reads rule 0 and
    whether the patch was written for a newer release)."""
    entry, drift, old, new, trees = case.entry, case.drift, case.old, case.new, case.trees
    spans, versions, header = case.spans, case.versions, case.header
    activation = entry.activation
    if activation is not None and activation.status is ActivationStatus.NEVER:
        return never_imported(entry, activation, drift)
    gate = _dead_gate(entry, versions[1])
    if gate:
        return with_decision(
            drift, REMOVE, f"its version gate is false at {versions[1]} ({gate}): dead code there"
        )
    if case.dead_probe:
        return with_decision(drift, REMOVE, case.dead_probe)
    if case.landed:
        listed = ", ".join(case.landed)
        took = with_decision(
            drift,
            REMOVE,
            f"the new upstream defines {listed}, which the patch's file carries (defined in "
            "it or in a helper module of the patch directory it imports) and the old release "
            "did not have: upstream took the feature in; remove the file's patches once "
            "upstream's version is checked to cover them",
        )
        return TookIn(took)
    if drift.decision == NOT_AUDITED:
        # another library's name, or one an upstream module imports from it (``via``)
        return retained_outside(drift, entry.target, f" ({new.via[-1]})" if new.via else "")
    if entry.replacement == "<removed>" and entry.key is not None and new.status == FOUND:
        return _removal(entry, drift, new)
    if new.status != FOUND and old.status == OUTSIDE and old.via:
        # the old module imported the name from another library, the new one does not bind
        # it: the patch sets a name that module's code no longer reads
        return with_decision(
            drift,
            LOOK,
            f"{entry.target}: at the old release {old.via[-1]}, another library's object; "
            f"the new release no longer binds it in {old.module}, so the patch sets a name "
            "that module no longer reads",
        )
    if new.status != FOUND:
        return missing_target(entry, drift, old, new, trees, versions)
    if (removed := removed_member(entry, drift, old, new, trees, versions[1])) is not None:
        return removed
    if new.partial and old.partial == new.partial:
        pair = (upstream_code(trees[0], old), upstream_code(trees[1], new))
        attribute = attribute_landed(new.partial, *pair)
        if attribute:
            return TookIn(with_decision(drift, REMOVE, attribute))
    if old.status != FOUND or (old.partial and not new.partial):
        return _arrived(entry, drift, old, new, header)
    old_code, new_code, mine = spans
    if drift.decision == UPDATE and old_code and new_code and mine:
        signature = signature_landed(old_code, new_code, mine, header)
        if signature:
            return TookIn(with_decision(drift, REMOVE, signature))
    if old_code and new_code and mine:
        adopted = adopted_helper(entry, drift, (old_code, new_code, mine), (old, new), trees)
        if adopted is not None:
            return TookIn(adopted)
    backported = _backport(case)
    if backported is not None:
        return TookIn(backported)
    if drift.decision == REMOVE and entry.key is not None:
        kept = registry_key_decision(entry, old.location, old_code, new_code, case.registered)
        if kept:
            return with_decision(drift, *kept)
    found = candidates(new, trees[1], old_code, new_code)
    lost = lost_names(trees, old.module, new.module)
    unpassed: frozenset[tuple[str, str]] = frozenset()
    starred: frozenset[tuple[str, str]] = frozenset()
    if drift.decision == UPDATE and old_code is not None and new_code is not None:
        modules = (new.module, user_module(trees[1], entry.target))
        names = (new.module.rsplit(".", 1)[-1], *new.qualname.split("."))
        rebound = rebinding_scope(trees[1], entry.target, new.module)
        unpassed = unpassed_parameters(trees[1], modules, old_code, new_code, names, rebound)
        starred = starred_parameters(trees[1], modules, old_code, new_code, names, rebound)
    ahead = _ahead_gate(entry, versions)
    otherwise = after_hooks(
        entry,
        drift,
        old_code,
        new_code,
        mine,
        header,
        lost,
        old.module,
        unpassed,
        case.gated,
        ahead,
    )
    if otherwise is drift and starred and old_code and new_code and mine:
        spans_read = (old_code, new_code, mine)
        otherwise = starred_decision(
            entry, drift, spans_read, lost, old.module, (unpassed, starred)
        )
    if otherwise.decision == RETAIN and mine is not None:
        otherwise = overruled(entry, dropped_keyword(otherwise, mine, trees), spans, versions)
    elif mine is None:
        otherwise = gated_branch_update(otherwise, case.gated, versions)
    if found and mine is not None and (forwards_extra(mine.parsed) or calls_original(entry, mine)):
        # a wrapper that calls the original runs upstream's own code, hooks and all: the
        # new extension point is consulted through it, nothing of it is replaced
        return otherwise
    return Pending(drift, tuple(found.items()), otherwise) if found else otherwise


def _backport(case: Case) -> Drift | None:
    """The *remove* of :func:`~patchkeeper.runtime.judge.backport_landed.backport_landed`
    for ``case``: the target's definitions compared, or for a registry key the functions
    each release registers under it; ``None`` when it does not apply."""
    old_code, new_code, mine = case.spans
    where = case.new.location
    if case.entry.key is not None:
        old_code = registered_function(case.trees[0], case.registered[0])
        new_code = registered_function(case.trees[1], case.registered[1])
        where = new_code.name if new_code is not None else ""
    notes = (case.header, case.introduction)
    return backport_landed(case.drift, (old_code, new_code, mine), notes, where)


def _arrived(
    entry: PatchEntry, drift: Drift, old: Resolution, new: Resolution, header: str
) -> Drift | TookIn:
    """A target the old release did not define at that path (not at all, or not under the
    class found) and the new one does: the patch was written ahead of upstream and now
    replaces upstream's own definition. When the header says the patch is a backport, the
    backported change has landed: *remove*; otherwise the maintainers must read it against
    upstream's: *update*. (The evidence says where the old release had the name, if
    anywhere; the *remove* is a :class:`TookIn`.)"""
    if old.status == MOVED and old.candidates:
        where = f"the old release defined it elsewhere: {', '.join(old.candidates[:2])}"
        return with_decision(
            drift,
            UPDATE,
            f"{entry.target} moved to the patch's path in the new upstream ({where}): "
            "review the patch against upstream's definition there",
        )
    if BACKPORT.search(header):
        return TookIn(
            with_decision(
                drift,
                REMOVE,
                f"the patch's header says it is a backport, and {entry.target} is new upstream "
                f"at {new.location} (the old release did not have it): the backported change "
                "has landed; remove the patch once upstream's version is checked to do the same",
            )
        )
    return with_decision(
        drift,
        UPDATE,
        f"{entry.target} is new upstream at {new.location} (the old release did not have "
        "it): the patch now replaces upstream's own definition; review it against upstream's "
        "(remove it if it was a backport of that change)",
    )


def _removal(entry: PatchEntry, drift: Drift, new: Resolution) -> Drift:
    """A registry key the plugin deletes: still needed while upstream still has the key;
    one that neither release's definition has is put there at run time (the plugin's own
    lazy registration, a cache), and the upgrade changes nothing: *retain*, as the drift
    says. Only a key the old release had and the new one dropped leaves nothing to remove."""
    if not re.match(r"""^(['"]).*\1$|^-?\d+$""", entry.key or ""):
        return with_decision(
            drift,
            RETAIN,
            f"the key {entry.key} is computed at run time: the removal cannot be checked here",
        )
    if drift.evidence[:1] and drift.evidence[0].startswith(KEY_IN_NEITHER):
        return drift  # the old release had no such key either: the upgrade changes nothing
    if drift.decision == REMOVE:  # drift found the key in the new upstream definition
        return with_decision(
            drift,
            RETAIN,
            f"the new upstream {new.location} still has the key {entry.key}: the plugin's "
            "removal of it is still needed",
        )
    return with_decision(
        drift,
        REMOVE,
        f"the new upstream {new.location} no longer has the key {entry.key}: nothing to remove",
    )
