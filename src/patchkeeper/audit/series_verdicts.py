"""Judge a whole series: every patch in order, then the patches later ones supersede.

A Debian security series often fixes one line twice (CVE-2023-43804 adds ``"Cookie"``,
CVE-2024-37891 then adds ``"Proxy-Authorization"`` to the same line). The first patch no longer
applies to a release that carries both fixes, yet it is upstream: every line it adds that the
new release lacks is rewritten by a later patch that the release carries. When later
upstreamed patches rewrite only some of those lines (Werkzeug's two commits for
CVE-2024-34069: the second drops two lines the first adds), they are left out of the count
and the rest is weighed as any rewrite of a fix upstream is
(:func:`patchkeeper.audit.upstreamed.written_differently`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from patchkeeper.audit.hunk_verdicts import FAILS, creates_file
from patchkeeper.audit.mentions import patch_mentions
from patchkeeper.audit.refresh import moved_refreshed, refreshed
from patchkeeper.audit.rules import Rule
from patchkeeper.audit.shares import file_shares, share_text
from patchkeeper.audit.subject_listed import listed_subject
from patchkeeper.audit.upstreamed import written_differently
from patchkeeper.audit.verdicts import (
    BLOCKED,
    CLEAN,
    CONFLICT,
    LOOK,
    PARTIALLY_UPSTREAMED,
    PORT,
    TARGET_GONE,
    UPSTREAMED,
    FailedPatch,
    PatchVerdict,
    action_of,
    gone_around,
    judge_unfinished,
    mention_text,
    remember_failure,
    with_action,
)
from patchkeeper.series.engine import FileState, Workspace, apply_patch
from patchkeeper.series.model import ADDED, Patch
from patchkeeper.series.substantive_lines import file_index, substantive, substantive_lines
from patchkeeper.upstream.treesearch import TreeSearch


def _names(names: set[str]) -> str:
    ordered = sorted(names)
    noun = "patch" if len(ordered) == 1 else "patches"
    return f"the later {noun} " + ", ".join(ordered)


def _removed_later(patches: Sequence[Patch], start: int, path: str) -> dict[bytes, str]:
    """Substantive lines that patches after ``start`` remove from ``path``: line -> patch."""
    out: dict[bytes, str] = {}
    for later in patches[start + 1 :]:
        for diff in later.files:
            if diff.old_path != path:
                continue
            for hunk in diff.hunks:
                removed = [line.text for line in hunk.lines if line.kind == "-"]
                for line in substantive_lines(removed):
                    out.setdefault(line, later.name)
    return out


def _superseding(
    patches: Sequence[Patch], index: int, verdict: PatchVerdict, ws: Workspace
) -> set[str] | None:
    """The later patches that rewrite every added line of ``verdict``'s failing hunks that the
    new upstream lacks; ``None`` when some such line is rewritten by no later patch."""
    patch = patches[index]
    failing = {(h.path, h.patch_line) for h in verdict.hunks if h.status == FAILS}
    by: set[str] = set()
    for diff in patch.files:
        hunks = [h for h in diff.hunks if (diff.path, h.line_no) in failing]
        if not hunks:
            continue
        state = ws.original(diff.path)
        present = set(substantive_lines(state.lines)) if state is not None else set()
        removed = _removed_later(patches, index, diff.path)
        for hunk in hunks:
            added = substantive_lines(line.text for line in hunk.lines if line.kind == ADDED)
            if not added:
                return None
            for line in added:
                if line in present:
                    continue
                if line not in removed:
                    return None
                by.add(removed[line])
    return by


def _rewritten_later(
    patches: Sequence[Patch], index: int, upstreamed: set[str], ws: Workspace
) -> tuple[dict[str, frozenset[bytes]], set[str]]:
    """The substantive lines that patch ``index`` adds, the new release lacks in that file,
    and a later patch named in ``upstreamed`` removes: ``(path -> lines, those patches)``."""
    out: dict[str, frozenset[bytes]] = {}
    by: set[str] = set()
    for diff in patches[index].files:
        if diff.new_path is None or diff.old_path is None:
            continue
        removed = {
            line: name
            for line, name in _removed_later(patches, index, diff.old_path).items()
            if name in upstreamed
        }
        if not removed:
            continue
        state = ws.original(diff.old_path)
        there = file_index(state.lines) if state is not None else None
        added = substantive_lines(
            line.text for hunk in diff.hunks for line in hunk.lines if line.kind == ADDED
        )
        lines = {line for line in added if line in removed and not (there and there.has(line))}
        if lines:
            out[diff.new_path] = frozenset(lines)
            by.update(removed[line] for line in lines)
    return out, by


def _partly_superseded(
    patches: Sequence[Patch],
    index: int,
    verdict: PatchVerdict,
    by_name: dict[str, PatchVerdict],
    ws: Workspace,
    search: TreeSearch | None,
    pin: TreeSearch | None,
) -> PatchVerdict | None:
    """A conflicting or partly upstreamed patch some of whose added lines later upstreamed
    patches rewrite (the new release cannot have them as this patch wrote them): with those
    lines left out, upstream has the rest written differently
    (:func:`patchkeeper.audit.upstreamed.written_differently`): *upstreamed*; else ``None``."""
    upstreamed = {name for name, v in by_name.items() if v.verdict == UPSTREAMED}
    skip, later = _rewritten_later(patches, index, upstreamed, ws)
    if not skip:
        return None
    shares = file_shares(ws, patches[index], search, pin, skip)
    rewritten = written_differently(shares, verdict.kind, pin_known=pin is not None)
    if rewritten is None:
        return None
    count = sum(len(lines) for lines in skip.values())
    noun = "line" if count == 1 else "lines"
    verb = "rewrites" if len(later) == 1 else "rewrite"
    return replace(
        verdict,
        verdict=UPSTREAMED,
        failures=(),
        shares=shares,
        summary=f"{rewritten}; {count} added {noun} left out: {_names(later)} {verb} "
        "them, and the new upstream carries it",
        rule=Rule.CHAIN,
    )


def resolve_superseded(
    patches: Sequence[Patch],
    verdicts: list[PatchVerdict],
    ws: Workspace,
    search: TreeSearch | None = None,
    pin: TreeSearch | None = None,
) -> list[PatchVerdict]:
    """Re-judge conflicts whose missing lines later patches of the series rewrite.

    A Debian security series often fixes one line twice (CVE-2023-43804 adds ``"Cookie"``,
    CVE-2024-37891 then adds ``"Proxy-Authorization"`` to the same line). When every added
    line of a conflicting hunk is either in the new upstream or rewritten by a later patch,
    and every such later patch is itself upstreamed, the patch is upstreamed (superseded).
    When later upstreamed patches rewrite only some of them, a conflicting or partly
    upstreamed patch is upstreamed when, those lines left out, upstream has the rest
    written differently (:func:`_partly_superseded`; ``search`` and ``pin`` as for
    :func:`judge_series`).
    """
    by_name = {v.name: v for v in verdicts}
    out = list(verdicts)
    for index, verdict in enumerate(verdicts):
        if verdict.verdict not in (CONFLICT, PARTIALLY_UPSTREAMED):
            continue
        later = _superseding(patches, index, verdict, ws) if verdict.verdict == CONFLICT else None
        if not later:
            partly = _partly_superseded(patches, index, verdict, by_name, ws, search, pin)
            if partly is not None:
                out[index] = partly
            continue
        names = _names(later)
        verb = "rewrites" if len(later) == 1 else "rewrite"
        if all(by_name[name].verdict == UPSTREAMED for name in later):
            out[index] = replace(
                verdict,
                verdict=UPSTREAMED,
                failures=(),
                summary=f"superseded: {names} {verb} every line its failing hunks add, and "
                "the new upstream carries it; " + share_text(verdict.shares),
                rule=Rule.CHAIN,
            )
        else:
            out[index] = replace(
                verdict, summary=verdict.summary + f"; {names} {verb} the lines it adds"
            )
    return out


def register_lines(search: TreeSearch, patches: Sequence[Patch]) -> None:
    """Register every substantive line of every hunk with ``search``'s line index, so the
    first question about any of them scans the tree once for all."""
    for patch in patches:
        for diff in patch.files:
            lines = [
                line.text
                for hunk in diff.hunks
                for line in hunk.lines
                if substantive(line.text) is not None
            ]
            if lines:
                search.index.want(lines, diff.path)


def judge_series(
    ws: Workspace,
    patches: Sequence[Patch],
    search: TreeSearch | None,
    pin: TreeSearch | None = None,
    version: str | None = None,
) -> list[PatchVerdict]:
    """Judge every patch in series order on ``ws`` (the new tree, in memory).

    ``pin`` is the old pin's tree, ``version`` the new release's version (see
    :func:`patchkeeper.audit.verdicts.judge_patch`). An empty patch (no diff) is *clean*
    (:func:`empty_verdict`) and the others are judged without it.
    """
    if any(patch.is_empty for patch in patches):
        judged = iter(
            judge_series(ws, [p for p in patches if not p.is_empty], search, pin, version)
        )
        return [empty_verdict(p.name) if p.is_empty else next(judged) for p in patches]
    if search is not None:
        register_lines(search, patches)
    start = ws.snapshot()
    verdicts = _judge_in_order(ws, patches, search, pin, frozenset(), version)
    resolved = resolve_superseded(patches, verdicts, ws, search, pin)
    pending = _superseded_by_failing(patches, verdicts, resolved, ws)
    if pending:
        # the later patches that rewrite these failed because these did: judge again with
        # these taken as upstream, and keep that judgement only when it bears them out
        ws.restore(start)
        again = _judge_in_order(ws, patches, search, pin, pending, version)
        retried = resolve_superseded(patches, again, ws, search, pin)
        if all(
            retried[i].verdict == UPSTREAMED for i, p in enumerate(patches) if p.name in pending
        ):
            resolved = retried
    return [with_action(v) for v in resolved]


#: The evidence for an empty patch of a series (zero bytes, or only a header).
EMPTY_SUMMARY = "the patch holds no diff (zero bytes, or only a header): a no-op on any release"


def empty_verdict(name: str) -> PatchVerdict:
    """The verdict on a patch that holds no diff: *clean*, carried (quilt applies such a
    patch as a no-op, "appears to be empty; applied", and ``quilt new`` writes them)."""
    return with_action(PatchVerdict(name, CLEAN, EMPTY_SUMMARY, rule=Rule.APPLIES))


def _judge_in_order(
    ws: Workspace,
    patches: Sequence[Patch],
    search: TreeSearch | None,
    pin: TreeSearch | None,
    upstream: frozenset[str],
    version: str | None = None,
) -> list[PatchVerdict]:
    """Every patch judged in series order; a failing patch is remembered for *blocked*
    unless its name is in ``upstream`` (taken as upstream: a later patch rewrites it).

    With the old pin's tree, the series is also applied there in step (the base of a
    three-way merge): a *conflict* whose hunks land with the patch's lines unchanged
    (:func:`patchkeeper.audit.refresh.refreshed`) gets that evidence, its merged files go
    into ``ws`` for the later patches, and it is not remembered as failing. A conflict that
    the changelog or the patch's header says upstream has is left to a person (*look*)."""
    failed: list[FailedPatch] = []
    verdicts = []
    created: dict[str, str] = {}  # per file an earlier patch creates, that patch
    old = Workspace(pin.state) if pin is not None else None
    for patch in patches:
        at_pin = _at_pin(old, patch)
        verdict = judge_unfinished(ws, patch, failed, search, pin, version, created)
        for diff in patch.files:
            if creates_file(diff):
                created.setdefault(diff.path, patch.name)
        if verdict.verdict == CONFLICT and not (verdict.mentions or verdict.applied_upstream):
            theirs = {path: ws.get(path) for path in patch.touched_paths}
            before, after = at_pin if at_pin is not None else (None, None)
            fresh, rule = refreshed(patch, before, after, theirs), Rule.REFRESH
            if fresh is None:
                fresh, rule = moved_refreshed(patch, verdict.hunks, ws.get), Rule.REFRESH_MOVED
            if fresh is not None:
                for path, state in fresh.files.items():
                    ws.set(path, state)
                summary = f"{verdict.summary}; {fresh.text}"
                verdict = replace(verdict, summary=summary, refresh=fresh.text, rule=rule)
            elif not verdict.rewritten:
                gone = gone_around(ws, patch, list(verdict.hunks), verdict.kind)
                if gone:
                    summary = f"{verdict.summary}; {gone}"
                    verdict = replace(
                        verdict, summary=summary, rewritten=gone, rule=Rule.GONE_AROUND
                    )
        if (
            verdict.verdict in (CONFLICT, TARGET_GONE, BLOCKED)
            and patch.name not in upstream
            and not verdict.refresh
        ):
            # a failing patch leaves ``ws`` as it was: its hunks that apply are read there
            record = remember_failure(patch, ws)
            if verdict.rule == Rule.SOME_HUNKS_THERE:
                record.partly_upstream = verdict.rewritten
            failed.append(record)
        listed = _with_listed_subject(patch, verdict, search, pin)
        verdicts.append(_with_commit_named(patch, listed, search, pin))
    return verdicts


