"""Judge every patch of a series against a new upstream tree, with evidence.

The verdicts (DESIGN.md glossary):

- *clean*: applies at fuzz 0 with every hunk where its header says;
- *offset*: applies at fuzz 0, some hunks moved (by how many lines);
- *upstreamed*: the new upstream already has the change: the patch reverse-applies, every
  hunk's post-image is there (its substantive added lines, in order, in the same file), or
  upstream wrote it differently (most of the lines it adds that the old pin lacks are in the
  new release, the differing ones named; :mod:`patchkeeper.upstreamed`);
- *partially upstreamed*: some hunks are already there and the others still apply, or most
  (not enough) of its new lines are there;
- *conflict*: a hunk neither applies nor is there (with the closest match and what differs,
  and where else in the new tree its context is);
- *target gone*: a file the patch modifies no longer exists (with the likely new path);
- *blocked*: it needs a file or lines that an earlier failing patch adds.

Every verdict says what to do (:data:`ACTIONS`): *retire* (upstream has it), *carry* (it
applies), *port* (rework it onto the new release), *look* (the evidence is mixed; a person
decides), in :attr:`PatchVerdict.action` and at the end of the summary.

Files are weighed by kind (:mod:`patchkeeper.filekinds`): release notes never decide a
verdict, a tests-only patch is judged on its tests, configuration is not code.

Patches are judged in series order on one workspace: a patch that applies (or whose
remaining hunks apply) changes it, so later patches see the earlier ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher

from patchkeeper.engine import (
    EXISTS,
    FileOutcome,
    FileState,
    PatchOutcome,
    Workspace,
    apply_patch,
)
from patchkeeper.evidence import FileFailure, HunkEvidence, failure_evidence, hunk_evidence
from patchkeeper.filekinds import CODE, CONFIG, NOTES, kind_of, primary_kind
from patchkeeper.hunks import HunkFailure, closest_match, first_line, locate, patch_lines
from patchkeeper.mentions import Mention, new_mentions, references
from patchkeeper.model import ADDED, REMOVED, FileDiff, Hunk, Patch
from patchkeeper.substance import (
    added_by_path,
    file_index,
    substantive,
    substantive_lines,
    tokens,
)
from patchkeeper.treesearch import MovedFile, TreeSearch, moved_files
from patchkeeper.upstreamed import code_upstream, decides, mostly_there, written_differently

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

RETIRE = "retire"
CARRY = "carry"
PORT = "port"
LOOK = "look"
#: What a maintainer does with a patch, by the verdict's evidence.
ACTIONS = (RETIRE, CARRY, PORT, LOOK)

#: A hunk whose pre-image is this close to another file of the new tree was moved there
#: (at least this many substantive context/removed lines, and at least half of them).
MIN_MOVED_LINES = 2


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
        moved_to: another file of the new tree that holds the hunk's context (the code moved
            there while the old file stayed), or ``None``.
        moved_line: the 1-based line there where the context starts, when it applies there.
        moved_found: how many of the hunk's substantive context/removed lines ``moved_to``
            holds, of ``moved_total``.
        moved_total: how many there are.
    """

    path: str
    index: int
    header: str
    status: str
    line: int | None = None
    offset: int | None = None
    how: str = ""
    evidence: HunkEvidence | None = None
    moved_to: str | None = None
    moved_line: int | None = None
    moved_found: int = 0
    moved_total: int = 0


@dataclass(frozen=True)
class FileShare:
    """How many of a file's substantive added lines the new upstream already has.

    Attributes:
        path: the file the patch writes.
        found: how many of its added lines are found.
        total: how many substantive added lines the patch adds there.
        where: the file they were found in (``path`` itself, or where the content moved).
        missing: the added lines not found (normalized), at most five.
        kind: the file's kind (:func:`patchkeeper.filekinds.kind_of`).
        at_pin: added lines the old pin already has in this file (no evidence either way),
            or ``None`` when the pin's tree is not known.
        new_found: of the lines the pin lacks, how many the new release has (in this file,
            where it moved, or in another file that the pin lacked them in); ``None``
            without the pin's tree.
        new_total: how many added lines the pin lacks; ``None`` without the pin's tree.
        respelled: added lines counted in ``new_found`` because the new release has a line
            spelled differently (:func:`respelled_as`), with that line, at most five.
    """

    path: str
    found: int
    total: int
    where: str | None
    missing: tuple[str, ...] = ()
    kind: str = CODE
    at_pin: int | None = None
    new_found: int | None = None
    new_total: int | None = None
    respelled: tuple[tuple[str, str], ...] = ()

    @property
    def counted(self) -> tuple[int, int]:
        """``(found, total)`` of the lines that count: those the pin lacks when it is known."""
        if self.new_total is not None and self.new_found is not None:
            return self.new_found, self.new_total
        return self.found, self.total


