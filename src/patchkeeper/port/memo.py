"""What a stopped port already judged, kept so ``port --continue`` judges only what changed.

A port that stops at a conflict has judged the whole series: the audit of every patch on the
pristine new tree (:func:`patchkeeper.audit.series_verdicts.judge_series`) and, for each patch
that did not apply at fuzz 0, :func:`patchkeeper.audit.verdicts.judge_patch` on the new side.
``port --continue`` replays the series with the resolution, and most of that work would come
out the same: the audit does not depend on resolutions at all (``--continue`` refuses to go on
when the series, a patch or the configuration changed, :func:`patchkeeper.port.session.
check_inputs`), and a patch's judgement depends only on

- the patch's bytes,
- the new side's content and mode of every path the judgement reads or writes (what the
  earlier patches and resolutions made of them; a moved file's new place included),
- the earlier failing patches that touch those paths (*blocked*),
- the files the earlier patches create (fixed by the series, which ``--continue`` checks), and
- the two trees (their labels name the sdist and its sha256).

So a judgement is kept with exactly those inputs (the digest of each path's state as it read
it) and the states it left; a replay whose inputs are the same takes it
instead of judging again, and only patches whose paths the resolution (or a patch before
them) changed are judged anew. The memo lives in the port's work directory
(``judged.pickle``), written by this process for this process; one that cannot be read is
ignored (judged anew), never an error.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.audit.verdicts import FailedPatch, PatchVerdict
from patchkeeper.series.engine import FileState, Workspace
from patchkeeper.series.model import Patch
from patchkeeper.system.atomic import write_atomic

#: The file name in the work directory.
MEMO = "judged.pickle"
#: Bumped when what is kept changes shape.
FORMAT = 1


def _state_digest(state: FileState | None) -> bytes:
    if state is None:
        return b"absent"
    digest = hashlib.sha256()
    for line in state.lines:
        digest.update(line)
    return digest.digest() + repr(state.mode).encode()


class Memo:
    """Judgements of one port, keyed by their inputs (see the module docstring).

    Args:
        trees: what names both trees (e.g. ``"old label|new label"``); a memo kept for
            other trees is not used.
    """

    def __init__(self, trees: str) -> None:
        self.trees = trees
        self.series: list[PatchVerdict] | None = None
        self.patches: dict[bytes, list[_Judged]] = {}
        self.hits = 0
        self.misses = 0

    # ----------------------------------------------------------------- storage

    @classmethod
    def load(cls, work_root: Path, trees: str) -> Memo:
        """The memo kept in ``work_root``, or an empty one (missing, unreadable, other trees,
        other format)."""
        memo = cls(trees)
        try:
            data = pickle.loads((work_root / MEMO).read_bytes())
        except (
            OSError,
            pickle.UnpicklingError,
            EOFError,
            AttributeError,
            ImportError,
            TypeError,
            ValueError,
        ):
            return memo
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return memo
        if data.get("trees") != trees:
            return memo
        memo.series = data.get("series")
        memo.patches = dict(data.get("patches") or {})
        return memo

    def save(self, work_root: Path) -> None:
        """Write the memo into ``work_root`` (atomically)."""
        data = {
            "format": FORMAT,
            "trees": self.trees,
            "series": self.series,
            "patches": self.patches,
        }
        write_atomic(work_root / MEMO, pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))

    # ----------------------------------------------------------------- use

    def judge_series(self, compute: Callable[[], list[PatchVerdict]]) -> list[PatchVerdict]:
        """The audit of the series on the pristine new tree: kept, or ``compute()``."""
        if self.series is None:
            self.series = compute()
        return self.series

    def judge_patch(
        self,
        ws: Workspace,
        patch: Patch,
        failed: Sequence[FailedPatch],
        judge: Callable[[Workspace], PatchVerdict],
    ) -> PatchVerdict:
        """``judge(ws)`` (which judges ``patch`` on ``ws`` and updates ``ws``), or the kept
        verdict of a judgement whose inputs were the same, with ``ws`` updated as that
        judgement left it."""
        candidates = self.patches.setdefault(hashlib.sha256(patch.raw).digest(), [])
        for kept in candidates:
            if _same_inputs(kept, ws, failed):
                self.hits += 1
                for path, state in kept.writes.items():
                    ws.set(path, state)
                return kept.verdict
        self.misses += 1
        recording = _Recording.around(ws)
        verdict = judge(recording)
        writes = {path: recording.get(path) for path in sorted(recording.written)}
        for path, state in writes.items():
            ws.set(path, state)
        reads = {path: _state_digest(ws_state) for path, ws_state in recording.read.items()}
        names = _failed_names(failed, set(reads) | set(writes))
        candidates.append(_Judged(reads, names, verdict, writes))
        return verdict


@dataclass
class _Judged:
    """One judgement: the states it read (path -> digest), the earlier failing patches that
    touch those paths, its verdict, and the states it left."""

    reads: dict[str, bytes]
    failed: tuple[str, ...]
    verdict: PatchVerdict
    writes: dict[str, FileState | None]


def _same_inputs(kept: _Judged, ws: Workspace, failed: Sequence[FailedPatch]) -> bool:
    if any(_state_digest(ws.get(path)) != digest for path, digest in kept.reads.items()):
        return False
    return _failed_names(failed, set(kept.reads) | set(kept.writes)) == kept.failed


def _failed_names(failed: Sequence[FailedPatch], paths: set[str]) -> tuple[str, ...]:
    return tuple(record.name for record in failed if paths & (set(record.added) | record.created))


class _Recording(Workspace):
    """A workspace that notes every path read (with the state first seen) and written; its
    forks note into the same sets."""

    read: dict[str, FileState | None]
    written: set[str]

    @classmethod
    def around(cls, ws: Workspace) -> _Recording:
        other = cls(ws._reader)
        other._base = ws._base
        other._current = dict(ws._current)
        other.absent_or_empty = set(ws.absent_or_empty)
        other.read = {}
        other.written = set()
        return other

    def get(self, path: str) -> FileState | None:
        state = super().get(path)
        if path not in self.written:
            self.read.setdefault(path, state)
        return state

    def set(self, path: str, state: FileState | None) -> None:
        if path not in self.written:
            self.read.setdefault(path, super().get(path))
        self.written.add(path)
        super().set(path, state)

    def fork(self) -> Workspace:
        other = _Recording.around(self)
        other.read = self.read
        other.written = self.written
        return other


def memo_key(parts: Sequence[Any]) -> str:
    """The trees' key: the parts joined (labels of the old and the new tree)."""
    return "|".join(str(part) for part in parts)