def _with_commit_named(
    patch: Patch, verdict: PatchVerdict, search: TreeSearch | None, pin: TreeSearch | None
) -> PatchVerdict:
    """``verdict`` made *upstreamed* (rule ``upstream-commit``, to retire after checking)
    when it is a failing patch to look at whose header says it is upstream's commit made
    before the new release (:attr:`PatchVerdict.upstream_commit`: not shown off the pin's
    line of releases), and the new release's changelog names what the patch fixes (its CVE
    id, an upstream issue: :mod:`patchkeeper.audit.mentions`) where the old pin's changelogs
    do not. Each alone leaves a doubt (a commit may be on another line of releases; a
    changelog may name another commit for the same CVE); together they say upstream's
    commit is in the release with the fix, and the code around it changed since. As for
    ``changelog-subject``, the failing patch is still remembered for *blocked*."""
    if search is None or pin is None or not verdict.upstream_commit:
        return verdict
    if verdict.verdict not in (CONFLICT, BLOCKED) or action_of(verdict)[0] != LOOK:
        return verdict
    mentions = verdict.mentions or patch_mentions(patch, search, pin)
    if not mentions:
        return verdict
    named = mention_text(mentions)
    summary = verdict.summary.replace(f"{named}, a reason to look", named)
    if named not in summary:
        summary += f"; {named}"
    return replace(
        verdict,
        verdict=UPSTREAMED,
        summary=summary,
        mentions=mentions,
        rule=Rule.UPSTREAM_COMMIT,
    )