@dataclass(frozen=True)
class PatchVerdict:
    """The verdict on one patch, with its evidence.

    Attributes:
        name: the series name.
        verdict: one of the verdict constants.
        summary: the evidence in one sentence, ending with what to do.
        hunks: every hunk's status.
        shares: per written file, the added lines the new upstream already has.
        moved: missing files and their likely new paths (*target gone*).
        blocked_by: the earlier failing patch (*blocked*).
        failures: the failing files and hunks with their closest match (*conflict*).
        max_offset: the largest offset of an applied hunk, in lines.
        action: what to do (:data:`ACTIONS`).
        kind: the kind of file that decided the verdict (``"code"``, ``"tests"`` for a
            tests-only patch, ...; :mod:`patchkeeper.filekinds`).
        mentions: lines of the new release's changelog that name the patch's CVE id, bug
            or pull request and that the old release's changelog does not.
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
    action: str = ""
    kind: str = CODE
    mentions: tuple[Mention, ...] = ()

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


# --------------------------------------------------------------------------- file diffs


def creates_file(diff: FileDiff) -> bool:
    """Whether ``diff`` creates its file: ``--- /dev/null``, or a single hunk with an empty
    source range (``--- a/path`` with ``@@ -0,0 +1,N @@``, as some exporters write; GNU
    patch reads it as "existent and probably empty", pch.c ``intuit_diff_type``)."""
    if diff.is_creation:
        return True
    return (
        len(diff.hunks) == 1
        and diff.hunks[0].old_start == 0
        and diff.hunks[0].old_len == 0
        and not diff.is_deletion
    )


def _file_lines(ws: Workspace, path: str | None) -> tuple[bytes, ...] | None:
    if path is None:
        return None
    state = ws.get(path)
    return state.lines if state is not None else None


def _span(hunk: Hunk) -> int:
    """How many lines a hunk's added lines may spread over once reformatted upstream."""
    return max(3 * len(hunk.post_image), len(hunk.post_image) + 20)


def _added(hunk: Hunk) -> list[bytes]:
    return substantive_lines(line.text for line in hunk.lines if line.kind == ADDED)


def _removed(hunk: Hunk) -> list[bytes]:
    return substantive_lines(line.text for line in hunk.lines if line.kind == REMOVED)


def _in_order(lines: Sequence[bytes] | None, needles: list[bytes], span: int) -> bool:
    return bool(lines) and file_index(lines).find_in_order(needles, span) is not None  # type: ignore[arg-type]


def _presence(
    lines: Sequence[bytes], hunk: Hunk, kind: str, pin: Sequence[bytes] | None
) -> tuple[int | None, str] | None:
    """Where the hunk's intent is in ``lines`` although it does not reverse-apply, and how:
    ``(line or None, how)``, else ``None``.

    - added lines: all of them in order, close together (reformatting allowed), and not
      already so at the pin (a line the pin has proves nothing); for a configuration file
      the whole post-image must be there, line after line;
    - only removed lines: they are gone *and* the lines around them are together, as the
      post-image has them (a removed line that upstream rewrote is not a removal).
    """
    added = _added(hunk)
    index = file_index(lines)
    if added:
        if kind == CONFIG:
            post = substantive_lines(hunk.post_image)
            positions = index.find_in_order(post, len(hunk.post_image))
        else:
            positions = index.find_in_order(added, _span(hunk))
        if positions is None:
            return None
        if not _in_order(pin, added, _span(hunk)):
            return positions[0] + 1, "added lines found"
        # the pin has these lines in this order too: only the whole post-image, which the
        # pin lacks, shows the change (a line moved within the file)
        post = substantive_lines(hunk.post_image)
        positions = index.find_in_order(post, _span(hunk))
        if positions is None or _in_order(pin, post, _span(hunk)):
            return None
        return positions[0] + 1, "post-image found"
    removed = _removed(hunk)
    if not removed or any(index.has(line) for line in removed):
        return None
    first = None
    for before, after, distance in _around_removals(hunk):
        positions = index.find_in_order([before, after], distance)
        if positions is None:
            return None
        first = positions[0] + 1 if first is None else first
    if first is None:
        return None
    return first, "removed lines gone, the lines around them together"


def _around_removals(hunk: Hunk) -> list[tuple[bytes, bytes, int]]:
    """For each run of removed lines, the nearest substantive line before and after it in
    the post-image, and how many post-image lines apart they are (at most that far apart
    once the removal is made). A run at the hunk's edge has no such pair: it gives none,
    so the removal cannot be shown to be made."""
    post: list[tuple[int, bytes | None]] = []  # post-image position, substantive text
    cuts: list[int] = []  # post-image positions where removed runs were
    for line in hunk.lines:
        if line.kind == REMOVED:
            if not cuts or cuts[-1] != len(post):
                cuts.append(len(post))
            continue
        post.append((len(post), substantive(line.text)))
    out = []
    for cut in cuts:
        before = next(((i, t) for i, t in reversed(post[:cut]) if t is not None), None)
        after = next(((i, t) for i, t in post[cut:] if t is not None), None)
        if before is None or after is None:
            return []
        out.append((before[1], after[1], after[0] - before[0]))
    return out


def _hunk_status(
    lines: Sequence[bytes], path: str, hunk: Hunk, pin: Sequence[bytes] | None
) -> HunkVerdict:
    """Judge one hunk on its own against a file's lines (``pin``: the file at the old pin)."""
    where = locate(lines, hunk)
    if where is not None:
        offset = where - first_line(hunk, False)
        return HunkVerdict(path, hunk.index, hunk.header, APPLIES, where, offset)
    if hunk.post_image:
        where = locate(lines, hunk, reverse=True)
        if where is not None:
            return HunkVerdict(path, hunk.index, hunk.header, PRESENT, where, how="reverse-applies")
    found = _presence(lines, hunk, kind_of(path), pin) if lines else None
    if found is not None:
        return HunkVerdict(path, hunk.index, hunk.header, PRESENT, found[0], how=found[1])
    guess = first_line(hunk, False)
    failure = HunkFailure(hunk, guess, closest_match(lines, hunk.pre_image, guess))
    return HunkVerdict(path, hunk.index, hunk.header, FAILS, evidence=hunk_evidence(path, failure))


