"""Judge every patch of a series against a new upstream tree, with evidence.

The verdicts (DESIGN.md glossary):

- *clean*: applies at fuzz 0 with every hunk where its header says;
- *offset*: applies at fuzz 0, some hunks moved (by how many lines);
- *upstreamed*: the new upstream already has the change: the patch reverse-applies, or every
  hunk's post-image is there (its substantive added lines, in order, in the same file);
- *partially upstreamed*: some hunks are already there and the others still apply;
- *conflict*: a hunk neither applies nor is there (with the closest match and what differs);
- *target gone*: a file the patch modifies no longer exists (with the likely new path);
- *blocked*: it touches a file or lines that an earlier failing patch adds.

Patches are judged in series order on one workspace: a patch that applies (or whose
remaining hunks apply) changes it, so later patches see the earlier ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from patchkeeper.engine import FileState, Workspace, apply_patch
from patchkeeper.evidence import FileFailure, HunkEvidence, failure_evidence, hunk_evidence
from patchkeeper.hunks import HunkFailure, closest_match, first_line, locate, patch_lines
from patchkeeper.model import ADDED, REMOVED, FileDiff, Hunk, Patch
from patchkeeper.substance import added_by_path, file_index, substantive_lines
from patchkeeper.treesearch import MovedFile, TreeSearch, moved_files
from patchkeeper.upstreamed import code_upstream, written_differently

CLEAN = "clean"
OFFSET = "offset"
UPSTREAMED = "upstreamed"
PARTIALLY_UPSTREAMED = "partially upstreamed"
CONFLICT = "conflict"
TARGET_GONE = "target gone"
BLOCKED = "blocked"

#: Verdicts that need no work: the series can move to the new pin as it is.
GOOD = frozenset({CLEAN, OFFSET, UPSTREAMED})

APPLIES = "applies"
PRESENT = "present"
FAILS = "fails"


@dataclass(frozen=True)
class HunkVerdict:
    """One hunk on the new tree.

    Attributes:
        path: the file.
        index: the hunk's number in its file diff.
        header: its ``@@`` line.
        status: ``"applies"``, ``"present"`` (already upstream) or ``"fails"``.
        line: where it applies or where its post-image is (1-based), if found.
        offset: lines away from the header's position, when it applies.
        how: how presence was established (``"reverse-applies"``, ``"added lines found"``).
        evidence: the closest match, when it fails.
    """

    path: str
    index: int
    header: str
    status: str
    line: int | None = None
    offset: int | None = None
    how: str = ""
    evidence: HunkEvidence | None = None


@dataclass(frozen=True)
class FileShare:
    """How many of a file's substantive added lines the new upstream already has.

    Attributes:
        path: the file the patch writes.
        found: how many of its added lines are found.
        total: how many substantive added lines the patch adds there.
        where: the file they were found in (``path`` itself, or where the content moved).
        missing: the added lines not found (normalized), at most five.
    """

    path: str
    found: int
    total: int
    where: str | None
    missing: tuple[str, ...] = ()


@dataclass(frozen=True)
class PatchVerdict:
    """The verdict on one patch, with its evidence.

    Attributes:
        name: the series name.
        verdict: one of the verdict constants.
        summary: the evidence in one sentence.
        hunks: every hunk's status.
        shares: per written file, the added lines the new upstream already has.
        moved: missing files and their likely new paths (*target gone*).
        blocked_by: the earlier failing patch (*blocked*).
        failures: the failing files and hunks with their closest match (*conflict*).
        max_offset: the largest offset of an applied hunk, in lines.
    """

    name: str
    verdict: str
    summary: str
    hunks: tuple[HunkVerdict, ...] = ()
    shares: tuple[FileShare, ...] = ()
    moved: tuple[MovedFile, ...] = ()
    blocked_by: str | None = None
    failures: tuple[FileFailure, ...] = ()
    max_offset: int = 0

    @property
    def share(self) -> tuple[int, int]:
        """``(found, total)`` substantive added lines over all files."""
        return (sum(s.found for s in self.shares), sum(s.total for s in self.shares))


@dataclass
class FailedPatch:
    """What an earlier failing patch would have added, for *blocked*."""

    name: str
    created: set[str] = field(default_factory=set)
    added: dict[str, set[bytes]] = field(default_factory=dict)


def _file_lines(ws: Workspace, path: str | None) -> tuple[bytes, ...] | None:
    if path is None:
        return None
    state = ws.get(path)
    return state.lines if state is not None else None


def _span(hunk: Hunk) -> int:
    """How many lines a hunk's added lines may spread over once reformatted upstream."""
    return max(3 * len(hunk.post_image), len(hunk.post_image) + 20)