#: The verdicts a listed subject turns into *upstreamed* (when their action is port or look).
_UNSETTLED = (CONFLICT, BLOCKED, TARGET_GONE, PARTIALLY_UPSTREAMED)


def _with_listed_subject(
    patch: Patch, verdict: PatchVerdict, search: TreeSearch | None, pin: TreeSearch | None
) -> PatchVerdict:
    """``verdict`` made *upstreamed* (rule ``changelog-subject``) when it is a patch that
    does not apply, to be ported or looked at, and the new release's changelog lists its
    subject as an item that the old pin's changelogs do not list
    (:mod:`patchkeeper.audit.subject_listed`): upstream's commit of that name is in the
    release, so the backport is upstream however the code around it changed since. A patch
    that applies, or that git's merge refreshes, is left as it is. The failing patch is
    still remembered for *blocked* (its lines are not where the later patches need them)."""
    if search is None or pin is None or verdict.verdict not in _UNSETTLED or verdict.refresh:
        return verdict
    if action_of(verdict)[0] not in (PORT, LOOK):
        return verdict
    listed = listed_subject(patch, search.changelog_text(), pin.changelog_text())
    if listed is None:
        return verdict
    text = (
        f"the new release's changelog lists its subject: {listed.shown()}, "
        "which the old pin's changelogs do not"
    )
    return replace(
        verdict,
        verdict=UPSTREAMED,
        summary=f"{text}; {verdict.summary}",
        rule=Rule.CHANGELOG_SUBJECT,
    )