def _creation_status(ws: Workspace, diff: FileDiff, search: TreeSearch | None) -> list[HunkVerdict]:
    """A diff that creates its file: it applies while the new release has no file of that
    name; the same content there is upstream; a changelog that has a release-note
    fragment's text consumed it (towncrier, scriv)."""
    path = diff.path
    existing = _file_lines(ws, path)
    if existing:
        post = tuple(line for hunk in diff.hunks for line in hunk.post_image)
        status = PRESENT if tuple(existing) == post else FAILS
        how = "the file exists with the same content" if status == PRESENT else ""
        return [
            replace(_failing_creation(path, h), status=status, how=how)
            if status == FAILS
            else HunkVerdict(path, h.index, h.header, status, 1, how=how)
            for h in diff.hunks
        ]
    if kind_of(path) == NOTES and search is not None:
        consumed = _consumed(diff, search)
        if consumed is not None:
            return [
                HunkVerdict(path, h.index, h.header, PRESENT, consumed[1], how=consumed[0])
                for h in diff.hunks
            ]
    return [HunkVerdict(path, h.index, h.header, APPLIES, 1, 0) for h in diff.hunks]


def _failing_creation(path: str, hunk: Hunk) -> HunkVerdict:
    evidence = HunkEvidence(
        path, hunk.index, hunk.header, hunk.line_no, 1, None, 0, 0, (),
        note="the new release has a file of this name with other content",
    )  # fmt: skip
    return HunkVerdict(path, hunk.index, hunk.header, FAILS, evidence=evidence)


def _fragment_lines(diff: FileDiff) -> list[bytes]:
    """A release-note fragment's text lines, without a trailing ``(#123)``-style reference
    (the changelog renders it as a link)."""
    out = []
    for hunk in diff.hunks:
        for line in hunk.lines:
            text = substantive(line.text) if line.kind == ADDED else None
            if text is None:
                continue
            cut = text.rfind(b"(")
            if cut > 20 and text.rstrip(b".").endswith(b")"):
                text = text[:cut].rstrip()
            out.append(text)
    return out


def _consumed(diff: FileDiff, search: TreeSearch) -> tuple[str, int] | None:
    """``(how, line)`` when a changelog of the new tree holds the fragment's text."""
    needles = _fragment_lines(diff)
    if not needles:
        return None
    for path, lines in search.changelog_lines().items():
        index = file_index(lines)
        positions = [index.find(needle) for needle in needles]
        if all(p is not None for p in positions):
            line = min(p for p in positions if p is not None) + 1
            return f"consumed into {path} (line {line})", line
    return None


def _deletion_status(ws: Workspace, diff: FileDiff) -> list[HunkVerdict]:
    """A diff that deletes its file: upstream for that file when the new release deleted it
    too; it applies when the file is there with the content the diff removes; otherwise it
    fails (the file is still there, with other content)."""
    path = diff.old_path or diff.path
    existing = _file_lines(ws, path)
    if existing is None:
        how = "the new release deleted the file too"
        return [HunkVerdict(path, h.index, h.header, PRESENT, how=how) for h in diff.hunks]
    pre = tuple(line for hunk in diff.hunks for line in hunk.pre_image)
    if tuple(existing) == pre:
        return [HunkVerdict(path, h.index, h.header, APPLIES, 1, 0) for h in diff.hunks]
    out = []
    for hunk in diff.hunks:
        failure = HunkFailure(hunk, 1, closest_match(existing, hunk.pre_image, 1))
        out.append(
            HunkVerdict(path, hunk.index, hunk.header, FAILS, evidence=hunk_evidence(path, failure))
        )
    return out


