"""A port session: ``port`` started, ``--continue``d or ``--abort``ed under the downstream's lock.

Every patch is carried onto the new pin in series order (:mod:`patchkeeper.port.rebase`),
with the upstream history added as evidence. The first real conflict stops the session, like
``git rebase``: its files wait in the work directory with conflict markers and their upstream
cause (:mod:`patchkeeper.port.instructions`); ``--continue`` replays the series with the
resolved files, refusing when an input changed since the start (:func:`check_inputs`);
``--abort`` drops the work directory. When every patch is through, the new series is written
(:func:`patchkeeper.port.finish.finish`) and the work directory removed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from patchkeeper.config import Config
from patchkeeper.errors import ConfigError, PatchkeeperError
from patchkeeper.port.context import (
    NEW_TREE,
    OLD_TREE,
    PortContext,
    build_context,
    check_a_newer_release,
    default_output,
    port_base,
    stable_spec,
)
from patchkeeper.port.finish import DONE, LEDGER_REWRITTEN, STOPPED, finish, todo_items
from patchkeeper.port.instructions import TERMINAL, GoOn, instructions
from patchkeeper.port.memo import Memo, memo_key
from patchkeeper.port.merge import Labels
from patchkeeper.port.output import check_output
from patchkeeper.port.rebase import Rebase, SeriesDoesNotApplyError, Step
from patchkeeper.port.request import PortRequest
from patchkeeper.port.results import ABORTED, PortResult
from patchkeeper.port.settings import port_settings
from patchkeeper.port.workdir import (
    STATE,
    PortState,
    PortStateError,
    WorkDir,
    changed_inputs,
    input_digests,
)
from patchkeeper.progress import note
from patchkeeper.series.engine import FileState
from patchkeeper.system.english import plural
from patchkeeper.trees.downstream import journal_dir
from patchkeeper.trees.target_label import TargetLabel
from patchkeeper.trees.transaction import locked, recover
from patchkeeper.trees.tree import check_tree_given
from patchkeeper.upstream.requirements import check_new_release
from patchkeeper.upstream.treesearch import TreeSearch


def port_series(config: Config, request: PortRequest, go_on: GoOn = TERMINAL) -> PortResult:
    """Start a port (``request.action == "port"``), go on with one stopped at a conflict
    (``"continue"``) or drop it (``"abort"``), under the downstream's lock, after rolling back
    any journaled write cut short (the port's own, a ``retire``'s or the ledger's).

    ``request`` says the new and the old pin, where the new series goes, whether retirements
    are recorded and which upstream history is the evidence (:class:`PortRequest`). ``go_on``:
    how the ``INSTRUCTIONS.md`` of a stop names the ways on (:class:`GoOn`: the command
    lines, or the tools of the MCP server that ran this).

    Returns:
        The port's result: ``done`` (the new series written, the work directory removed),
        ``stopped`` (the conflict's files waiting in the work directory) or ``aborted``.

    Raises:
        ConfigError: ``--to`` is missing, ``--retire`` without ``--in-place`` or a ledger.
        PortStateError: a port is (or is not) in progress.
        UnresolvedError: ``--continue`` with conflict markers left.
        PortStateError: ``--continue`` after the series, a patch or the configuration
            changed since the port started (see :func:`check_inputs`).
        PatchFormatError, FetchError, TargetError, GitError: as their names say.
    """
    settings = port_settings(config)
    work = WorkDir(settings.work_dir)
    with locked(config.root, config.lock_timeout, "the downstream's port"):
        recover(work.journal, config.root)
        recover(journal_dir(config), config.root)  # a retire or ledger write cut short
        if request.action in ("abort", "continue") and not work.exists:
            blocker = work.file_in_the_way()
            if blocker is not None:
                raise PortStateError(
                    f"{work.file_words(blocker)}, so no port is in progress there",
                    path=blocker,
                    hint=f"a port keeps its state in a directory: if one was started with "
                    "another [tool.patchkeeper.port] work-dir, set it back and run this again; "
                    f"else move the file {blocker} away and start a port with 'patchkeeper "
                    "port --to NEWPIN'",
                )
            raise PortStateError("no port is in progress", path=work.root, hint=_no_port(config))
        if request.action == "abort":
            state = work.load()
            work.remove()
            return PortResult("abort", ABORTED, state.series, work_dir=str(work.root))
        if request.action == "continue":
            return _continue(config, work, go_on)
        return _start(config, work, request, go_on)


def _no_port(config: Config) -> str:
    """What to do when ``--continue`` or ``--abort`` finds no port: in a git checkout whose
    series or configuration differs from ``HEAD``, the last port has finished and its writes
    are not committed (``git diff`` shows them): a ``--continue`` that carried the port
    through, or a run cut short after its last write, finished all the same; else no port
    was started, or the last one finished. Either way the configured pin says where the
    series is."""
    from patchkeeper.upstream import gitops

    again = "to port the series, run 'patchkeeper port --to NEWPIN'"
    pin = f"the series is at pin {config.pin}" if config.pin else "the series has no pin"
    places = [str(config.series.parent)]
    if config.source is not None:
        places.append(str(config.source))
    try:
        done = gitops.call(["status", "--porcelain", "--", *places], config.root)
    except PatchkeeperError:  # git is not installed
        done = None
    if done is not None and done.returncode == 0 and done.stdout.strip():
        return (
            f"{pin}: the last port has finished and its changes are not committed (git diff "
            f"shows them); {again}"
        )
    return f"no port was started here, or the last one finished: {pin}; {again}"


def _evidence(ctx: PortContext, step: Step) -> Step:
    """Add the upstream history to a step: references, and causes of failed hunks."""
    if ctx.history is None:
        return step
    patch = next(p for p in ctx.patches if p.name == step.record.name)
    references = tuple(ctx.history.references(patch))
    causes = []
    # by the header's line in the patch file: two diffs of one file both have a hunk #1
    failed = {(h.path, h.patch_line) for h in step.record.failed_hunks}
    for diff in patch.files:
        for hunk in diff.hunks:
            if (diff.path, hunk.line_no) in failed:
                causes.append(ctx.history.cause(diff.path, hunk))
    step.record = replace(step.record, references=references, causes=tuple(causes))
    return step


def _port(ctx: PortContext) -> tuple[list[Step], int | None]:
    return _port_with(ctx, ctx.work.resolutions())


def _port_with(
    ctx: PortContext, resolutions: Mapping[str, Mapping[str, FileState | None]]
) -> tuple[list[Step], int | None]:
    note(
        f"porting {plural(len(ctx.patches), 'patch')} from {ctx.old_version or ctx.state.old} to "
        f"{ctx.new_version} ..."
    )
    labels = Labels(
        f"new pin {ctx.new_version}", f"old pin {ctx.old_version or ctx.state.old}", "patch"
    )
    memo = Memo.load(ctx.work.root, memo_key([ctx.old.label, ctx.new.label]))
    rebase = Rebase(
        ctx.patches,
        ctx.old.reader(),
        ctx.new.reader(),
        TreeSearch(ctx.new.base, ctx.new.label),
        ctx.new_version,
        labels,
        resolutions,
        pin=TreeSearch(ctx.old.base, ctx.old.label),
        memo=memo,
    )
    try:
        steps, stopped = rebase.run()
    except SeriesDoesNotApplyError as exc:
        raise exc.ported_from(ctx.state.old) from None
    ctx.memo = memo
    if ctx.history is not None:
        note(f"looking up upstream history in {ctx.history.label} ...")
    return [_evidence(ctx, step) for step in steps], stopped


def _write_conflict(ctx: PortContext, step: Step) -> None:
    patch = next(p for p in ctx.patches if p.name == step.record.name)
    history = ctx.history.label if ctx.history else None
    label = f"the new pin {ctx.new_version}"
    text = instructions(step.record, ctx.work.root, label, history, ctx.go_on)
    ctx.work.write_conflict(patch, step.merges, step.base, step.old, step.patched, text)


# --------------------------------------------------------------------------- finishing


def _result(
    ctx: PortContext,
    action: str,
    steps: list[Step],
    stopped: int | None,
    where: str | None = None,
    retired: tuple[str, ...] = (),
    extra: tuple[str, ...] = (),
) -> PortResult:
    records = [step.record for step in steps]
    outcome = STOPPED if stopped is not None else DONE
    return PortResult(
        action=action,
        outcome=outcome,
        series=ctx.state.series,
        source=ctx.old.label,
        target=_target_label(ctx),
        source_version=ctx.old_version,
        target_version=ctx.new_version,
        patches=tuple(records),
        stopped_at=records[stopped].name if stopped is not None else None,
        work_dir=str(ctx.work.root) if stopped is not None else None,
        output=where,
        in_place=ctx.state.in_place,
        retired=retired,
        history=ctx.history.label if ctx.history else None,
        todo=tuple(todo_items(ctx, records, outcome, where)) + extra,
        by_hand=tuple(item for item in extra if item != LEDGER_REWRITTEN),
    )


def _target_label(ctx: PortContext) -> str:
    """The new tree's label; when its version was read from its directory's name, saying so
    (the text report's ``to`` line) and holding that version (the JSON ``target``)."""
    label = ctx.new.label
    if not ctx.version_from_name or not isinstance(label, TargetLabel):
        return label
    return TargetLabel(
        f"{label} (version {ctx.new_version} read from its name)",
        kind=label.kind,
        path=Path(label.path),
        name=label.name or ctx.config.upstream,
        version=ctx.new_version,
    )


def _conclude(ctx: PortContext, action: str, steps: list[Step], stopped: int | None) -> PortResult:
    if stopped is not None:
        if not ctx.work.exists:
            ctx.state = replace(ctx.state, inputs=_inputs(ctx))
            ctx.work.start(ctx.state, ctx.series, ctx.patches)
        ctx.work.save(replace(ctx.state, stopped=steps[stopped].record.name))
        if ctx.memo is not None:
            ctx.memo.save(ctx.work.root)
        _write_conflict(ctx, steps[stopped])
        return _result(ctx, action, steps, stopped)
    where, retired, extra = finish(ctx, steps)
    ctx.work.remove()
    return _result(ctx, action, steps, None, where, retired, extra)


def _inputs(ctx: PortContext) -> dict[str, str]:
    """The sha256 of every file the port read as it started: the series, the patches (the
    bytes it parsed), the configuration."""
    files = {ctx.series.path: ctx.series.path.read_bytes()}
    files.update((patch.path, patch.raw) for patch in ctx.patches)
    if ctx.config.source is not None:
        files[ctx.config.source] = ctx.config.source.read_bytes()
    return input_digests(files)


def check_inputs(config: Config, work: WorkDir, state: PortState) -> None:
    """Refuse to go on when an input of the port changed since it started: the port replays
    from its copy in ``original/`` and would silently overwrite (in place) or leave out the
    edit (the user-test report, bug 4).

    Raises:
        PortStateError: naming each changed file, relative to the downstream.
    """
    changed = changed_inputs(state.inputs or {})
    if not changed:
        return
    names = ", ".join(f"{_shown(path, config.root)} ({how})" for path, how in changed)
    raise PortStateError(
        f"the port's inputs changed since it started: {names}",
        path=work.root,
        hint=f"the port carries the series as it was then (copied in {work.root / 'original'}) "
        "and would lose the change: undo it and run 'patchkeeper port --continue' again, or "
        "run 'patchkeeper port --abort' and start the port again to carry the changed series",
    )


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


# --------------------------------------------------------------------------- starting and going on


def _start(config: Config, work: WorkDir, request: PortRequest, go_on: GoOn) -> PortResult:
    to, source, in_place, retire = request.to, request.source, request.in_place, request.retire
    upstream_repo, output = request.upstream_repo, request.output
    if to is not None:  # a release typed wrong is named before a port in progress
        check_new_release("port", to, source, config.upstream, config.source)
        check_tree_given(to, NEW_TREE)
        check_tree_given(source, OLD_TREE)
    if work.exists:
        work.load()
        raise PortStateError(
            "a port is already in progress",
            path=work.root,
            hint="run 'patchkeeper port --continue' or 'patchkeeper port --abort'",
        )
    work.refuse_file()
    to = check_new_release("port", to, source, config.upstream, config.source)
    if retire:
        _check_retire(config, in_place)
    if in_place:  # the port ends by rewriting the ledger's table: checked before any write
        from patchkeeper.ledger.table import check_ledger_markers

        check_ledger_markers(config)
    state = PortState(
        series=str(config.series),
        old=port_base(config, source),
        new=stable_spec(to),
        in_place=in_place,
        retire=retire,
        output=None,
        upstream_repo=str(upstream_repo.resolve()) if upstream_repo else None,
    )
    ctx = build_context(config, state, work, config.series)
    ctx.go_on = go_on
    check_a_newer_release(
        config, ctx.new_version, ctx.old_version, configured=not source, command="port"
    )
    if not in_place:
        out = output.resolve() if output else default_output(config.series.parent, ctx)
        check_output(out, "given" if output else "default")
        ctx.state = replace(state, output=str(out))
    steps, stopped = _port(ctx)
    return _conclude(ctx, "port", steps, stopped)


def _check_retire(config: Config, in_place: bool) -> None:
    if not in_place:
        raise ConfigError(
            "--retire records retirements in the ledger of the series in use",
            hint="use it with --in-place, or retire later with 'patchkeeper retire'",
        )
    from patchkeeper.ledger.settings import ledger_settings

    ledger_file = ledger_settings(config).file
    if not Path(ledger_file).is_file():
        raise ConfigError(
            "--retire needs the ledger file, which does not exist",
            path=ledger_file,
            hint="create it with 'patchkeeper ledger', or port without --retire",
        )


def check_same_series(config: Config, work: WorkDir, state: PortState) -> None:
    """Refuse to go on with a port started for another series than the configuration's: a
    downstream copied or moved with its port stopped keeps, in its work directory, the
    paths of where the port started, and going on would read and write the series there,
    outside this downstream.

    Raises:
        PortStateError: naming both series.
    """
    started = Path(state.series)
    if started.resolve() == config.series.resolve():
        return
    raise PortStateError(
        f"the port in progress was started for the series {started}, not this downstream's "
        f"{config.series}: the downstream was copied or moved since, and going on would "
        "write there",
        path=work.root / STATE,
        hint="run 'patchkeeper port --abort' here and start the port again, or run "
        f"'patchkeeper port --continue' in {_origin(config, started)}, the downstream it was "
        "started in",
    )


def _origin(config: Config, started: Path) -> Path:
    """The downstream a port for the series ``started`` was started in: ``started`` less
    the series' path inside this downstream, or the series' directory when they differ."""
    try:
        inside = config.series.relative_to(config.root).parts
    except ValueError:
        return started.parent
    if inside and started.parts[-len(inside) :] == inside:
        return Path(*started.parts[: -len(inside)])
    return started.parent


def _continue(config: Config, work: WorkDir, go_on: GoOn) -> PortResult:
    state = work.load()
    check_same_series(config, work, state)
    check_inputs(config, work, state)
    if not work.has_conflict:
        # A run cut short between starting the work directory (or recording a resolution)
        # and writing the conflict: replaying with the resolutions recorded so far stops
        # at the same patch again, or finishes.
        ctx = build_context(config, state, work, work.original_series())
        ctx.go_on = go_on
        steps, stopped = _port(ctx)
        return _conclude(ctx, "continue", steps, stopped)
    name, resolved = work.read_resolution()
    ctx = build_context(config, state, work, work.original_series())
    ctx.go_on = go_on
    resolutions = {**work.resolutions(), name: resolved}
    labels_ctx = ctx
    steps, stopped = _port_with(labels_ctx, resolutions)
    work.save_resolution(name, resolved)
    return _conclude(ctx, "continue", steps, stopped)