def _hunk_status(lines: Sequence[bytes], path: str, hunk: Hunk) -> HunkVerdict:
    """Judge one hunk on its own against a file's lines."""
    where = locate(lines, hunk)
    if where is not None:
        offset = where - first_line(hunk, False)
        return HunkVerdict(path, hunk.index, hunk.header, APPLIES, where, offset)
    where = locate(lines, hunk, reverse=True)
    if where is not None:
        return HunkVerdict(path, hunk.index, hunk.header, PRESENT, where, how="reverse-applies")
    added = substantive_lines(line.text for line in hunk.lines if line.kind == ADDED)
    removed = substantive_lines(line.text for line in hunk.lines if line.kind == REMOVED)
    index = file_index(lines)
    if added:
        positions = index.find_in_order(added, _span(hunk))
        if positions is not None:
            return HunkVerdict(
                path, hunk.index, hunk.header, PRESENT, positions[0] + 1, how="added lines found"
            )
    elif removed and not any(index.has(line) for line in removed):
        return HunkVerdict(path, hunk.index, hunk.header, PRESENT, how="removed lines gone")
    pattern = hunk.pre_image
    guess = first_line(hunk, False)
    failure = HunkFailure(hunk, guess, closest_match(lines, pattern, guess))
    return HunkVerdict(path, hunk.index, hunk.header, FAILS, evidence=hunk_evidence(path, failure))


def _creation_status(ws: Workspace, diff: FileDiff) -> list[HunkVerdict]:
    path = diff.path
    existing = _file_lines(ws, path)
    if not existing:
        return [HunkVerdict(path, h.index, h.header, APPLIES, 1, 0) for h in diff.hunks]
    post = tuple(line for hunk in diff.hunks for line in hunk.post_image)
    status = PRESENT if tuple(existing) == post else FAILS
    how = "the file exists with the same content" if status == PRESENT else ""
    return [HunkVerdict(path, h.index, h.header, status, 1, how=how) for h in diff.hunks]


def hunk_statuses(
    ws: Workspace, patch: Patch, moved: dict[str, str] | None = None
) -> list[HunkVerdict]:
    """Every hunk of ``patch`` judged on its own against ``ws``: against its own file, or
    against the file its content moved to (``moved``: old path -> new path)."""
    moved = moved or {}
    out: list[HunkVerdict] = []
    for diff in patch.files:
        if diff.is_creation or (diff.old_side_empty and ws.get(diff.path) is None):
            out.extend(_creation_status(ws, diff))
            continue
        lines = _file_lines(ws, moved.get(diff.old_path or "", diff.old_path)) or ()
        out.extend(_hunk_status(lines, diff.path, hunk) for hunk in diff.hunks)
    return out


def file_shares(ws: Workspace, patch: Patch, search: TreeSearch | None) -> tuple[FileShare, ...]:
    """Per written file, how many substantive added lines the new upstream (before any
    patch) holds: in the same file, or, when it is gone, in the best file of the tree."""
    shares = []
    for path, added in added_by_path(patch).items():
        state = ws.original(path)
        where: str | None = path
        if state is None and search is not None:
            best = search.best_match(added, path)
            where = best[0] if best else None
            text = search.read(where) if where else b""
            state = FileState.from_bytes(text) if where else None
        index = file_index(state.lines) if state is not None else None
        absent = [line for line in added if index is None or not index.has(line)]
        found = len(added) - len(absent)
        missing = tuple(line.decode("utf-8", "replace") for line in absent[:5])
        shares.append(FileShare(path, found, len(added), where if found else None, missing))
    return tuple(shares)