def _moved_hunk(
    status: HunkVerdict, hunk: Hunk, search: TreeSearch, pin: TreeSearch | None
) -> HunkVerdict:
    """A hunk that fails in its file: look for its context/removed lines in the rest of the
    new tree (the code moved while the old file stayed); name the place, and judge the hunk
    there."""
    needles = [line for line in hunk.pre_image if substantive(line) is not None]
    distinct = list(dict.fromkeys(line.strip() for line in needles))
    if len(distinct) < MIN_MOVED_LINES:
        return status
    best = search.best_match(distinct, status.path, exclude=frozenset({status.path}))
    if best is None or best[1] < max(MIN_MOVED_LINES, (len(distinct) + 1) // 2):
        return status
    other, count = best
    state = search.state(other)
    if state is None:
        return status
    pin_state = pin.state(other) if pin is not None else None
    there = _hunk_status(state.lines, status.path, hunk, pin_state.lines if pin_state else None)
    moved = {"moved_to": other, "moved_found": count, "moved_total": len(distinct)}
    if there.status == PRESENT:
        how = f"{there.how} in {other}"
        return replace(status, status=PRESENT, line=there.line, how=how, evidence=None, **moved)
    if there.status == APPLIES:
        return replace(status, moved_line=there.line, **moved)
    closest = closest_match(state.lines, hunk.pre_image, 1)
    return replace(status, moved_line=closest.line if closest else None, **moved)


def hunk_statuses(
    ws: Workspace,
    patch: Patch,
    moved: dict[str, str] | None = None,
    search: TreeSearch | None = None,
    pin: TreeSearch | None = None,
) -> list[HunkVerdict]:
    """Every hunk of ``patch`` judged on its own against ``ws``: against its own file, or
    against the file its content moved to (``moved``: old path -> new path); a hunk that
    fails in its file is looked for in the rest of the tree when ``search`` is given.
    ``pin`` (the old pin's tree) keeps lines already there at the pin from counting."""
    moved = moved or {}
    out: list[HunkVerdict] = []
    for diff in patch.files:
        if creates_file(diff):
            out.extend(_creation_status(ws, diff, search))
            continue
        if diff.is_deletion:
            out.extend(_deletion_status(ws, diff))
            continue
        source = moved.get(diff.old_path or "", diff.old_path)
        lines = _file_lines(ws, source) or ()
        pin_state = pin.state(diff.old_path) if pin is not None and diff.old_path else None
        pin_lines = pin_state.lines if pin_state is not None else None
        for hunk in diff.hunks:
            status = _hunk_status(lines, diff.path, hunk, pin_lines)
            if status.status == FAILS and search is not None and lines:
                status = _moved_hunk(status, hunk, search, pin)
            out.append(status)
    return out


# --------------------------------------------------------------------------- added lines


def _pin_has(pin: TreeSearch | None, path: str, line: bytes, exact: bool = False) -> bool:
    """Whether the pin's ``path`` has the normalized ``line``: as the new release is searched
    (reformatting allowed), or, ``exact``, as one whole line (for a line the tree's index
    found whole in another file)."""
    state = pin.state(path) if pin is not None else None
    if state is None:
        return False
    index = file_index(state.lines)
    return line in index.line_set if exact else index.has(line)


def _elsewhere(search: TreeSearch | None, pin: TreeSearch | None, raw: bytes, path: str) -> bool:
    """Whether another file of the new tree holds the line and the pin lacked it there."""
    if search is None or pin is None:
        return False
    search.index.want([raw], path)
    text = substantive(raw) or b""
    for holder in search.index.holders(raw)[:8]:
        if holder != path and not _pin_has(pin, holder, text, exact=True):
            return True
    return False


def _raw_added(patch: Patch) -> dict[str, list[tuple[bytes, bytes]]]:
    """Per written path, ``(normalized, raw)`` of each substantive added line."""
    out: dict[str, list[tuple[bytes, bytes]]] = {}
    for diff in patch.files:
        if diff.new_path is None:
            continue
        for hunk in diff.hunks:
            for line in hunk.lines:
                text = substantive(line.text) if line.kind == ADDED else None
                if text is not None:
                    out.setdefault(diff.new_path, []).append((text, line.text))
    return out


#: How alike (difflib's ratio over tokens) a new release's line must be to an added line to
#: count as the same line spelled differently (``t.Optional[int]`` -> ``int | None``, a
#: helper renamed, ``self.`` added).
RESPELLED_RATIO = 0.8
#: Lines shorter than this (in tokens) are too short to tell a respelling from another line.
RESPELLED_MIN_TOKENS = 6


#: At most this many tokens of either line may differ (a name, an argument): a line that
#: shares its frame with another but differs in a whole clause is another line.
RESPELLED_MAX_TOKENS = 2


def _few_edits(matcher: SequenceMatcher) -> bool:
    changed_a = changed_b = 0
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op != "equal":
            changed_a += a2 - a1
            changed_b += b2 - b1
    return max(changed_a, changed_b) <= RESPELLED_MAX_TOKENS


def respelled_as(
    line: bytes, new: FileState, pin: FileState | None, ratio: float = RESPELLED_RATIO
) -> str | None:
    """The line of ``new`` that is ``line`` spelled differently, or ``None``.

    A candidate shares the line's longest word, has tokens at least ``ratio`` alike
    (:class:`difflib.SequenceMatcher` over :func:`patchkeeper.substance.tokens`) with at most
    :data:`RESPELLED_MAX_TOKENS` tokens changed on either side, and is not
    at the old pin (``pin``): a line the pin had is the old code the patch changed, not
    upstream's version of the change.
    """
    wanted = tokens(line)
    if len(wanted) < RESPELLED_MIN_TOKENS:
        return None
    words = [t for t in wanted if t[:1].isalpha() or t[:1] == b"_"]
    if not words:
        return None
    key = max(words, key=len)
    pin_index = file_index(pin.lines) if pin is not None else None
    matcher = SequenceMatcher(autojunk=False)
    matcher.set_seq2(wanted)
    best: tuple[float, bytes] | None = None
    for candidate in new.lines:
        if key not in candidate:
            continue
        text = substantive(candidate)
        if text is None:
            continue
        matcher.set_seq1(tokens(text))
        if matcher.real_quick_ratio() < ratio or matcher.quick_ratio() < ratio:
            continue
        score = matcher.ratio()
        if score >= ratio and (best is None or score > best[0]) and _few_edits(matcher):
            if pin_index is not None and pin_index.has(text):
                continue
            best = (score, text)
    return best[1].decode("utf-8", "replace") if best else None


def file_shares(
    ws: Workspace, patch: Patch, search: TreeSearch | None, pin: TreeSearch | None = None
) -> tuple[FileShare, ...]:
    """Per written file, how many substantive added lines the new upstream (before any
    patch) holds: in the same file, or, when it is gone, in the best file of the tree.

    With the old pin's tree (``pin``), the lines the pin already has in that file are set
    apart (``at_pin``: they prove nothing), and of the others (``new_total``) those the new
    release has in the file, where it moved, or in another file that lacked them at the pin
    are counted (``new_found``).
    """
    shares = []
    for path, pairs in _raw_added(patch).items():
        added = [text for text, _ in pairs]
        state = ws.original(path)
        where: str | None = path
        if state is None and search is not None:
            best = search.best_match([raw.strip() for _, raw in pairs], path)
            where = best[0] if best else None
            state = search.state(where) if where else None
        index = file_index(state.lines) if state is not None else None
        absent = [line for line in added if index is None or not index.has(line)]
        found = len(added) - len(absent)
        share = FileShare(path, found, len(added), where if found else None, kind=kind_of(path))
        if pin is None:
            missing = tuple(line.decode("utf-8", "replace") for line in absent[:5])
            shares.append(replace(share, missing=missing))
            continue
        at_pin = new_found = 0
        differing = []
        respelled = []
        pin_state = pin.state(path)
        for text, raw in pairs:
            there = index is not None and index.has(text)
            if _pin_has(pin, path, text, exact=not there):
                at_pin += 1
            elif there or _elsewhere(search, pin, raw, path):
                new_found += 1
            else:
                near = respelled_as(text, state, pin_state) if state is not None else None
                if near is not None:
                    new_found += 1
                    respelled.append((text.decode("utf-8", "replace"), near))
                else:
                    differing.append(text.decode("utf-8", "replace"))
        shares.append(
            replace(
                share,
                missing=tuple(differing[:5]),
                at_pin=at_pin,
                new_found=new_found,
                new_total=len(pairs) - at_pin,
                respelled=tuple(respelled[:5]),
            )
        )
    return tuple(shares)


# --------------------------------------------------------------------------- blocked


def _needs(hunk: Hunk, status: HunkVerdict) -> list[bytes]:
    """The lines a hunk needs from the tree to hold where it is judged: its whole pre-image
    when it fails; its removed lines when it counts as there only because they are gone
    (lines a failed earlier patch would have added are naturally gone)."""
    if status.status == FAILS:
        return substantive_lines(hunk.pre_image)
    if status.status == PRESENT and status.how.startswith("removed lines gone"):
        return _removed(hunk)
    return []


def _blocker(
    failed: list[FailedPatch],
    patch: Patch,
    statuses: list[HunkVerdict],
    missing: list[FileDiff],
    ws: Workspace,
) -> str | None:
    """The earlier failing patch whose files or added lines this one needs, if any.

    A hunk of a deciding file (:func:`patchkeeper.upstreamed.decides`) needs the failing
    patch when it fails and its context or removed lines are lines that patch adds and the
    new release lacks, or when it counts as upstream only because such lines are gone.
    """
    for earlier in failed:
        if any(diff.old_path in earlier.created for diff in missing):
            return earlier.name
    kind = primary_kind([d.path for d in patch.files])
    judged = {(s.path, s.index): s for s in statuses}
    for diff in patch.files:
        if not decides(diff.path, kind):
            continue
        state = ws.original(diff.old_path) if diff.old_path else None
        there = file_index(state.lines) if state is not None else None
        for hunk in diff.hunks:
            status = judged.get((diff.path, hunk.index))
            needed = set(_needs(hunk, status)) if status is not None else set()
            for earlier in failed:
                lines = needed & earlier.added.get(diff.old_path or "", set())
                if any(there is None or not there.has(line) for line in lines):
                    return earlier.name
    return None


def remember_failure(patch: Patch) -> FailedPatch:
    """What ``patch`` would have added, kept so later patches that need it are *blocked*."""
    record = FailedPatch(patch.name)
    for diff in patch.files:
        if creates_file(diff):
            record.created.add(diff.path)
    for path, lines in added_by_path(patch).items():
        record.added.setdefault(path, set()).update(lines)
    return record


def _apply_remaining(ws: Workspace, patch: Patch, statuses: list[HunkVerdict]) -> bool:
    """Apply the hunks that still apply (those not already upstream); True on success."""
    applies = {(s.path, s.index) for s in statuses if s.status == APPLIES}
    snapshot = ws.snapshot()
    for diff in patch.files:
        hunks = [h for h in diff.hunks if (diff.path, h.index) in applies]
        if not hunks:
            continue
        if creates_file(diff):
            if ws.get(diff.path) is None or not ws.get(diff.path).lines:  # type: ignore[union-attr]
                post = tuple(line for hunk in hunks for line in hunk.post_image)
                ws.set(diff.path, FileState(post))
            continue
        if diff.is_deletion:
            ws.set(diff.old_path or diff.path, None)
            continue
        state = ws.get(diff.old_path or diff.path)
        if state is None:
            ws.restore(snapshot)
            return False
        result = patch_lines(state.lines, hunks)
        if result.lines is None:
            ws.restore(snapshot)
            return False
        ws.set(diff.old_path or diff.path, FileState(tuple(result.lines), state.mode))
    return True


# --------------------------------------------------------------------------- text


def _refs(statuses: Sequence[HunkVerdict], status: str) -> str:
    return ", ".join(f"{s.path} #{s.index}" for s in statuses if s.status == status)


def _count(statuses: Sequence[HunkVerdict], status: str) -> int:
    return sum(1 for s in statuses if s.status == status)


def share_text(shares: tuple[FileShare, ...]) -> str:
    """How many added lines upstream has, with the file that has most of them."""
    found = sum(s.found for s in shares)
    total = sum(s.total for s in shares)
    if not total:
        return "it adds no substantive lines"
    best = max(shares, key=lambda s: (s.found / s.total if s.total else 0, s.found))
    where = f" (strongest: {best.path} {best.found}/{best.total}"
    if best.where and best.where != best.path:
        where += f", found in {best.where}"
    return f"{found} of {total} substantive added lines already upstream{where})"


def _moved_text(statuses: Sequence[HunkVerdict]) -> str:
    """Where the failing hunks' context is now, when another file holds it."""
    parts = []
    for s in statuses:
        if s.moved_to is None or s.status == PRESENT:
            continue
        line = f" line {s.moved_line}," if s.moved_line else ""
        parts.append(
            f"{s.path} #{s.index} is now in {s.moved_to} ({line.strip()} {s.moved_found} of "
            f"{s.moved_total} context lines there)".replace("( ", "(")
        )
    return "; ".join(parts)


def _mention_text(mentions: Sequence[Mention]) -> str:
    first = mentions[0]
    more = f" (and {len(mentions) - 1} more)" if len(mentions) > 1 else ""
    return (
        f"the new release's changelog names {first.reference}: {first.path} line {first.line}: "
        f"'{first.text}'{more}"
    )


def _kind_text(kind: str) -> str:
    return "" if kind == CODE else f" ({kind} only)"


# --------------------------------------------------------------------------- judging


@dataclass(frozen=True)
class _Context:
    """What a judgement reads besides the workspace: the new tree's search, the old pin's."""

    search: TreeSearch | None
    pin: TreeSearch | None


def _mentions(patch: Patch, ctx: _Context) -> tuple[Mention, ...]:
    if ctx.search is None:
        return ()
    refs = references(patch)
    if not refs:
        return ()
    old = ctx.pin.changelog_data() if ctx.pin is not None else None
    return new_mentions(refs, ctx.search.changelog_data(), old)


def _upstreamed(
    patch: Patch,
    why: str,
    statuses: list[HunkVerdict],
    shares: tuple[FileShare, ...],
    moved: tuple[MovedFile, ...] = (),
    kind: str = CODE,
) -> PatchVerdict:
    """An *upstreamed* verdict: ``why``, then how much of its added lines upstream has."""
    return PatchVerdict(
        patch.name,
        UPSTREAMED,
        f"{why}; " + share_text(shares),
        tuple(statuses),
        shares,
        moved,
        kind=kind,
    )


def _without_notes(patch: Patch) -> Patch | None:
    """The patch without its release-note files, when it has both notes and other files."""
    kept = tuple(d for d in patch.files if kind_of(d.path) != NOTES)
    if not kept or len(kept) == len(patch.files):
        return None
    return replace(patch, files=kept)


def _judge_gone(
    ws: Workspace, patch: Patch, failed: list[FailedPatch], missing: list[FileDiff], ctx: _Context
) -> PatchVerdict:
    """A patch that modifies files the new release no longer has."""
    blocker = _blocker(failed, patch, [], missing, ws)
    if blocker:
        return PatchVerdict(
            patch.name,
            BLOCKED,
            f"needs {missing[0].old_path}, which the failing patch {blocker} creates",
            blocked_by=blocker,
        )
    moved = moved_files(missing, ctx.search)
    shares = file_shares(ws, patch, ctx.search, ctx.pin)
    kind = primary_kind([d.path for d in patch.files])
    if all(m.likely for m in moved):
        targets = {m.path: m.likely for m in moved if m.likely}
        statuses = hunk_statuses(ws, patch, targets, pin=ctx.pin)
        present = code_upstream(statuses, kind)
        if present:
            where = ", ".join(f"{a} moved to {b}" for a, b in targets.items())
            return _upstreamed(patch, f"{where}; there {present}", statuses, shares, moved, kind)
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
        kind=kind,
    )


