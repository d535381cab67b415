"""The result of ``upgrade``: each step with what it wrote and its commit, and what is left
for a person, in the order a person does it."""

from __future__ import annotations

from dataclasses import dataclass

from patchkeeper.constants import WordEnum


class StepName(WordEnum):
    """The steps of an upgrade, in the order they run."""

    AUDIT = "audit"  # the series against the new pin, kept as evidence
    RUNTIME_AUDIT = "runtime audit"  # the runtime patches from the old pin to the new one
    DECIDE = "decide"  # the decisions file filled with suggestions from that evidence
    RUNTIME_PORT = "runtime port"  # the plugin's mechanical update written
    PORT = "port"  # the series carried to the new pin, in place
    REPORT = "report"  # the audit record, AUDIT.md


#: Every step, in order.
STEPS: tuple[StepName, ...] = tuple(StepName)


class StepStatus(WordEnum):
    """Where one step is."""

    DONE = "done"  # ran to its end (in this run or an earlier one)
    STOPPED = "stopped"  # the port, or the runtime port (markers left), stopped at a conflict
    SKIPPED = "skipped"  # nothing to do: no series, or no runtime patches configured
    PENDING = "pending"  # not run yet


class UpgradeOutcome(WordEnum):
    """Where ``upgrade`` ended."""

    DONE = "done"  # every step done; the state directory removed
    STOPPED = "stopped"  # a port (or runtime port) waits for a conflict to be resolved
    ABORTED = "aborted"  # ``--abort``: the branch and the work tree put back


@dataclass(frozen=True)
class StepRecord:
    """One step: its ``status``, a one-line ``summary`` of its result, the step's own exit
    code (``audit`` exits 1 on any patch to work on), the ``files`` it wrote (relative to
    the downstream, POSIX, sorted), and with ``--branch`` the ``commit`` (full id) and its
    ``subject`` (``None`` when the step wrote nothing or ran without ``--branch``)."""

    name: str
    status: str
    summary: str = ""
    exit_code: int = 0
    files: tuple[str, ...] = ()
    commit: str | None = None
    subject: str | None = None


@dataclass(frozen=True)
class Edited:
    """Files a person changed while the upgrade waited (stopped at the port's conflict, or
    at a step's error), found by the ``--continue`` after: ``files`` (relative to the
    downstream, sorted), ``before`` the step that ran next, and with ``--branch`` the
    ``commit`` that holds them on their own and its ``subject``, so no step's commit
    claims them."""

    files: tuple[str, ...]
    before: str
    commit: str | None = None
    subject: str | None = None


@dataclass(frozen=True)
class Conflict:
    """A conflict to resolve: ``kind`` ``"series"`` (the port's stopped patch, ``name``) or
    ``"runtime"`` (a plugin file whose merge left conflict markers, ``name`` its target);
    ``files`` to edit (relative to the downstream) and ``hint``: what to run after."""

    kind: str
    name: str
    files: tuple[str, ...]
    hint: str


@dataclass(frozen=True)
class Undecided:
    """A patch or runtime entry the evidence does not decide (the *look* of the
    audit or the runtime audit): its ``verdict`` and ``evidence`` sentences;
    ``before_edit``: a series patch a person edited after the audit read it, so the
    evidence describes the patch before that edit."""

    kind: str
    key: str
    verdict: str
    evidence: tuple[str, ...]
    before_edit: bool = False


@dataclass(frozen=True)
class Suggestion:
    """A decision ``decide`` suggested from the evidence, waiting for a person to accept or
    change it in the decisions file; ``before_edit``: a series patch a person edited after
    the audit read it, so the suggestion comes from the patch before that edit;
    ``needs_condition``: a suggestion to keep the patch or entry (carry, retain) whose table
    has no removal condition yet, which ``report --check`` asks for besides the acceptance."""

    kind: str
    key: str
    decision: str
    verdict: str
    before_edit: bool = False
    needs_condition: bool = False


@dataclass(frozen=True)
class UpgradeResult:
    """The result of ``upgrade``, ``upgrade --continue`` or ``upgrade --abort``.

    Attributes:
        action: ``"upgrade"``, ``"continue"`` or ``"abort"``.
        outcome: :class:`UpgradeOutcome`.
        root: the downstream.
        to, source: the new and the old pin as given (``source``: the configured pin).
        target_version: the new pin's version, when known.
        branch: the branch the work is on (``""`` without ``--branch``); base: the branch
            (or, from a detached head, the commit) it started from.
        steps: every step, in order.
        edited: the files a person changed while the upgrade waited, each time it did
            (:class:`Edited`), oldest first.
        state_dir: the upgrade's state directory while it is in progress, else ``None``.
        decisions_file: the decisions file the suggestions are in.
        conflicts, undecided, suggestions: what is left for a person, in that order.
        by_hand: the edits the ports left to a person: the runtime port's imports and
            findings of names the new release moved or dropped that it did not rewrite
            (:func:`patchkeeper.upgrade.run.runtime_by_hand`), then the port's in the
            downstream's own files (an RPM spec's lines:
            :attr:`patchkeeper.port.results.PortResult.by_hand`).
        verify: the commands that check the result, in order.
        rebase: the git commands that bring the user's branch onto the new release, when
            the downstream is a branch of commits on the old pin's upstream tag (the port
            moved the series, not the branch); empty otherwise.
        kept_files: ``--abort`` without ``--branch``: the files the steps done had
            changed, left as they wrote them (files they created are deleted).
    """

    action: str
    outcome: str
    root: str
    to: str
    source: str
    target_version: str | None
    branch: str
    base: str
    steps: tuple[StepRecord, ...]
    state_dir: str | None
    decisions_file: str
    conflicts: tuple[Conflict, ...] = ()
    undecided: tuple[Undecided, ...] = ()
    suggestions: tuple[Suggestion, ...] = ()
    by_hand: tuple[str, ...] = ()
    verify: tuple[str, ...] = ()
    rebase: tuple[str, ...] = ()
    kept_files: tuple[str, ...] = ()
    edited: tuple[Edited, ...] = ()

    @property
    def exit_code(self) -> int:
        """1 while a conflict waits (the port stopped, or a runtime merge left markers),
        0 otherwise (an abort too)."""
        return 1 if self.conflicts and self.outcome != UpgradeOutcome.ABORTED else 0