def _blocker(
    failed: list[FailedPatch], patch: Patch, statuses: list[HunkVerdict], missing: list[FileDiff]
) -> str | None:
    """The earlier failing patch whose files or added lines this one needs, if any."""
    for earlier in failed:
        if any(diff.old_path in earlier.created for diff in missing):
            return earlier.name
    failing = {(s.path, s.index) for s in statuses if s.status == FAILS}
    for diff in patch.files:
        for hunk in diff.hunks:
            if (diff.path, hunk.index) not in failing:
                continue
            needed = set(substantive_lines(hunk.pre_image))
            for earlier in failed:
                if needed & earlier.added.get(diff.old_path or "", set()):
                    return earlier.name
    return None


def remember_failure(patch: Patch) -> FailedPatch:
    """What ``patch`` would have added, kept so later patches that need it are *blocked*."""
    record = FailedPatch(patch.name)
    for diff in patch.files:
        if diff.is_creation:
            record.created.add(diff.path)
    for path, lines in added_by_path(patch).items():
        record.added.setdefault(path, set()).update(lines)
    return record


def _apply_remaining(ws: Workspace, patch: Patch, statuses: list[HunkVerdict]) -> bool:
    """Apply the hunks that still apply (those not already upstream); True on success."""
    applies = {(s.path, s.index) for s in statuses if s.status == APPLIES}
    for diff in patch.files:
        hunks = [h for h in diff.hunks if (diff.path, h.index) in applies]
        if not hunks or diff.is_creation or diff.old_path is None:
            continue
        state = ws.get(diff.old_path)
        if state is None:
            return False
        result = patch_lines(state.lines, hunks)
        if result.lines is None:
            return False
        ws.set(diff.old_path, FileState(tuple(result.lines), state.mode))
    return True


def _refs(statuses: list[HunkVerdict], status: str) -> str:
    return ", ".join(f"{s.path} #{s.index}" for s in statuses if s.status == status)


def _count(statuses: list[HunkVerdict], status: str) -> int:
    return sum(1 for s in statuses if s.status == status)


def share_text(shares: tuple[FileShare, ...]) -> str:
    found = sum(s.found for s in shares)
    total = sum(s.total for s in shares)
    if not total:
        return "it adds no substantive lines"
    best = max(shares, key=lambda s: (s.found / s.total if s.total else 0, s.found))
    where = f" (strongest: {best.path} {best.found}/{best.total}"
    if best.where and best.where != best.path:
        where += f", found in {best.where}"
    return f"{found} of {total} substantive added lines already upstream{where})"


def _upstreamed(
    patch: Patch,
    why: str,
    statuses: list[HunkVerdict],
    shares: tuple[FileShare, ...],
    moved: tuple[MovedFile, ...] = (),
) -> PatchVerdict:
    """An *upstreamed* verdict: ``why``, then how much of its added lines upstream has."""
    return PatchVerdict(
        patch.name, UPSTREAMED, f"{why}; " + share_text(shares), tuple(statuses), shares, moved
    )