def _created_clash(ws: Workspace, patch: Patch) -> PatchOutcome | None:
    """The outcome of a patch that creates, with an empty source range under an ordinary
    name (``--- a/path``, ``@@ -0,0 +1,N @@``), a file the new release has: GNU patch would
    prepend the lines to it; for the audit the file exists (``None`` when no such diff)."""
    clash = [
        FileOutcome(d, d.path, EXISTS)
        for d in patch.files
        if creates_file(d) and not d.is_creation and _file_lines(ws, d.path)
    ]
    return PatchOutcome(patch, False, tuple(clash)) if clash else None


def _judge_applied(patch: Patch, outcome: PatchOutcome) -> PatchVerdict:
    statuses = [
        HunkVerdict(o.path, p.hunk.index, p.hunk.header, APPLIES, p.line, p.offset)
        for o in outcome.files
        for p in o.placements
    ]
    kind = primary_kind([d.path for d in patch.files])
    if outcome.max_offset == 0:
        return PatchVerdict(
            patch.name,
            CLEAN,
            "applies at fuzz 0, every hunk in place",
            tuple(statuses),
            kind=kind,
        )
    moved_text = ", ".join(f"{s.path} #{s.index} {s.offset:+d}" for s in statuses if s.offset)
    return PatchVerdict(
        patch.name,
        OFFSET,
        f"applies at fuzz 0; hunks moved: {moved_text}",
        tuple(statuses),
        max_offset=outcome.max_offset,
        kind=kind,
    )