def _at_pin(
    old: Workspace | None, patch: Patch
) -> tuple[dict[str, FileState | None], dict[str, FileState | None]] | None:
    """Apply ``patch`` on the old pin's workspace ``old``: ``(before, after)``, each path the
    patch touches with its state; ``None`` without a pin or when it does not apply there
    (``old`` then left as it was)."""
    if old is None:
        return None
    paths = patch.touched_paths
    before = {path: old.get(path) for path in paths}
    if not apply_patch(old, patch).ok:
        return None
    return before, {path: old.get(path) for path in paths}


def _superseded_by_failing(
    patches: Sequence[Patch],
    verdicts: list[PatchVerdict],
    resolved: list[PatchVerdict],
    ws: Workspace,
) -> frozenset[str]:
    """The conflicting patches whose failing lines later patches rewrite, where some of those
    later patches are not upstream only because they are *blocked* or *target gone* (they
    may need exactly the lines the conflicting patch adds)."""
    by_name = {v.name: v for v in verdicts}
    out = set()
    for index, verdict in enumerate(resolved):
        if verdict.verdict != CONFLICT:
            continue
        later = _superseding(patches, index, verdict, ws)
        if later and any(by_name[n].verdict in (BLOCKED, TARGET_GONE) for n in later):
            out.add(verdict.name)
    return frozenset(out)