def judge_patch(
    ws: Workspace, patch: Patch, failed: list[FailedPatch], search: TreeSearch | None
) -> PatchVerdict:
    """Judge one patch on ``ws`` and update ``ws`` with whatever of it applies."""
    missing = [
        d
        for d in patch.files
        if d.old_path is not None and ws.get(d.old_path) is None and not d.old_side_empty
    ]
    if missing:
        blocker = _blocker(failed, patch, [], missing)
        if blocker:
            return PatchVerdict(
                patch.name,
                BLOCKED,
                f"needs {missing[0].old_path}, which the failing patch {blocker} creates",
                blocked_by=blocker,
            )
        moved = moved_files(missing, search)
        shares = file_shares(ws, patch, search)
        if all(m.likely for m in moved):
            targets = {m.path: m.likely for m in moved if m.likely}
            statuses = hunk_statuses(ws, patch, targets)
            present = code_upstream(statuses)
            if present:
                where = ", ".join(f"{a} moved to {b}" for a, b in targets.items())
                return _upstreamed(patch, f"{where}; there {present}", statuses, shares, moved)
        first = moved[0]
        where = (
            f"; likely moved to {first.likely} ({first.reason}: {first.found} of "
            f"{first.total} context lines found there)"
            if first.likely
            else "; its content was not found elsewhere"
        )
        return PatchVerdict(
            patch.name,
            TARGET_GONE,
            f"{first.path} no longer exists{where}",
            moved=moved,
            shares=shares,
        )
    outcome = apply_patch(ws, patch)
    if outcome.ok:
        statuses = [
            HunkVerdict(o.path, p.hunk.index, p.hunk.header, APPLIES, p.line, p.offset)
            for o in outcome.files
            for p in o.placements
        ]
        if outcome.max_offset == 0:
            return PatchVerdict(
                patch.name, CLEAN, "applies at fuzz 0, every hunk in place", tuple(statuses)
            )
        moved_text = ", ".join(f"{s.path} #{s.index} {s.offset:+d}" for s in statuses if s.offset)
        return PatchVerdict(
            patch.name,
            OFFSET,
            f"applies at fuzz 0; hunks moved: {moved_text}",
            tuple(statuses),
            max_offset=outcome.max_offset,
        )
    shares = file_shares(ws, patch, search)
    reverse = apply_patch(ws, patch, reverse=True, commit=False)
    statuses = hunk_statuses(ws, patch)
    if reverse.ok:
        why = "the patch reverse-applies: the new upstream already has its post-image"
        return _upstreamed(patch, why, statuses, shares)
    if all(s.status == PRESENT for s in statuses):
        why = f"every hunk's post-image is there ({_refs(statuses, PRESENT)})"
        return _upstreamed(patch, why, statuses, shares)
    upstream = code_upstream(statuses) or written_differently(shares)
    if upstream:
        return _upstreamed(patch, upstream, statuses, shares)
    failing = [s for s in statuses if s.status == FAILS]
    if not failing and _apply_remaining(ws, patch, statuses):
        return PatchVerdict(
            patch.name,
            PARTIALLY_UPSTREAMED,
            f"already upstream: {_refs(statuses, PRESENT)}; still to carry: "
            f"{_refs(statuses, APPLIES)}; " + share_text(shares),
            tuple(statuses),
            shares,
        )
    blocker = _blocker(failed, patch, statuses, [])
    if blocker:
        return PatchVerdict(
            patch.name,
            BLOCKED,
            f"{_refs(statuses, FAILS)} {'needs' if _count(statuses, FAILS) == 1 else 'need'} "
            f"lines that the failing patch {blocker} adds",
            tuple(statuses),
            shares,
            blocked_by=blocker,
        )
    failures = failure_evidence(outcome)
    verb = "fails" if _count(statuses, FAILS) == 1 else "fail"
    text = f"{_refs(statuses, FAILS)} {verb} at fuzz 0"
    closest = failing[0].evidence if failing else None
    if closest is not None and closest.closest_line is not None:
        text += (
            f" (closest: {closest.path} line {closest.closest_line}, {closest.matching} of "
            f"{closest.total} lines match)"
        )
    present = _refs(statuses, PRESENT)
    if present:
        text += f"; already upstream: {present}"
    return PatchVerdict(
        patch.name,
        CONFLICT,
        text + "; " + share_text(shares),
        tuple(statuses),
        shares,
        failures=failures,
    )