def _judge(ws: Workspace, patch: Patch, failed: list[FailedPatch], ctx: _Context) -> PatchVerdict:
    """Judge one patch on ``ws`` and update ``ws`` with whatever of it applies (no action
    yet: :func:`with_action`)."""
    missing = [
        d
        for d in patch.files
        if d.old_path is not None
        and not creates_file(d)
        and not d.is_deletion
        and ws.get(d.old_path) is None
    ]
    if missing:
        return _judge_gone(ws, patch, failed, missing, ctx)
    if all(kind_of(d.path) == NOTES for d in patch.files):
        consumed = _consumed_notes(ws, patch, ctx)
        if consumed is not None:
            return consumed
    clash = _created_clash(ws, patch)
    if clash is not None:
        return _judge_failing(ws, patch, failed, ctx, clash)
    outcome = apply_patch(ws, patch)
    if outcome.ok:
        return _judge_applied(patch, outcome)
    core = _without_notes(patch)
    if core is not None:
        return _with_notes(ws, patch, _judge(ws, core, failed, ctx), ctx)
    return _judge_failing(ws, patch, failed, ctx, outcome)


def _consumed_notes(ws: Workspace, patch: Patch, ctx: _Context) -> PatchVerdict | None:
    """A release-notes-only patch whose every hunk the new release has (a fragment consumed
    into the changelog): *upstreamed*; else ``None``."""
    statuses = hunk_statuses(ws, patch, search=ctx.search, pin=ctx.pin)
    if not statuses or any(s.status != PRESENT for s in statuses):
        return None
    why = f"every hunk's post-image is there ({_refs(statuses, PRESENT)}){_kind_text(NOTES)}"
    how = "; ".join(f"{s.path} {s.how}" for s in statuses if s.how)
    if how:
        why += f": {how}"
    shares = file_shares(ws, patch, ctx.search, ctx.pin)
    return _upstreamed(patch, why, statuses, shares, kind=NOTES)


