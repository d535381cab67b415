"""The upgrade's steps, in order, each the feature function its own command calls.

1. ``audit``: the series against the new pin (``audit --to NEW --save-evidence``);
2. ``runtime audit``: the runtime patches from the old pin to the new one (saved too);
3. ``decide``: the decisions file filled with the suggestions that evidence makes, for every
   patch and entry the downstream has before the upgrade (a patch the port then retires
   keeps its table);
4. ``runtime port``: the plugin's mechanical update written (``runtime port --write``);
   a merge that left conflict markers stops it like the port's conflict (the run goes on
   with the steps after it, and ends stopped until the markers are resolved);
5. ``port``: the series carried to the new pin in place (``port --in-place``, its evidence
   saved); it stops at a conflict like ``git rebase``, and the run goes on with the steps
   after it, so the branch holds every step but the port;
6. ``report``: the record, ``AUDIT.md``; written again each time a stopped port runs on.

A step with nothing to do (no series, no runtime patches configured) is skipped. The steps
that are a command's own ``run()`` (``audit``, ``runtime audit``, ``decide``, ``report``)
reach this module as functions :mod:`patchkeeper.commands.upgrade` passes in
(:class:`Steps`), so this layer calls them without importing the layer above it.

The files each step wrote are found by comparing the stat data of the downstream's files
before and after it (:func:`patchkeeper.upgrade.state.snapshot`); with ``--branch`` they are
that step's commit. Nothing is written outside the downstream: every place a step writes
(the series, the ledger, the decisions and record files, the evidence, the plugin, the port's
work directory) is checked to be inside it before the first step.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from patchkeeper.config import Config, load_config
from patchkeeper.constants import OPTION_TO
from patchkeeper.errors import (
    ConfigError,
    Finding,
    Interrupted,
    PatchkeeperError,
    TargetError,
)
from patchkeeper.ledger.table import check_ledger_markers
from patchkeeper.port.context import (
    NEW_TREE,
    OLD_TREE,
    check_a_newer_release,
    directory_version,
    old_tree,
    port_base,
    refuse_an_older_release,
    stable_spec,
)
from patchkeeper.port.rebase import SeriesDoesNotApplyError
from patchkeeper.port.request import PortRequest
from patchkeeper.port.settings import port_settings
from patchkeeper.port.workdir import (
    PortStateError,
    UnresolvedError,
    WorkDir,
    changed_inputs,
    first_marker,
    has_markers,
    input_digests,
)
from patchkeeper.progress import note
from patchkeeper.record.decide import replace_stale
from patchkeeper.record.decisions import DROPS, SERIES
from patchkeeper.record.decisions import load as load_decisions
from patchkeeper.record.settings import report_settings
from patchkeeper.series.load import load_series, load_series_tolerant
from patchkeeper.series.parse import parse_series
from patchkeeper.system.deferred import interrupt_deferred
from patchkeeper.system.english import plural
from patchkeeper.trees.transaction import locked, locked_folder
from patchkeeper.trees.tree import (
    check_tree_given,
    refuse_misplaced,
    refuse_unpacked_parent,
    spec_tree,
)
from patchkeeper.upgrade.branch import (
    branch_base,
    commit_step,
    create_branch,
    restore,
    resume_branch,
)
from patchkeeper.upgrade.request import UpgradeRequest
from patchkeeper.upgrade.results import (
    STEPS,
    Conflict,
    Edited,
    StepName,
    StepRecord,
    StepStatus,
    Suggestion,
    Undecided,
    UpgradeOutcome,
    UpgradeResult,
)
from patchkeeper.upgrade.state import (
    UpgradeDir,
    UpgradeState,
    UpgradeStateError,
    changed,
    snapshot,
    state_dir,
)
from patchkeeper.upstream.requirements import check_new_release

if TYPE_CHECKING:  # the runtime layer is imported inside the steps that use it
    from patchkeeper.runtime.port.results import RuntimePort


@dataclass(frozen=True)
class Steps:
    """The feature functions of the steps, each called as its command calls it:
    ``audit(config, AuditRequest(to), save_evidence=True)``, ``runtime_audit(config,
    RuntimeAuditRequest(old=, new=), save_evidence=True, refuse_unparsed_as="runtime
    audit")``, ``decide(config)``,
    ``runtime_port(config, RuntimePortRequest(old=, new=, write=True))``, ``port(config,
    PortRequest(to, source, in_place=True, action=), save_evidence=True)``,
    ``report(config)``."""

    audit: Callable[..., Any]
    runtime_audit: Callable[..., Any]
    decide: Callable[..., Any]
    runtime_port: Callable[..., RuntimePort]
    port: Callable[..., Any]
    report: Callable[..., Any]


@dataclass
class _Run:
    """One run's inputs: the configuration, the steps, the state and its directory."""

    config: Config
    steps: Steps
    work: UpgradeDir
    state: UpgradeState

    @property
    def root(self) -> Path:
        return self.config.root

    @property
    def version(self) -> str:
        return self.state.target_version or self.state.to


def upgrade(config: Config, steps: Steps, request: UpgradeRequest) -> UpgradeResult:
    """Start an upgrade (``request.action == "upgrade"``), go on with one that stopped
    (``"continue"``) or drop it (``"abort"``); ``request`` says the new and the old pin and
    the branch for the work (:class:`UpgradeRequest`).

    Raises:
        ConfigError: ``--to`` missing, nothing to upgrade (no series, no runtime patches).
        PatchFormatError: the series names a patch that is missing or cannot be read, or
            the ledger's markers are broken (found before anything is written).
        ConfigError: the decisions file is malformed (found before anything is written).
        UpgradeStateError: an upgrade is (or is not) in progress.
        PortStateError: a port started by hand is in progress.
        TargetError: a place a step writes is outside the downstream; a new pin given as a
            directory that does not say its version.
        BranchError: ``--branch`` outside a git checkout, with changes not committed, or
            naming a branch that exists.
        Whatever a step raises (the state stays: ``--continue`` resumes at that step).
    """
    work = UpgradeDir(state_dir(config.root))
    with _upgrade_lock(config, work):
        return _upgrade(config, steps, request, work)


@contextmanager
def _upgrade_lock(config: Config, work: UpgradeDir) -> Iterator[None]:
    """Hold the lock that keeps a second ``upgrade``, ``--continue`` or ``--abort`` of the
    downstream waiting while one runs (``lock-timeout``, then an error naming it): an abort
    that ran beside a running upgrade removed the port's work directory under it, which then
    recorded a conflict with no files and left its state behind. The lock is the git
    directory's, where the state is kept, else ``.patchkeeper/``'s (made for it, and removed
    again when nothing was written there): each step takes the downstream's own lock, which
    one process cannot take twice.

    Raises:
        LockError: another upgrade holds it longer than ``lock-timeout``.
    """
    what = "an upgrade of the downstream"
    if work.root.parent != config.root:
        with locked(work.root.parent, config.lock_timeout, what):
            yield
        return
    # A refused upgrade leaves nothing; one that wrote evidence there keeps it. The folder
    # made and removed by one run is locked atomically: two runs never both hold it.
    with locked_folder(config.root / ".patchkeeper", config.lock_timeout, what):
        yield


def _upgrade(
    config: Config, steps: Steps, request: UpgradeRequest, work: UpgradeDir
) -> UpgradeResult:
    """:func:`upgrade`, under the upgrade's lock."""
    to, source, branch, action = request.to, request.source, request.branch, request.action
    if action in ("continue", "abort"):
        _refuse_port_alone(config, work, action)
    if action == "abort":
        return _abort(config, steps, work)
    if action == "continue":
        run = _Run(config, steps, work, work.load())
        if run.state.branch:
            resume_branch(config.root, run.state.branch, run.state.base_commit)
        return _steps(run, "continue")
    if to is not None:  # a release typed wrong is named before an upgrade in progress
        check_new_release("upgrade", to, source, config.upstream, config.source)
        _check_given_trees(config, to, source)
    if work.exists:
        raise UpgradeStateError(
            "an upgrade is already in progress",
            path=work.root,
            hint="run 'patchkeeper upgrade --continue' or 'patchkeeper upgrade --abort'",
        )
    to = check_new_release("upgrade", to, source, config.upstream, config.source)
    series, runtime = has_series(config), has_runtime(config)
    if not series and not runtime:
        raise ConfigError(
            "nothing to upgrade: no series file and no runtime patches configured",
            path=config.source,
            hint="configure the series, or the plugin in [tool.patchkeeper.runtime]",
        )
    if series and WorkDir(port_settings(config).work_dir).exists:
        raise PortStateError(
            "a port is in progress",
            path=port_settings(config).work_dir,
            hint="finish it with 'patchkeeper port --continue' or drop it with "
            "'patchkeeper port --abort' first",
        )
    check_inside(config, series, runtime)

    state = UpgradeState(to=stable_spec(to), source=port_base(config, source))
    state.target_version = given_version(state.to, "the new upstream (--to)") or None
    if series and state.target_version is None:
        refuse_unversioned(Path(state.to))
    pinned = given_version(state.source, "the old upstream (--from, or the configured pin)")
    check_a_newer_release(
        config, state.target_version, pinned, configured=not source, command="upgrade"
    )
    refuse_an_older_release(config, state.target_version, pinned, configured=not source)
    if branch:
        state.branch = branch
        state.base, state.base_commit = branch_base(config.root, branch)
    # Every series step reads every patch: one the series names that is missing or cannot be
    # read stopped decide after the audit had written (and committed) its evidence, leaving
    # an upgrade in progress for a fault of the series; found here, nothing is written.
    listed = load_series(config)[0].entries if series else ()
    # So does each file a later step rewrites in place: the decisions file decide adds to,
    # and the ledger whose table the port rewrites after the series and the pin.
    load_decisions(report_settings(config).decisions_file)
    if series:
        check_ledger_markers(config)
    if series and not runtime and not listed:
        # its steps would audit and port nothing, and decide would stop the run half done
        raise ConfigError(
            "nothing to upgrade: the series lists no patches and no runtime patches are configured",
            path=config.series,
            hint="list the patches in the series file (one name a line), or configure the "
            "plugin in [tool.patchkeeper.runtime]",
        )
    state.new_tree = check_trees(config, state, series, runtime)
    work.save(state)
    try:
        work.save_start(snapshot(config.root, [work.root, port_settings(config).work_dir]))
        if branch:  # after the state names it: --abort deletes it, --continue creates it
            create_branch(config.root, branch)
    except KeyboardInterrupt:  # the state is saved: the upgrade is in progress
        raise Interrupted("interrupted", hint=BEFORE_THE_FIRST_STEP) from None
    return _steps(_Run(config, steps, work, state), "upgrade")


#: What to do after a Ctrl-C between saving the upgrade's state and its first step: the
#: upgrade is in progress (a new ``upgrade --to`` is refused), and ``--continue`` runs every
#: step, as ``--abort`` puts back what was made (the branch, if git created it).
BEFORE_THE_FIRST_STEP = (
    "run 'patchkeeper upgrade --continue' (the upgrade stopped before its first step), or "
    "'patchkeeper upgrade --abort' to put the downstream back"
)


def check_trees(config: Config, state: UpgradeState, series: bool, runtime: bool) -> str:
    """Find (fetching into the cache) the trees of the old and the new pin the steps read,
    before anything is written: the state keeps ``--to`` and ``--from``, so a tree a step
    could not have (a mistyped directory, a release the package index does not hold) would
    leave an upgrade that ``--continue`` cannot finish, only ``--abort``. The steps then
    find the fetched trees in the cache.

    Returns the directory of the new pin's tree the series steps read (``--to`` as given
    when it is a directory, else where the release was unpacked; ``""`` without a series),
    kept in the state for the command that verifies the result (:func:`verify_commands`).

    Raises:
        TargetError: a directory that does not exist, a file that is no release, a
            directory that holds only the unpacked sdist's own directory or another
            project's tree (:func:`patchkeeper.trees.tree.refuse_misplaced`), or (for the
            runtime steps) a tree without the upstream's packages.
        FetchError: a requirement that cannot be fetched, naming its option.
    """
    from patchkeeper.runtime.lookup.targets import NEW_UPSTREAM, require_upstream
    from patchkeeper.runtime.settings import resolve_settings

    new_tree = ""
    if series:
        what = "the new upstream (--to)"
        tree = spec_tree(state.to, config, what)
        # the audit step refuses these trees too, but only after the upgrade has begun
        refuse_unpacked_parent(tree, what, f"pass {OPTION_TO} {{}}")
        patches = load_series_tolerant(config)[1]
        refuse_misplaced(tree, patches, what, OPTION_TO, config.upstream, config.series)
        new_tree = state.to if os.path.isdir(state.to) else str(tree.root)
        old_tree(config, state.source)
    if runtime:
        # the runtime steps read the upstream's packages from both: a release of another
        # project, or a tree without them, is refused here as the steps would refuse it
        packages = resolve_settings(config).upstream_packages
        require_upstream(state.to, packages, NEW_UPSTREAM)
        require_upstream(state.source, packages, "the old upstream (--from, or the configured pin)")
    return new_tree


def given_version(spec: str, what: str) -> str:
    """The version of the release ``spec`` (``--to`` or ``--from``) names: a requirement's
    pin, a directory's ``PKG-INFO`` or static version, and for a release file (the sdist or
    wheel ``pip download`` leaves) that of its tree, unpacked into the cache where the steps
    then read it; ``""`` when unknown. Without the file's version a downstream of runtime
    patches alone would not move its pin, and the upgrade's report and commits would name
    the file's path instead of the release.

    Raises:
        TargetError: ``spec`` is a file that is no release (``what`` names its role), as
            the steps would refuse it, before anything is written.
    """
    from patchkeeper.runtime.lookup.targets import tree_root
    from patchkeeper.runtime.syntax.gates import release_version

    path = Path(spec).expanduser()
    return release_version(spec, tree_root(spec, what) if path.is_file() else path)


def refuse_unversioned(to: Path) -> None:
    """Refuse, before anything is written, a new pin given as a directory that does not say
    its version (no ``PKG-INFO``, no static ``[project] version``: an upstream checkout whose
    build computes it): the port step writes that version as the pin, and the options of an
    upgrade in progress cannot be changed, so finding it out at the port would leave an
    upgrade that ``--continue`` cannot finish.

    Raises:
        TargetError: naming the directory and what to pass instead.
    """
    if to.is_dir() and directory_version(to) is None:
        raise TargetError(
            "cannot tell the version of the new pin: the directory has no PKG-INFO and "
            "its pyproject.toml no static [project] version",
            path=to,
            hint="pass --to NAME==VERSION (the release, fetched), or --to the unpacked "
            "sdist of that release (it has PKG-INFO)",
        )


def _check_given_trees(config: Config, to: str, source: str | None) -> None:
    """Refuse ``to`` or ``source`` (``--from``) when it names a path where nothing is, in
    the words of the step that would read it first: the series' port
    (:func:`patchkeeper.trees.tree.check_tree_given`), else the runtime steps
    (:func:`patchkeeper.runtime.lookup.targets.check_tree_spec`).

    Raises:
        TargetError: naming the option and the path.
    """
    if has_series(config):
        check_tree_given(to, NEW_TREE)
        check_tree_given(source, OLD_TREE)
        return
    from patchkeeper.runtime.lookup.targets import NEW_UPSTREAM, check_tree_spec

    check_tree_spec(to, NEW_UPSTREAM)
    check_tree_spec(source, OLD_TREE)


def has_series(config: Config) -> bool:
    """Whether the downstream carries a series: its series path exists (a directory there
    is a series setting gone wrong, which reading the series reports, not "no series")."""
    return config.series.exists()


def has_runtime(config: Config) -> bool:
    """Whether the downstream carries runtime patches (``[tool.patchkeeper.runtime]`` names
    the plugin's package)."""
    return bool(config.sections.get("runtime", {}).get("package"))


def check_inside(config: Config, series: bool, runtime: bool) -> None:
    """Refuse before anything is written when a place a step writes is outside the
    downstream (its root, the configuration's directory).

    Raises:
        TargetError: naming the place and the setting that puts it there.
    """
    root = config.root.resolve()
    for what, path in write_places(config, series, runtime):
        if not Path(os.path.abspath(path)).resolve().is_relative_to(root):
            raise TargetError(
                f"{what} is outside the downstream {root}: upgrade writes only inside it",
                path=path,
                hint="move it into the downstream, or run the steps one by one",
            )


def write_places(config: Config, series: bool, runtime: bool) -> list[tuple[str, Path]]:
    """Every place the writing commands write as ``config`` sets it, each with the words
    that name it and its setting: the decisions file and the audit record; with ``series``,
    the series' directory, the ledger and the port's work directory; with ``runtime``, the
    plugin. Paths are as configured (absolute, or relative to the current directory), not
    resolved."""
    settings = report_settings(config)
    places: list[tuple[str, Path]] = [
        (
            "the decisions file (decisions-file in [tool.patchkeeper.report])",
            settings.decisions_file,
        ),
        ("the audit record (audit-file in [tool.patchkeeper.report])", settings.audit_file),
    ]
    if series:
        from patchkeeper.ledger.settings import ledger_settings

        places += [
            ("the series (series)", config.series.parent),
            ("the ledger (file in [tool.patchkeeper.ledger])", Path(ledger_settings(config).file)),
            (
                "the port's work directory (work-dir in [tool.patchkeeper.port])",
                port_settings(config).work_dir,
            ),
        ]
    if runtime:
        from patchkeeper.runtime.settings import resolve_settings

        places.append(
            ("the plugin (root in [tool.patchkeeper.runtime])", resolve_settings(config).root)
        )
    return places


# --------------------------------------------------------------------------- the steps


def _steps(run: _Run, action: str) -> UpgradeResult:
    """Run every step not done yet, in order; the result."""
    series, runtime = has_series(run.config), has_runtime(run.config)
    applies = {
        StepName.AUDIT: series,
        StepName.RUNTIME_AUDIT: runtime,
        StepName.DECIDE: True,
        StepName.RUNTIME_PORT: runtime,
        StepName.PORT: series,
        StepName.REPORT: True,
    }
    why_not = {
        StepName.AUDIT: "no series",
        StepName.RUNTIME_AUDIT: "no runtime patches configured",
        StepName.RUNTIME_PORT: "no runtime patches configured",
        StepName.PORT: "no series",
    }
    cut_short = run.work.running()
    edited, now = _edits_by_hand(run, cut_short) if action == "continue" else ((), None)
    port_ran = False
    for name in STEPS:
        # The whole of a step's turn is in the try, the boundary before it too: a Ctrl-C
        # anywhere in the loop says to continue or abort, as the upgrade is in progress.
        try:
            pause_at(f"before {name}")
            record = run.state.steps.get(name, {})
            if not _to_run(run, name, record, port_ran):
                continue
            port_ran = port_ran or name in (StepName.PORT, StepName.RUNTIME_PORT)
            if not applies[name]:
                run.state.steps[name] = {
                    "name": name,
                    "status": StepStatus.SKIPPED,
                    "summary": why_not[name],
                }
                run.work.save(run.state)
                continue
            before = cut_short[1] if cut_short and cut_short[0] == name else None
            # the cut-short step's snapshot is older than a person's edits: not its own
            theirs = (edited, now) if before is not None and now is not None else None
            _step(run, name, before, theirs)
        except Interrupted as exc:  # the state stays: --continue runs the step again
            _leave_waiting(run)
            exc.hint = left_in_progress(
                exc.hint or _conflict_first(run, name), name, after=_through(run, name)
            )
            raise
        except KeyboardInterrupt:
            _leave_waiting(run)
            hint = left_in_progress(_conflict_first(run, name), name, after=_through(run, name))
            raise Interrupted("interrupted", hint=hint) from None
        except SeriesDoesNotApplyError as exc:  # its --from is fixed until --abort
            _leave_waiting(run)
            exc.hint = exc.upgrade_hint()
            raise
        except PatchkeeperError as exc:
            _leave_waiting(run)
            exc.hint = left_in_progress(exc.hint, name)
            raise
    stopped = _stopped_step(run) is not None
    if stopped:
        _leave_waiting(run)
    else:
        with interrupt_deferred():  # the state goes whole: a part of it is no upgrade
            run.work.remove()
    outcome = UpgradeOutcome.STOPPED if stopped else UpgradeOutcome.DONE
    return _result(run, action, outcome)


def _stopped_step(run: _Run) -> str | None:
    """The step that waits for a conflict to be resolved: the runtime port (markers left in
    a plugin's file) or the port, the first of them in the order the steps run; ``None``
    when neither does."""
    for name in (StepName.RUNTIME_PORT, StepName.PORT):
        if run.state.steps.get(name, {}).get("status") == StepStatus.STOPPED:
            return str(name)
    return None


def _through(run: _Run, name: str) -> bool:
    """Whether step ``name``'s end was recorded whole before a Ctrl-C was raised: the hint
    then says the upgrade stopped after it, not at it."""
    done = run.state.steps.get(name, {}).get("status") in (StepStatus.DONE, StepStatus.SKIPPED)
    return done and not run.work.running()


#: Testing hook: at the point this names (``before decide``: the loop's boundary before the
#: step; ``recording decide``: the step's files written, before its commit and its record),
#: say so on standard error and wait for a line on standard input, so that a test sends
#: SIGINT at exactly that point (:func:`pause_at`).
PAUSE_ENV = "PATCHKEEPER_UPGRADE_PAUSE"


def pause_at(point: str) -> None:
    """Wait at ``point`` when :data:`PAUSE_ENV` names it: ``paused at POINT`` on standard
    error, then a line (or the end) of standard input."""
    if os.environ.get(PAUSE_ENV) != point:
        return
    sys.stderr.write(f"paused at {point}\n")
    sys.stderr.flush()
    sys.stdin.readline()


def _leave_waiting(run: _Run) -> None:
    """Keep the snapshot of the downstream as this run leaves the upgrade waiting, so the
    next ``--continue`` tells a person's edits from what its steps write
    (:func:`_edits_by_hand`). Best effort: a snapshot that cannot be written keeps none,
    and every change is then counted as before, the step's."""
    with suppress(OSError):
        run.work.save_left(snapshot(run.root, _left_out(run)))


def _left_out(run: _Run) -> list[Path]:
    """The directories no snapshot reads: the upgrade's state and the port's work."""
    return [run.work.root, port_settings(run.config).work_dir]


def _edits_by_hand(
    run: _Run, cut_short: tuple[str, dict[str, tuple[int, int, int]]] | None
) -> tuple[tuple[str, ...], dict[str, tuple[int, int, int]] | None]:
    """The files a person changed since the last run left the upgrade waiting (a patch
    fixed after the port refused it, a decision written while the port waited at its
    conflict) and the snapshot they were found in; ``((), None)`` when the last run kept
    no snapshot. With ``--branch`` they are committed on their own, before any step runs:
    the step that runs next would have claimed them as what it wrote (its commit and its
    "wrote" line). They are kept in the state (``facts["edited"]``), with whether the
    audit had read the series before them (its evidence and the suggestions made from it
    then describe a patch as it was before the edit)."""
    left = run.work.left()
    if left is None:
        return (), None
    now = snapshot(run.root, _left_out(run))
    files = changed(left, now)
    run.work.drop_left()
    port = run.state.steps.get(StepName.PORT, {}).get("status")
    if port == StepStatus.STOPPED and not WorkDir(port_settings(run.config).work_dir).exists:
        # the port finished outside the run ('port --continue', as its INSTRUCTIONS.md
        # says): what it wrote is the port's, and its step commits it
        ported = set(_port_writes(run, files, evidence=True))
        files = tuple(f for f in files if f not in ported)
    if run.state.steps.get(StepName.RUNTIME_PORT, {}).get("status") == StepStatus.STOPPED:
        # the resolution of the runtime port's markers is what that step left to finish:
        # its step commits it, as the port's commit holds a resolved conflict
        marked = set(_runtime_conflict_files(run))
        files = tuple(f for f in files if f not in marked)
    if not files:
        return (), now
    # the step the upgrade waited at: the runtime port's markers are resolved first
    after = cut_short[0] if cut_short else (_stopped_step(run) or StepName.PORT)
    subject = "upgrade: edits made by hand while the upgrade waited"
    body = (
        f"The files a person changed while the upgrade waited at its {after} step, found by "
        "'patchkeeper upgrade --continue', committed on their own before that step runs "
        "again: the changes are the person's, not a step's."
    )
    commit = commit_step(run.root, files, subject, body) if run.state.branch else None
    audited = run.state.steps.get(StepName.AUDIT, {}).get("status") == StepStatus.DONE
    run.state.facts.setdefault("edited", []).append(
        {
            "files": list(files),
            "before": str(after),
            "commit": commit,
            "subject": subject if commit else None,
            "after_audit": audited,
        }
    )
    run.work.save(run.state)
    return files, now


def _edited_patches(run: _Run) -> set[str]:
    """The series names of the patches a person edited after the audit had read them."""
    directory = Path(os.path.abspath(run.config.series.parent)).resolve()
    root = run.root.resolve()
    names = set()
    for batch in run.state.facts.get("edited", []):
        if not batch.get("after_audit"):
            continue
        for path in batch["files"]:
            full = root / path
            if full.is_relative_to(directory):
                names.add(full.relative_to(directory).as_posix())
    return names


def _conflict_first(run: _Run, step: str) -> str | None:
    """What a step after a stopped port leaves to do first when it is cut short: the
    runtime port's conflict markers (each file with its first marker's line) and the port's
    conflict, which ``--continue`` goes on with before it runs that step again (an
    interrupted run prints no list of what is left, so a conflict would be learnt only from
    ``--continue``'s refusal of its markers). ``None`` when neither port is stopped."""
    first = []
    runtime = run.state.steps.get(StepName.RUNTIME_PORT, {})
    if step != StepName.RUNTIME_PORT and runtime.get("status") == StepStatus.STOPPED:
        marked = [
            f"{name}:{line}" if (line := _first_marker(run.root / name)) else name
            for name in _runtime_conflict_files(run)
        ]
        first.append(
            f"the runtime port is stopped at conflict markers in {', '.join(marked)}: keep "
            "what the plugin needs of both sides and remove the markers"
        )
    port = run.state.steps.get(StepName.PORT, {})
    if step != StepName.PORT and port.get("status") == StepStatus.STOPPED:
        work = port_settings(run.config).work_dir
        try:
            shown = work.relative_to(run.root).as_posix()
        except ValueError:
            shown = str(work)
        first.append(
            f"the port is stopped at a conflict: resolve it in {shown}/conflict/files (see "
            f"{shown}/conflict/INSTRUCTIONS.md)"
        )
    return "; ".join(first) or None


def left_in_progress(hint: str | None, step: str, *, after: bool = False) -> str:
    """``hint`` (a step's error's advice) followed by what to do with the upgrade that error
    leaves in progress: its state stays, so that the next ``upgrade --to`` is refused with
    "already in progress" unless the error says to continue or abort. ``step``: the step it
    stopped at, or, with ``after``, the step that was through when it stopped.

    >>> left_in_progress("fix the patch", "port")[:64]
    "fix the patch; then run 'patchkeeper upgrade --continue' (the up"
    >>> left_in_progress(None, "audit")[:60]
    "run 'patchkeeper upgrade --continue' (the upgrade stopped at"
    """
    if hint and "upgrade --continue" in hint:
        return hint
    where = f"after its {step}" if after else f"at its {step}"
    return (
        f"{hint + '; then run' if hint else 'run'} 'patchkeeper upgrade --continue' (the "
        f"upgrade stopped {where} step), or 'patchkeeper upgrade --abort' to put the "
        "downstream back"
    )


def _to_run(run: _Run, name: str, record: dict[str, Any], port_ran: bool) -> bool:
    """Whether step ``name`` runs now: not done yet, or written while the port was stopped
    and the port has run since (``port_ran``: in this call). The record written while the
    port was stopped is written again both when the port is through and when it stops at a
    later patch: the record always tells the port's present state, never an earlier stop."""
    status = record.get("status")
    if name in (StepName.PORT, StepName.RUNTIME_PORT):
        return status != StepStatus.DONE and status != StepStatus.SKIPPED
    if status in (StepStatus.DONE, StepStatus.SKIPPED):
        port = run.state.steps.get(StepName.PORT, {}).get("status")
        return bool(record.get("before_port_done")) and (port == StepStatus.DONE or port_ran)
    return True


def _step(
    run: _Run,
    name: str,
    before: dict[str, tuple[int, int, int]] | None,
    theirs: tuple[tuple[str, ...], dict[str, tuple[int, int, int]]] | None = None,
) -> None:
    """Run one step: snapshot, the step, the files it wrote, its commit, the state.
    ``before``: the snapshot a run cut short in this step took before it (else one is taken
    now); ``theirs``: the files a person edited since, and the snapshot they were found in,
    which are not the step's unless it writes them again."""
    leave_out = _left_out(run)
    if before is None:
        before = snapshot(run.root, leave_out)
    run.work.start_step(name, before)
    note(f"upgrade: {name} ...")
    if run.config.source is not None:  # as the port left it: the new pin and pristine
        run.config = load_config(run.config.source)
    record = _STEP_FUNCTIONS[name](run)
    after = snapshot(run.root, leave_out)
    files = changed(before, after)
    if theirs is not None:
        edited, now = theirs
        rewritten = set(changed(now, after))
        files = tuple(f for f in files if f not in edited or f in rewritten)
    files = tuple(sorted({*files, *record.pop("written", ())}))
    earlier = run.state.steps.get(name, {}).get("files", ())
    if name in (StepName.PORT, StepName.RUNTIME_PORT) and earlier:
        # what a stopped port wrote (its evidence, the runtime port's merged copies) counts
        files = tuple(sorted({*files, *earlier}))
    subject, body = _message(run, name, record)
    # The commit and the record of it happen whole: a Ctrl-C between them left the commit
    # made and the step still running, and --continue ran it again, found nothing to
    # commit and recorded the step without its commit.
    with interrupt_deferred():
        pause_at(f"recording {name}")
        commit = None
        if run.state.branch:  # a stopped port's evidence too: the record after it reads it
            commit = commit_step(run.root, files, subject, body)
        run.state.steps[name] = {
            **record,
            "name": name,
            "files": list(files),
            "commit": commit,
            "subject": subject if commit else None,
        }
        run.work.save(run.state)
        run.work.end_step()


def _message(run: _Run, name: str, record: dict[str, Any]) -> tuple[str, str]:
    """The commit message of a step: a subject and a body (its summary)."""
    subjects = {
        StepName.AUDIT: f"upgrade: audit the series against {run.version}",
        StepName.RUNTIME_AUDIT: f"upgrade: audit the runtime patches against {run.version}",
        StepName.DECIDE: "upgrade: suggest decisions from the evidence",
        StepName.RUNTIME_PORT: f"upgrade: port the runtime patches to {run.version}",
        StepName.PORT: f"upgrade: port the series to {run.version}",
        StepName.REPORT: "upgrade: write the audit record",
    }
    subject = subjects[StepName(name)]
    if record.get("status") == StepStatus.STOPPED:
        subject += " (stopped at a conflict)"
    if name == StepName.REPORT and record.get("before_port_done"):
        subject += f" (the {record.get('stopped_step') or StepName.PORT} stopped)"
    body = (
        f"{record.get('summary', '')}\n\nWritten by 'patchkeeper upgrade --to {run.state.to}' "
        f"(step {name})."
    )
    return subject, body


def _relative(run: _Run, path: str | Path) -> str:
    try:
        return Path(os.path.abspath(path)).relative_to(run.root.resolve()).as_posix()
    except ValueError:
        return str(path)


def _audit(run: _Run) -> dict[str, Any]:
    from patchkeeper.audit.release import AuditRequest
    from patchkeeper.audit.verdicts import LOOK

    result = run.steps.audit(run.config, AuditRequest(run.state.to), save_evidence=True)
    run.state.target_version = run.state.target_version or result.target_version
    look = [
        {"kind": "series", "key": v.name, "verdict": str(v.verdict), "evidence": [v.summary]}
        for v in result.verdicts
        if v.action == LOOK
    ]
    run.state.facts["undecided"] = [
        *[f for f in run.state.facts.get("undecided", []) if f["kind"] != "series"],
        *look,
    ]
    return {
        "status": StepStatus.DONE,
        "summary": f"{plural(len(result.verdicts), 'patch')}: {result.counts_line}",
        "exit_code": result.exit_code,
    }


def _runtime_audit(run: _Run) -> dict[str, Any]:
    from patchkeeper.record import evidence_store
    from patchkeeper.record.patch_evidence import runtime_items
    from patchkeeper.runtime.settings import RuntimeAuditRequest

    # A patch file Python cannot read is left out of the audit: the decisions, the port and
    # the record would go on without its patches, and once the file is fixed '--continue'
    # would resume after the audit, so they would never be audited. Stop here instead.
    request = RuntimeAuditRequest(old=run.state.source, new=run.state.to)
    result = run.steps.runtime_audit(
        run.config, request, save_evidence=True, refuse_unparsed_as="runtime audit"
    )
    items = runtime_items(run.config, evidence_store.load_all(run.config))
    look = [
        {"kind": "runtime", "key": i.key, "verdict": i.verdict, "evidence": list(i.evidence)}
        for i in items
        if not i.suggested
    ]
    run.state.facts["undecided"] = [
        *[f for f in run.state.facts.get("undecided", []) if f["kind"] != "runtime"],
        *look,
    ]
    return {
        "status": StepStatus.DONE,
        "summary": f"{len(items)} runtime entries, {len(look)} to look at"
        + audit_findings(getattr(result, "result", result).findings, _audit_command(run.state)),
        "exit_code": result.exit_code,
    }


def _audit_command(state: UpgradeState) -> str:
    """The ``runtime audit`` command line that lists the upgrade's runtime findings."""
    return (
        f"patchkeeper runtime audit --from {shlex.quote(state.source)} --to {shlex.quote(state.to)}"
    )


def audit_findings(findings: tuple[Finding, ...], command: str) -> str:
    """The runtime audit's findings, counted by kind, for its step's summary with the
    ``command`` that lists them (``""`` when none): a target patched from two files, an
    upstream name the new release lost (the plugin breaks at import), a ``setattr`` whose
    name cannot be told. They are no entry's decision, so without this the step said "0 to
    look at" while the audit exited 1 on them. A version gate is the runtime port's to cut,
    not a finding to act on. (The step's result may be remembered, its JSON written:
    ``.result`` is then the audit's.)"""
    codes = Counter(f.code for f in findings if f.code != "version-gate")
    if not codes:
        return ""
    counted = ", ".join(f"{n} {code}" for code, n in sorted(codes.items()))
    return f"; {plural(sum(codes.values()), 'finding')} ({counted}): '{command}' lists them"


def suggestions(config: Config) -> list[dict[str, Any]]:
    """The decisions ``decide`` suggested that no person has accepted or changed yet (written
    ``decision = "suggested: carry"``): the ones this run's ``decide`` added, and those of an
    interrupted run whose ``decide`` wrote the file before the upgrade recorded it; in file
    order, each with the verdict its reason names, and whether it keeps the patch or entry
    with no removal condition written (accepting it alone leaves ``report --check`` failing)."""
    from patchkeeper.record.decisions import KEEPS, load

    found = []
    for decision in load(report_settings(config).decisions_file).tables.values():
        if decision.suggested and decision.decision:
            found.append(
                {
                    "kind": decision.kind,
                    "key": decision.key,
                    "decision": decision.decision,
                    "verdict": decision.reason.rpartition(" verdict: ")[2],
                    "needs_condition": decision.decision in KEEPS
                    and not decision.removal_condition.strip(),
                }
            )
    return found


def _decide(run: _Run) -> dict[str, Any]:
    result = run.steps.decide(run.config)
    run.state.facts["suggestions"] = suggestions(run.config)
    return {
        "status": StepStatus.DONE,
        "summary": f"{plural(len(result.added), 'table')} added, {result.kept} kept",
        "exit_code": result.exit_code,
    }


def _runtime_port(run: _Run) -> dict[str, Any]:
    """``runtime port --write``; without a series it moves the pin too. A merge that left
    conflict markers in a plugin's file stops the step, its state kept, as the port stops
    at its conflict: the steps after it run (with a series the port moves the pin), the
    record is written with the markers in, the upgrade ends stopped, and ``--continue``
    finishes the step once they are resolved (:func:`_finish_runtime_port`)."""
    from patchkeeper.runtime.port.results import CONFLICT
    from patchkeeper.runtime.port.runtime_port import RuntimePortRequest
    from patchkeeper.runtime.settings import resolve_settings

    record = run.state.steps.get(StepName.RUNTIME_PORT, {})
    if record.get("status") == StepStatus.STOPPED:
        return _finish_runtime_port(run, record)
    request = RuntimePortRequest(old=run.state.source, new=run.state.to, write=True)
    result = run.steps.runtime_port(run.config, request)
    plugin = resolve_settings(run.config).root
    series = has_series(run.config)
    conflicts = []
    for e in result.entries:
        if e.action != CONFLICT:
            continue
        hint = f"{e.conflicts} conflict region(s) marked in the copy at line {e.line}"
        first = _first_marker(plugin / e.file)  # the upgrade stops: where, and what next
        hint += f" (the first marker at line {first})" if first else ""
        hint += f": keep what the plugin needs of both sides and remove the markers, {RUNTIME_THEN}"
        conflicts.append(
            {
                "kind": "runtime",
                "name": e.target,
                "files": [_relative(run, plugin / e.file)],
                "hint": hint,
            }
        )
    run.state.facts["runtime_conflicts"] = conflicts
    run.state.facts["runtime_by_hand"] = runtime_by_hand(run, result, plugin)
    left = sum(1 for e in result.entries if e.action != "nothing to do")
    summary = f"{_ported_items(result)}, {left} changed or left by hand; "
    summary += f"{plural(len(result.files), 'file')} written"
    marked = _runtime_conflict_files(run)
    if marked:
        then = "the pin moves" if not series else "the step is done"
        return {
            "status": StepStatus.STOPPED,
            "summary": f"{summary}; stopped at conflict markers in "
            f"{', '.join(marked)}: {then} once they are resolved",
            "exit_code": result.exit_code,
            "ported": summary,
        }
    if not series:  # else the port moves the pin, with the series
        summary += f"; {move_pin(run.config, run.state.to, run.state.target_version)}"
    return {"status": StepStatus.DONE, "summary": summary, "exit_code": result.exit_code}


def runtime_by_hand(run: _Run, result: RuntimePort, plugin: Path) -> list[dict[str, Any]]:
    """The runtime port's items left by hand that no runtime entry's decision lists: an
    import the new release breaks that it did not rewrite, a finding of the audit that a
    name the plugin uses is gone that it did not handle (a module without a patch, a name
    called through its module). Each with the command that lists them: without this the
    step's summary counted them and the upgrade ended "every step done". Each as the
    state's facts keep it: ``{"text": ...}``, the line of the list."""
    from patchkeeper.runtime.port.imports import IMPORT
    from patchkeeper.runtime.port.plan import FINDING
    from patchkeeper.runtime.port.results import LEFT

    command = _audit_command(run.state)
    return [
        {"text": f"{_relative(run, plugin / e.file)}:{e.line}: {e.detail}; '{command}' lists it"}
        for e in result.entries
        if e.action == LEFT and e.decision in (IMPORT, FINDING)
    ]


#: The runtime port's items that are no runtime entry, by their ``decision``: a version
#: gate it cut or left, a header's ``Affected versions`` line, an import it retargeted or
#: left, a finding of the audit it did not handle.
_NOT_ENTRIES = {
    "gate": "version gate",
    "header": "header line",
    "import": "import",
    "finding": "audit finding",
}


def _ported_items(result: RuntimePort) -> str:
    """What the runtime port went through, its entries counted as the runtime audit counts
    them and the other items named apart: ``8 entries (and 1 import)``. Counted together,
    the summary said ``232 entries`` under the audit's ``222 runtime entries``."""
    others = {noun: 0 for noun in _NOT_ENTRIES.values()}
    for entry in result.entries:
        if entry.decision in _NOT_ENTRIES:
            others[_NOT_ENTRIES[entry.decision]] += 1
    entries = len(result.entries) - sum(others.values())
    named = [plural(count, noun) for noun, count in others.items() if count]
    return plural(entries, "entry") + (f" (and {', '.join(named)})" if named else "")


#: What to do once the markers a runtime port stopped at are resolved.
RUNTIME_THEN = "then run 'patchkeeper upgrade --continue' (or 'patchkeeper upgrade --abort')"


def _runtime_conflict_files(run: _Run) -> list[str]:
    """The plugin's files (relative to the downstream) the runtime port's merge left with
    conflict markers, in the order of its entries, each once."""
    found: dict[str, None] = {}
    for conflict in run.state.facts.get("runtime_conflicts", []):
        found.update(dict.fromkeys(conflict["files"]))
    return list(found)


def _first_marker(path: Path) -> int | None:
    """The 1-based line of the first conflict marker in the file at ``path``; ``None`` when
    it has none or is gone (a file deleted holds nothing of the merge)."""
    from patchkeeper.series.engine import FileState

    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    return first_marker(FileState.from_bytes(data, None))


def _finish_runtime_port(run: _Run, record: dict[str, Any]) -> dict[str, Any]:
    """Finish the runtime port that stopped at conflict markers: refuse while a file it
    left them in still holds one, else move the pin (without a series: with one, the port
    moves it) and count the resolved files as the step's own.

    Raises:
        UnresolvedError: markers are left, naming each file and its first marker line.
    """
    files = _runtime_conflict_files(run)
    left = [(name, line) for name in files if (line := _first_marker(run.root / name))]
    hint = f"keep what the plugin needs of both sides and remove the markers, {RUNTIME_THEN}"
    if len(left) == 1:
        [(name, line)] = left
        raise UnresolvedError(
            "conflict markers are left in this file", path=run.root / name, line=line, hint=hint
        )
    if left:
        raise UnresolvedError(
            f"conflict markers are left in {plural(len(left), 'file')}: "
            + ", ".join(f"{name}:{line}" for name, line in left),
            path=run.root,
            hint=hint,
        )
    run.state.facts["runtime_conflicts"] = []
    ported = record.get("ported") or record.get("summary", "")
    summary = f"{ported}; conflict markers resolved in {', '.join(files)}"
    if not has_series(run.config):  # else the port moves the pin, with the series
        summary += f"; {move_pin(run.config, run.state.to, run.state.target_version)}"
    return {
        "status": StepStatus.DONE,
        "summary": summary,
        "exit_code": 0,
        "written": files,
    }


def move_pin(config: Config, to: str, version: str | None) -> str:
    """Set the configured ``pin`` to ``version`` (and a configured ``pristine`` to ``to``,
    the new release: a directory relative to the downstream, or the requirement), as the
    port does for a series: a downstream of runtime patches alone is upgraded once its
    plugin is ported, and the next audit, record and upgrade start from the new release.
    Returns what was done, in words, or what is left to do by hand (no pin configured, a
    new release whose version cannot be told, a key not written on one line of its own).

    Raises:
        TargetError, LockError: the configuration file cannot be written (nothing written).
    """
    from patchkeeper.port.output import config_change, pristine_setting
    from patchkeeper.trees.downstream import commit_files, locked_downstream

    where = config.source.name if config.source is not None else "the configuration"
    if config.pin is None:
        return "no pin configured"
    if version is None:
        return f"the new release's version cannot be told: set pin in {where} by hand"
    settings = {"pin": (config.pin, version)}
    if config.pristine:
        new = pristine_setting(to, config.root) if os.path.isdir(to) else to
        settings["pristine"] = (config.pristine, new)
    if all(old == new for old, new in settings.values()):
        return f"pin {version} already"
    change = config_change(config, settings)
    wanted = ", ".join(f'{key} = "{new}"' for key, (_, new) in settings.items())
    if change is None:
        return f"set {wanted} in {where} by hand"
    with locked_downstream(config):
        commit_files(config, [change])
    return f"set {wanted} in {where}"


def port_step(run: _Run) -> dict[str, Any]:
    """Start the port, or go on with it: ``--continue`` when its work directory is there;
    taken as done when a run was cut short after the port wrote the series (its inputs
    changed since: the port writes them in one journaled transaction); else started."""
    work = WorkDir(port_settings(run.config).work_dir)
    record = run.state.steps.get(StepName.PORT, {})
    if work.exists:
        action = "continue"
    elif record.get("inputs") and changed_inputs(record["inputs"]):
        # finished by 'port --continue', which saved its result over the stop's evidence:
        # the suggestions it made stale are the port's now, as when this step ran it
        if replace_stale(run.config):
            run.state.facts["suggestions"] = suggestions(run.config)
        return {
            "status": StepStatus.DONE,
            "summary": "the series was ported in an earlier run",
            "written": list(_ported_by_hand(run)),
        }
    else:
        action = "port"
        run.state.steps[StepName.PORT] = {**record, "inputs": _port_inputs(run.config)}
        run.work.save(run.state)
    starting = action == "port"
    try:
        request = PortRequest(
            to=run.state.to if starting else None,
            source=run.state.source if starting else None,
            in_place=starting,
            action=action,
        )
        result = run.steps.port(run.config, request, save_evidence=True)
    except PatchkeeperError as exc:  # the port's advice, as the upgrade's commands
        if starting and not isinstance(exc, Interrupted) and not work.exists:
            # refused before it wrote anything: the series' inputs it recorded say nothing,
            # and --continue starts the port again, also on a series edited since to fix
            # what it refused (never "ported in an earlier run")
            kept = {key: value for key, value in record.items() if key != "inputs"}
            if kept:
                run.state.steps[StepName.PORT] = kept
            else:
                run.state.steps.pop(StepName.PORT, None)
            run.work.save(run.state)
        if exc.hint:
            for word in ("continue", "abort"):
                exc.hint = exc.hint.replace(f"port --{word}", f"upgrade --{word}")
        raise
    run.state.target_version = run.state.target_version or result.target_version
    # a suggestion made before the port about a patch it took out, or to update a patch
    # it carried, is now the port's
    if replace_stale(run.config):
        run.state.facts["suggestions"] = suggestions(run.config)
    stopped = result.stopped_at is not None and result.outcome == "stopped"
    counts = ", ".join(f"{n} {word}" for word, n in result.counts.items())
    summary = f"stopped at {result.stopped_at}; {counts}" if stopped else counts
    return {
        "status": StepStatus.STOPPED if stopped else StepStatus.DONE,
        "summary": summary,
        "exit_code": result.exit_code,
        "inputs": run.state.steps.get(StepName.PORT, {}).get("inputs"),
        "by_hand": list(result.by_hand),
    }


def _ported_by_hand(run: _Run) -> tuple[str, ...]:
    """The files of the series, its configuration and its ledger changed since the upgrade
    started and committed by no step: what a port finished outside the upgrade's run wrote
    (``port --continue``, as the port's INSTRUCTIONS.md says, or a run cut short after the
    port's journaled write), so the port step's commit holds them."""
    start = run.work.start()
    if start is None:
        return ()
    leave_out = [run.work.root, port_settings(run.config).work_dir]
    now = snapshot(run.root, leave_out)
    committed = {f for step in run.state.steps.values() for f in step.get("files", ())}
    committed |= {f for batch in run.state.facts.get("edited", []) for f in batch["files"]}
    return tuple(p for p in _port_writes(run, changed(start, now)) if p not in committed)


def _port_writes(run: _Run, paths: tuple[str, ...], evidence: bool = False) -> tuple[str, ...]:
    """Those of ``paths`` (relative to the downstream) a port writes: in the series'
    directory, the ledger, the configuration file; with ``evidence``, the evidence
    directory too (``port --continue --save-evidence``)."""
    from patchkeeper.ledger.settings import ledger_settings
    from patchkeeper.record.evidence_store import evidence_dir

    root = run.root.resolve()
    places = [run.config.series.parent, Path(ledger_settings(run.config).file)]
    if evidence:
        places.append(evidence_dir(run.config))
    if run.config.source is not None:
        places.append(run.config.source)
    wanted = [Path(os.path.abspath(place)).resolve() for place in places]
    return tuple(
        path
        for path in paths
        if any((root / path) == w or (root / path).is_relative_to(w) for w in wanted)
    )


def _port_inputs(config: Config) -> dict[str, str]:
    """The sha256 of the files an in-place port rewrites: the series and the configuration."""
    files = {config.series: config.series.read_bytes()}
    if config.source is not None:
        files[config.source] = config.source.read_bytes()
    return input_digests(files)


def _report(run: _Run) -> dict[str, Any]:
    result = run.steps.report(run.config)
    stopped = [
        str(name)
        for name in (StepName.RUNTIME_PORT, StepName.PORT)
        if run.state.steps.get(name, {}).get("status") == StepStatus.STOPPED
    ]
    written = ", ".join(_relative(run, p) for p in result.written)
    problems = len(result.findings)
    return {
        "status": StepStatus.DONE,
        "summary": f"wrote {written}: {problems} finding(s) in the record",
        "exit_code": result.exit_code,
        "before_port_done": bool(stopped),
        "stopped_step": " and the ".join(stopped) or None,
    }


_STEP_FUNCTIONS: dict[str, Callable[[_Run], dict[str, Any]]] = {
    StepName.AUDIT: _audit,
    StepName.RUNTIME_AUDIT: _runtime_audit,
    StepName.DECIDE: _decide,
    StepName.RUNTIME_PORT: _runtime_port,
    StepName.PORT: port_step,
    StepName.REPORT: _report,
}


# --------------------------------------------------------------------------- abort, result


def _refuse_port_alone(config: Config, work: UpgradeDir, action: str) -> None:
    """Refuse ``upgrade --continue``/``--abort`` where no upgrade is in progress but a port
    started by ``patchkeeper port`` waits: the port goes on (or is dropped) by its own
    command, which the refusal names.

    Raises:
        UpgradeStateError: so.
    """
    if work.exists:
        return
    port_work = WorkDir(port_settings(config).work_dir)
    if not port_work.exists:
        return
    raise UpgradeStateError(
        "no upgrade is in progress, but a port is",
        path=port_work.root,
        hint=f"the port was started by 'patchkeeper port', not by an upgrade: run "
        f"'patchkeeper port --{action}'",
    )


def _abort(config: Config, steps: Steps, work: UpgradeDir) -> UpgradeResult:
    """Drop the upgrade: the port's work directory (``port --abort``); with ``--branch``
    every commit (the branch it started from checked out again, the upgrade's branch
    deleted); then every file the upgrade created. Without ``--branch`` a file that existed
    and a step changed stays as the step wrote it: the result lists them
    (:attr:`UpgradeResult.kept_files`)."""
    state = work.load()
    run = _Run(config, steps, work, state)
    if WorkDir(port_settings(config).work_dir).exists:
        steps.port(config, PortRequest(action="abort"))
    if state.branch:
        restore(config.root, state.base, state.branch)
    start = work.start()
    kept = []
    if start is not None:
        now = snapshot(config.root, [work.root, port_settings(config).work_dir])
        for path in changed(start, now):
            if path not in start:
                _delete(config.root, path, start)
            elif path in now and not state.branch:  # git put back a committed file
                kept.append(path)
    work.remove()
    return replace(_result(run, "abort", UpgradeOutcome.ABORTED), kept_files=tuple(kept))


def _delete(root: Path, path: str, start: dict[str, tuple[int, int, int]]) -> None:
    """Delete the file ``path`` (relative to ``root``) the upgrade created, and the
    directories above it that held no file before the upgrade and are empty now."""
    (root / path).unlink(missing_ok=True)
    before = {parent for p in start for parent in Path(p).parents}
    for parent in Path(path).parents:
        if parent == Path(".") or parent in before:
            break
        try:
            (root / parent).rmdir()
        except OSError:
            break


def _result(run: _Run, action: str, outcome: str) -> UpgradeResult:
    state = run.state
    records = []
    for name in STEPS:
        data = state.steps.get(name)
        if data is None:
            records.append(StepRecord(name, StepStatus.PENDING))
            continue
        records.append(
            StepRecord(
                name=name,
                status=data.get("status", StepStatus.PENDING),
                summary=data.get("summary", ""),
                exit_code=int(data.get("exit_code", 0)),
                files=tuple(data.get("files", ())),
                commit=data.get("commit"),
                subject=data.get("subject"),
            )
        )
    conflicts = []
    port = run.state.steps.get(StepName.PORT, {}).get("status")
    if outcome == UpgradeOutcome.STOPPED and port == StepStatus.STOPPED:
        conflicts.append(_series_conflict(run))
    if outcome != UpgradeOutcome.ABORTED:
        conflicts += [
            Conflict(**{**c, "files": tuple(c["files"])})
            for c in state.facts.get("runtime_conflicts", [])
        ]
    decided = _decided_now(run)
    dropped = _dropped_now(run)
    edited = _edited_patches(run)
    undecided = tuple(
        Undecided(
            u["kind"],
            u["key"],
            u["verdict"],
            tuple(u["evidence"]),
            before_edit=u["kind"] == SERIES and u["key"] in edited,
        )
        for u in state.facts.get("undecided", [])
        if (u["kind"], u["key"]) not in decided and not dropped(u["kind"], u["key"])
    )
    done = outcome != UpgradeOutcome.ABORTED
    suggestions = tuple(
        Suggestion(**s, before_edit=s["kind"] == SERIES and s["key"] in edited)
        for s in _suggestions_now(run)
        if done and (not dropped(s["kind"], s["key"]) or s["decision"] in DROPS)
    )
    return UpgradeResult(
        action=action,
        outcome=outcome,
        root=str(run.root),
        to=state.to,
        source=state.source,
        target_version=state.target_version,
        branch=state.branch,
        base=state.base,
        steps=tuple(records),
        state_dir=str(run.work.root) if outcome == UpgradeOutcome.STOPPED else None,
        decisions_file=_relative(run, report_settings(run.config).decisions_file),
        conflicts=tuple(conflicts),
        undecided=undecided if done else (),
        suggestions=suggestions if done else (),
        by_hand=(
            tuple(f["text"] for f in state.facts.get("runtime_by_hand", ()))
            + tuple(state.steps.get(StepName.PORT, {}).get("by_hand", ()))
        )
        if done
        else (),
        verify=verify_commands(state) if done else (),
        rebase=rebase_commands(run) if outcome == UpgradeOutcome.DONE else (),
        edited=tuple(
            Edited(tuple(e["files"]), e["before"], e.get("commit"), e.get("subject"))
            for e in state.facts.get("edited", [])
        ),
    )


def _suggestions_now(run: _Run) -> list[dict[str, Any]]:
    """The suggestions nobody has reviewed yet, as the decisions file says now: a person
    accepts or changes them while the upgrade waits at a conflict (the list of what is left
    says to), and the ``--continue`` that follows listed them still, as ``decide`` had
    written them. The ones kept in the state when the file cannot be read now (its error is
    ``report --check``'s to tell)."""
    if StepName.DECIDE not in run.state.steps:
        return list(run.state.facts.get("suggestions", []))
    try:
        return suggestions(run.config)
    except PatchkeeperError:
        return list(run.state.facts.get("suggestions", []))


def _decided_now(run: _Run) -> set[tuple[str, str]]:
    """``(kind, key)`` of every table the decisions file holds a person's decision in now:
    a patch the audit answered *look* for, decided while the upgrade waited at a conflict,
    is no longer left to look at. Empty when the file cannot be read."""
    try:
        tables = load_decisions(report_settings(run.config).decisions_file).tables
    except PatchkeeperError:
        return set()
    return {key for key, table in tables.items() if table.decision and not table.suggested}


def _dropped_now(run: _Run) -> Callable[[str, str], bool]:
    """Whether a ``(kind, key)`` is a patch the series file no longer names now: a patch a
    person dropped while the upgrade waited at its conflict (the port's files directory
    left empty, and the port took its line out of the series) is no longer left to look at,
    and a suggestion to carry or port it is moot (a suggestion to retire it stays: it
    records the drop). Nothing is dropped when the series file cannot be read (its error is
    ``lint``'s to tell)."""
    try:
        named = {entry.name for entry in parse_series(run.config.series).entries}
    except PatchkeeperError:
        return lambda kind, key: False
    return lambda kind, key: kind == SERIES and key not in named


def _series_conflict(run: _Run) -> Conflict:
    """The port's stopped patch and the files waiting in its work directory."""
    work = WorkDir(port_settings(run.config).work_dir)
    files = work.conflict / "files"
    paths = sorted(p for p in files.rglob("*") if p.is_file()) if files.is_dir() else []
    marked = [
        p
        for p in paths
        if has_markers(p.read_bytes(), work.references(p.relative_to(files).as_posix()))
    ]
    paths = marked or paths  # the files to edit; all of them when none has markers
    stopped = work.load().stopped or "" if work.exists else ""
    instructions = _relative(run, work.conflict / "INSTRUCTIONS.md")
    then = "then run 'patchkeeper upgrade --continue' (or 'patchkeeper upgrade --abort')"
    if not paths:  # target gone, its content found nowhere: no file to edit yet
        return Conflict(
            kind="series",
            name=stopped,
            files=(),
            hint="no file to edit: the files it patches are gone from the new pin and their "
            f"content was found nowhere (see {instructions}); copy the file the change belongs "
            f"in now into {_relative(run, files)}/ and edit it there, or leave that directory "
            f"empty to drop the patch, {then}",
        )
    return Conflict(
        kind="series",
        name=stopped,
        files=tuple(_relative(run, p) for p in paths),
        hint=f"edit them to what the patch should make of the new pin (see {instructions}), {then}",
    )


def rebase_commands(run: _Run) -> tuple[str, ...]:
    """The git commands that bring the user's branch onto the new release, when the
    downstream is a git branch of the user's commits on the old pin's upstream tag (as
    ``init`` takes a checkout whose ``git describe`` finds a tag): the port moved the series,
    and the branch is still on the old tag. ``git rebase --onto NEWTAG OLDTAG BRANCH``
    replays every commit since the old tag (the user's, the downstream's files, the
    upgrade's) onto the new one, ``git fetch`` first when the new tag is not in the
    checkout. Empty when the port did not run to its end, or the checkout's history does
    not hold the old pin's tag (a downstream that is not an upstream checkout)."""
    from patchkeeper.ledger.settings import git_settings
    from patchkeeper.record.evidence_store import load_all
    from patchkeeper.record.stored_results import port_result
    from patchkeeper.upstream import gitops

    if run.state.steps.get(StepName.PORT, {}).get("status") != StepStatus.DONE:
        return ()
    try:
        port = port_result(load_all(run.config))
        if port is None or not port.source_version or not port.target_version:
            return ()
        form = git_settings(run.config).pin_tag
        old, new = form.format(pin=port.source_version), form.format(pin=port.target_version)
        if not gitops.has_revision(run.root, f"{old}^{{commit}}"):
            return ()
        under = gitops.call(["merge-base", "--is-ancestor", old, "HEAD"], run.root)
        if under.returncode != 0:
            return ()
        current = gitops.call(["branch", "--show-current"], run.root)
        fetched = gitops.has_revision(run.root, f"{new}^{{commit}}")
    except PatchkeeperError:  # git missing, the evidence unreadable: nothing to offer
        return ()
    branch = run.state.branch or current.stdout.decode("utf-8", "surrogateescape").strip()
    commands = []
    if not fetched:
        commands.append(
            f"git fetch UPSTREAM tag {new}  # UPSTREAM: the remote with the upstream's tags; "
            f"{new} is not in this checkout"
        )
    commands.append(f"git rebase --onto {new} {old} {branch}".rstrip())
    return tuple(commands)


def verify_commands(state: UpgradeState) -> tuple[str, ...]:
    """The commands that check the upgraded downstream, in order: the new series applied
    to a copy of the new pin and verified, lint, the plugin's patches live in an
    environment with the new pin, the record true. Made of the state alone (no file is
    read): the copy is of the tree the start found (``state.new_tree``: the ``--to``
    directory, or the release the steps fetched, so that nobody fetches and unpacks it
    again), into a new temporary directory, so that the commands run as printed and the
    copy changes nothing the record read; or left to a person for a state that names
    none."""
    commands = []
    steps = state.steps
    if steps.get(StepName.PORT, {}).get("status") in (StepStatus.DONE, StepStatus.STOPPED):
        to = state.to
        tree = state.new_tree
        if tree:
            # The copy goes to a new directory outside the downstream: made in it (a
            # literal COPY pasted there), it would be a change to the tree the record
            # read, and the last command, report --check, would fail on it.
            commands.append(
                f"COPY=$(mktemp -d) && cp -R {shlex.quote(tree + '/.')} $COPY && "
                "patchkeeper apply --target $COPY && patchkeeper verify --target $COPY"
            )
        else:
            commands.append(
                "patchkeeper apply --target COPY && patchkeeper verify --target COPY"
                f"  # COPY: an unpacked {to}, outside this downstream"
            )
        commands.append("patchkeeper lint")
    if steps.get(StepName.RUNTIME_PORT, {}).get("status") in (StepStatus.DONE, StepStatus.STOPPED):
        commands.append(
            "patchkeeper runtime check --python PYTHON  # PYTHON: an environment with the "
            f"plugin and {state.to} installed"
        )
        if "patchkeeper lint" not in commands:  # the dependency files against the new pin
            commands.append("patchkeeper lint")
    commands.append("patchkeeper report --check")
    return tuple(commands)