def _with_notes(ws: Workspace, patch: Patch, verdict: PatchVerdict, ctx: _Context) -> PatchVerdict:
    """``verdict`` (on the patch without its release notes) with the notes' hunks judged
    beside it: named as consumed when the changelog has them, else left aside."""
    notes = replace(patch, files=tuple(d for d in patch.files if kind_of(d.path) == NOTES))
    statuses = hunk_statuses(ws, notes, search=ctx.search, pin=ctx.pin)
    consumed = [s for s in statuses if s.status == PRESENT]
    if consumed and len(consumed) == len(statuses):
        text = "; release notes: " + ", ".join(f"{s.path} {s.how}" for s in consumed)
    else:
        paths = ", ".join(dict.fromkeys(d.path for d in notes.files))
        text = f"; release notes left aside ({paths}): a note never decides the verdict"
    return replace(verdict, summary=verdict.summary + text, hunks=verdict.hunks + tuple(statuses))


def _judge_failing(
    ws: Workspace,
    patch: Patch,
    failed: list[FailedPatch],
    ctx: _Context,
    outcome: PatchOutcome,
) -> PatchVerdict:
    """A patch that does not apply at fuzz 0 as a whole."""
    kind = primary_kind([d.path for d in patch.files])
    statuses = hunk_statuses(ws, patch, search=ctx.search, pin=ctx.pin)
    shares = file_shares(ws, patch, ctx.search, ctx.pin)
    blocker = _blocker(failed, patch, statuses, [], ws)
    if blocker:
        needing = [s for s in statuses if s.status == FAILS and decides(s.path, kind)]
        needing += [s for s in statuses if s.how.startswith("removed lines gone")]
        refs = ", ".join(f"{s.path} #{s.index}" for s in needing)
        verb = "needs" if len(needing) == 1 else "need"
        return PatchVerdict(
            patch.name,
            BLOCKED,
            f"{refs} {verb} lines that the failing patch {blocker} adds",
            tuple(statuses),
            shares,
            blocked_by=blocker,
            kind=kind,
        )
    reverse = apply_patch(ws, patch, reverse=True, commit=False)
    if reverse.ok:
        why = "the patch reverse-applies: the new upstream already has its post-image"
        return _upstreamed(patch, why + _kind_text(kind), statuses, shares, kind=kind)
    if all(s.status == PRESENT for s in statuses):
        why = f"every hunk's post-image is there ({_refs(statuses, PRESENT)})"
        return _upstreamed(patch, why + _kind_text(kind), statuses, shares, kind=kind)
    upstream = code_upstream(statuses, kind)
    if upstream:
        return _upstreamed(patch, upstream, statuses, shares, kind=kind)
    mentions = _mentions(patch, ctx)
    rewritten = written_differently(shares, kind, bool(mentions), ctx.pin is not None)
    if rewritten:
        if mentions:
            rewritten += "; " + _mention_text(mentions)
        verdict = _upstreamed(patch, rewritten, statuses, shares, kind=kind)
        return replace(verdict, mentions=mentions)
    failing = [s for s in statuses if s.status == FAILS]
    if not failing and _apply_remaining(ws, patch, statuses):
        return PatchVerdict(
            patch.name,
            PARTIALLY_UPSTREAMED,
            f"already upstream: {_refs(statuses, PRESENT)}; still to carry: "
            f"{_refs(statuses, APPLIES)}; " + share_text(shares),
            tuple(statuses),
            shares,
            kind=kind,
            mentions=mentions,
        )
    most = mostly_there(shares, kind, ctx.pin is not None)
    if most:
        text = f"{most}; {_refs(statuses, FAILS)} {_verb(statuses)} at fuzz 0"
        if mentions:
            text += "; " + _mention_text(mentions)
        return PatchVerdict(
            patch.name,
            PARTIALLY_UPSTREAMED,
            text,
            tuple(statuses),
            shares,
            failures=failure_evidence(outcome),
            kind=kind,
            mentions=mentions,
        )
    return _conflict(patch, statuses, shares, outcome, kind, mentions)


def _verb(statuses: Sequence[HunkVerdict]) -> str:
    return "fails" if _count(statuses, FAILS) == 1 else "fail"


def _conflict(
    patch: Patch,
    statuses: list[HunkVerdict],
    shares: tuple[FileShare, ...],
    outcome: PatchOutcome,
    kind: str,
    mentions: tuple[Mention, ...],
) -> PatchVerdict:
    failing = [s for s in statuses if s.status == FAILS]
    text = f"{_refs(statuses, FAILS)} {_verb(statuses)} at fuzz 0"
    closest = failing[0].evidence if failing else None
    if closest is not None and closest.closest_line is not None:
        text += (
            f" (closest: {closest.path} line {closest.closest_line}, {closest.matching} of "
            f"{closest.total} lines match)"
        )
    moved = _moved_text(statuses)
    if moved:
        text += f"; {moved}"
    present = _refs(statuses, PRESENT)
    if present:
        text += f"; already upstream: {present}"
    text += "; " + share_text(shares)
    if mentions:
        text += "; " + _mention_text(mentions) + ", a reason to look"
    return PatchVerdict(
        patch.name,
        CONFLICT,
        text,
        tuple(statuses),
        shares,
        failures=failure_evidence(outcome),
        kind=kind,
        mentions=mentions,
    )


def action_of(verdict: PatchVerdict) -> tuple[str, str]:
    """What to do with a patch, and why in a few words: ``(action, reason)``."""
    if verdict.verdict in (CLEAN, OFFSET):
        return CARRY, "it applies"
    if verdict.verdict == UPSTREAMED:
        short = any(s.counted[0] < s.counted[1] for s in verdict.shares if s.kind == verdict.kind)
        if short and "written differently" in verdict.summary:
            return RETIRE, "after reviewing the lines not found"
        return RETIRE, "upstream has it"
    if verdict.verdict == PARTIALLY_UPSTREAMED:
        if any(h.status == FAILS for h in verdict.hunks):
            return LOOK, "most of it is upstream, written differently; decide what is left"
        return PORT, "drop the hunks upstream has"
    if verdict.verdict == CONFLICT:
        if verdict.mentions:
            return LOOK, "the changelog names its fix, the content differs"
        return PORT, "rework the failing hunks"
    if verdict.verdict == TARGET_GONE:
        if any(m.likely for m in verdict.moved):
            return PORT, "onto the file its content moved to"
        return LOOK, "its file is gone and its content was not found"
    return PORT, f"after {verdict.blocked_by}"


def with_action(verdict: PatchVerdict) -> PatchVerdict:
    """``verdict`` with :attr:`PatchVerdict.action` set and the summary ending with it."""
    if verdict.action:
        return verdict
    action, reason = action_of(verdict)
    return replace(verdict, action=action, summary=f"{verdict.summary}; to do: {action} ({reason})")


def judge_patch(
    ws: Workspace,
    patch: Patch,
    failed: list[FailedPatch],
    search: TreeSearch | None,
    pin: TreeSearch | None = None,
) -> PatchVerdict:
    """Judge one patch on ``ws`` and update ``ws`` with whatever of it applies.

    Args:
        ws: the new release, with the earlier patches of the series that applied.
        patch: the patch.
        failed: the earlier patches that failed (for *blocked*).
        search: the new release's tree (moved content, changelogs), or ``None``.
        pin: the old pin's tree (lines already there at the pin do not count as evidence;
            changelog mentions it already has are not new), or ``None`` when it cannot be had.
    """
    return with_action(_judge(ws, patch, failed, _Context(search, pin)))


def judge_unfinished(
    ws: Workspace,
    patch: Patch,
    failed: list[FailedPatch],
    search: TreeSearch | None,
    pin: TreeSearch | None = None,
) -> PatchVerdict:
    """:func:`judge_patch` without the action (for series-level rules that re-judge)."""
    return _judge(ws, patch, failed, _Context(search, pin))
