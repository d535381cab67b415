"""``port --to TARGET``: carry the series to a new upstream release, with evidence.

Every patch is carried onto the new pin in series order (:mod:`patchkeeper.port.rebase`):
regenerated when it applies, merged with git's three-way merge when it does not, proposed
for retirement when upstream has it. The first real conflict stops the port, like ``git
rebase``: its files wait in the work directory with conflict markers and their upstream
cause; ``port --continue`` regenerates that patch from the resolved files and carries on;
``port --abort`` drops the work directory. Nothing outside the work directory is written
until every patch is through; then the new series goes to a new directory (default: beside
the series directory, named after the new pin) or, with ``--in-place``, over the old one.

Exit 0 when the port is done (or aborted), 1 when it stopped at a conflict.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from patchkeeper.commands.common import check_paths
from patchkeeper.config import Config
from patchkeeper.engine import FileState
from patchkeeper.errors import ConfigError, TargetError
from patchkeeper.model import Patch, Series
from patchkeeper.parse import load_patches, parse_series
from patchkeeper.port.history import IN_NEW, IN_OLD, UpstreamHistory, find_tag
from patchkeeper.port.instructions import instructions
from patchkeeper.port.merge import Labels
from patchkeeper.port.output import (
    check_output,
    config_change,
    config_text,
    retire_note,
    series_bytes,
    write_directory,
    write_in_place,
)
from patchkeeper.port.rebase import CARRIED, RETIRING, PortedPatch, Rebase, Step
from patchkeeper.port.settings import port_settings
from patchkeeper.port.workdir import PortState, WorkDir
from patchkeeper.progress import note
from patchkeeper.transaction import locked, recover
from patchkeeper.trees import Tree, spec_tree
from patchkeeper.treesearch import TreeSearch

DONE = "done"
STOPPED = "stopped"
ABORTED = "aborted"


@dataclass(frozen=True)
class PortResult:
    """The outcome of ``port``, ``port --continue`` or ``port --abort``.

    Attributes:
        action: ``"port"``, ``"continue"`` or ``"abort"``.
        outcome: :data:`DONE`, :data:`STOPPED` or :data:`ABORTED`.
        series: the series file.
        source, target: the old and new pin's trees, described.
        source_version, target_version: their versions.
        patches: every patch of the series, in order, with its verdict and evidence.
        stopped_at: the patch whose conflict waits in the work directory.
        work_dir: the work directory (while a port is in progress).
        output: the new series directory, or the series directory rewritten in place.
        in_place: the series was rewritten where it is.
        retired: patches recorded in the ledger's Retired section (``--retire``).
        history: the upstream checkout and tags used as evidence, ``None`` without one.
        todo: what is left to do, in order.
    """

    action: str
    outcome: str
    series: str
    source: str = ""
    target: str = ""
    source_version: str | None = None
    target_version: str | None = None
    patches: tuple[PortedPatch, ...] = ()
    stopped_at: str | None = None
    work_dir: str | None = None
    output: str | None = None
    in_place: bool = False
    retired: tuple[str, ...] = ()
    history: str | None = None
    todo: tuple[str, ...] = ()

    @property
    def counts(self) -> dict[str, int]:
        """How many patches got each verdict (pending ones counted as ``pending``)."""
        return dict(Counter("pending" if p.pending else p.verdict for p in self.patches))

    @property
    def exit_code(self) -> int:
        return 1 if self.outcome == STOPPED else 0


@dataclass
class _Context:
    config: Config
    state: PortState
    work: WorkDir
    series: Series
    patches: list[Patch]
    old: Tree
    new: Tree
    old_version: str | None
    new_version: str
    history: UpstreamHistory | None


# --------------------------------------------------------------------------- versions


def tree_version(tree: Tree) -> str | None:
    """The version of an upstream tree: known from the fetch, else ``PKG-INFO``'s
    ``Version:``, else ``[project] version`` of its ``pyproject.toml``."""
    if tree.version:
        return tree.version
    pkg_info = tree.root / "PKG-INFO"
    if pkg_info.is_file():
        for line in pkg_info.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("Version:"):
                return line.split(":", 1)[1].strip()
    pyproject = tree.root / "pyproject.toml"
    if pyproject.is_file():
        import tomllib

        try:
            project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            return None
        version = project.get("version")
        return version if isinstance(version, str) else None
    return None


def _configured_pin(config: Config) -> str:
    """The tree the series is cut against: the configured ``pristine`` (a directory relative
    to the downstream, or a requirement), else ``upstream==pin``."""
    if config.pristine:
        local = config.root / config.pristine
        if local.is_dir() or config.pristine.startswith((".", "/", "~")):
            return str(local.expanduser())
        return config.pristine
    return config.pin_requirement()


def _spec(spec: str) -> str:
    """A TARGET spec that still means the same after the current directory changes."""
    return str(Path(spec).expanduser().resolve()) if os.path.isdir(spec) else spec


# --------------------------------------------------------------------------- setting up


def _context(config: Config, state: PortState, work: WorkDir, series_path: Path) -> _Context:
    series = parse_series(series_path)
    patches = load_patches(series, config.strip)
    old = spec_tree(state.old, config)
    new = spec_tree(state.new, config)
    check_paths(old, patches)
    check_paths(new, patches)
    new_version = tree_version(new)
    if new_version is None:
        raise TargetError(
            "cannot tell the version of the new pin",
            path=new.root,
            hint="pass a requirement (NAME==VERSION), or a tree with PKG-INFO or pyproject.toml",
        )
    old_version = tree_version(old)
    history = None
    if state.upstream_repo:
        repo = Path(state.upstream_repo)
        tags = port_settings(config).tags
        if old_version is None:
            raise TargetError("cannot tell the version of the old pin", path=old.root)
        history = UpstreamHistory(
            repo,
            find_tag(repo, old_version, tags),
            find_tag(repo, new_version, tags),
            config.directory,
            {config.upstream or "", repo.name},
        )
    return _Context(
        config, state, work, series, patches, old, new, old_version, new_version, history
    )


def _evidence(ctx: _Context, step: Step) -> Step:
    """Add the upstream history to a step: references, and causes of failed hunks."""
    if ctx.history is None:
        return step
    patch = next(p for p in ctx.patches if p.name == step.record.name)
    references = tuple(ctx.history.references(patch))
    causes = []
    failed = {(h.path, h.index) for h in step.record.failed_hunks}
    for diff in patch.files:
        for hunk in diff.hunks:
            if (diff.path, hunk.index) in failed:
                causes.append(ctx.history.cause(diff.path, hunk))
    step.record = replace(step.record, references=references, causes=tuple(causes))
    return step


def _port(ctx: _Context) -> tuple[list[Step], int | None]:
    return _port_with(ctx, ctx.work.resolutions())


def _port_with(
    ctx: _Context, resolutions: Mapping[str, Mapping[str, FileState | None]]
) -> tuple[list[Step], int | None]:
    note(
        f"porting {len(ctx.patches)} patches from {ctx.old_version or ctx.state.old} to "
        f"{ctx.new_version} ..."
    )
    labels = Labels(
        f"new pin {ctx.new_version}", f"old pin {ctx.old_version or ctx.state.old}", "patch"
    )
    rebase = Rebase(
        ctx.patches,
        ctx.old.reader(),
        ctx.new.reader(),
        TreeSearch(ctx.new.base),
        ctx.new_version,
        labels,
        resolutions,
    )
    steps, stopped = rebase.run()
    if ctx.history is not None:
        note(f"looking up upstream history in {ctx.history.label} ...")
    return [_evidence(ctx, step) for step in steps], stopped


def _write_conflict(ctx: _Context, step: Step) -> None:
    patch = next(p for p in ctx.patches if p.name == step.record.name)
    history = ctx.history.label if ctx.history else None
    text = instructions(step.record, ctx.work.root, f"the new pin {ctx.new_version}", history)
    ctx.work.write_conflict(patch, step.merges, step.base, step.old, step.patched, text)


# --------------------------------------------------------------------------- finishing


def _why(record: PortedPatch, version: str) -> str:
    """The Retired table's reason: the verdict's first clause and the carrying commit."""
    reason = record.summary.split(";")[0]
    found = [r for r in record.references if r.commit is not None and r.status == "in the new pin"]
    if found:
        reason += "; " + ", ".join(
            f"{r.text} is {r.commit.id[:12]}, first in {r.first_tag}"  # type: ignore[union-attr]
            for r in found
        )
    return f"upstreamed in {version}: {reason}"


def _finish(ctx: _Context, steps: list[Step]) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """Write the new series; return ``(where, retired names, extra to-do items)``."""
    records = [step.record for step in steps]
    retiring = {r.name for r in records if r.verdict in RETIRING}
    files = {step.record.name: step.data for step in steps if step.data is not None}
    original = ctx.series.path.read_bytes()
    todo: list[str] = []
    if not ctx.state.in_place:
        out = Path(ctx.state.output or "")
        kept = {p.name: p.raw for p in ctx.patches if p.name in retiring}
        data = series_bytes(original, ctx.series, retiring, ctx.new_version)
        pristine = ctx.state.new if os.path.isdir(ctx.state.new) else None
        text = config_text(ctx.config, ctx.new_version, ctx.old_version, pristine)
        write_directory(out, {**kept, **files}, data, text)
        return str(out), (), ()
    series_path = Path(ctx.state.series)
    if series_path.read_bytes() != original:
        raise ConfigError(
            "the series file changed while the port was in progress",
            path=series_path,
            hint="restore it (the port's copy is in the work directory) or port --abort",
        )
    series = parse_series(series_path)
    comment = set() if ctx.state.retire else retiring
    data = series_bytes(original, series, comment, ctx.new_version)
    settings = {"pin": (ctx.config.pin, ctx.new_version)}
    if ctx.config.pristine:
        settings["pristine"] = (ctx.config.pristine, _pristine_setting(ctx))
    change = config_change(ctx.config, settings)
    if change is None and any(old is not None and old != new for old, new in settings.values()):
        wanted = ", ".join(f'{key} = "{new}"' for key, (_, new) in settings.items())
        todo.append(f"set {wanted} in the configuration")
    ctx.work.root.mkdir(parents=True, exist_ok=True)
    extra = [change] if change else []
    write_in_place(series, files, data, extra, ctx.work.journal, ctx.config.root)
    retired: list[str] = []
    if ctx.state.retire:
        from patchkeeper.ledger import retire

        for record in records:
            if record.name in retiring:
                why = _why(record, ctx.new_version)
                retire(ctx.config, record.name, at=ctx.new_version, why=why)
                retired.append(record.name)
    if _refresh_ledger(ctx.config):
        todo.append("the ledger table was rewritten from the refreshed headers")
    return str(series_path.parent), tuple(retired), tuple(todo)


def _pristine_setting(ctx: _Context) -> str:
    """The new pin as a ``pristine`` value: a directory relative to the downstream, or the
    requirement."""
    if os.path.isdir(ctx.state.new):
        return os.path.relpath(ctx.state.new, ctx.config.root)
    return ctx.state.new


def _refresh_ledger(config: Config) -> bool:
    """Rewrite the ledger table when the downstream keeps one (``Cut-against`` changed)."""
    from patchkeeper import ledger
    from patchkeeper.ledger_config import ledger_settings

    if not Path(ledger_settings(config).file).is_file():
        return False
    return ledger.run(config).written


def _todo(ctx: _Context, records: list[PortedPatch], outcome: str, where: str | None) -> list[str]:
    todo = []
    stopped = next(
        (r for r in records if r.verdict not in CARRIED | RETIRING and not r.pending), None
    )
    if outcome == STOPPED and stopped is not None:
        todo.append(
            f"resolve {stopped.name} in {ctx.work.conflict / 'files'} "
            f"(see {ctx.work.conflict / 'INSTRUCTIONS.md'}), then run 'patchkeeper port "
            "--continue' (or 'patchkeeper port --abort')"
        )
        pending = sum(1 for r in records if r.pending)
        if pending:
            todo.append(f"{pending} more patches follow it (their verdicts are a preview)")
    for record in records:
        taken = [r for r in record.references if r.status in (IN_NEW, IN_OLD)]
        if taken and record.verdict not in RETIRING:
            ref = taken[0]
            where = "the new pin" if ref.status == IN_NEW else "the old pin already"
            todo.append(
                f"{record.name}: its {ref.field} reference {ref.text} is in {where} "
                f"({ref.commit.id[:12] if ref.commit else '?'}, first in {ref.first_tag}), yet "
                f"the patch is {record.verdict}, not upstreamed: upstream rewrote the change "
                "since; consider retiring it instead of carrying it"
            )
    retiring = [r.name for r in records if r.verdict in RETIRING and not r.pending]
    if retiring and not ctx.state.retire:
        todo.append(
            "retire "
            + ", ".join(retiring)
            + f" ({retire_note(ctx.new_version)}): 'patchkeeper retire NAME --at "
            f"{ctx.new_version} --why TEXT', or port with --in-place --retire"
        )
    if outcome == DONE and not ctx.state.in_place and where:
        todo.append(
            f"review {where}; 'patchkeeper -C {where} apply --target COPY' applies it, then "
            f"replace {Path(ctx.state.series).parent} with it"
        )
    if ctx.history is None:
        todo.append(
            "upstream history evidence is missing: pass --upstream-repo PATH (a checkout "
            "with both pins' tags) for the commits behind each conflict and reference"
        )
    return todo


def _result(
    ctx: _Context,
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
        target=ctx.new.label,
        source_version=ctx.old_version,
        target_version=ctx.new_version,
        patches=tuple(records),
        stopped_at=records[stopped].name if stopped is not None else None,
        work_dir=str(ctx.work.root) if stopped is not None else None,
        output=where,
        in_place=ctx.state.in_place,
        retired=retired,
        history=ctx.history.label if ctx.history else None,
        todo=tuple(_todo(ctx, records, outcome, where)) + extra,
    )


def _conclude(ctx: _Context, action: str, steps: list[Step], stopped: int | None) -> PortResult:
    if stopped is not None:
        if not ctx.work.exists:
            ctx.work.start(ctx.state, ctx.series, ctx.patches)
        ctx.work.save(replace(ctx.state, stopped=steps[stopped].record.name))
        _write_conflict(ctx, steps[stopped])
        return _result(ctx, action, steps, stopped)
    where, retired, extra = _finish(ctx, steps)
    ctx.work.remove()
    return _result(ctx, action, steps, None, where, retired, extra)


# --------------------------------------------------------------------------- entry points


def run(
    config: Config,
    *,
    to: str | None = None,
    source: str | None = None,
    in_place: bool = False,
    retire: bool = False,
    upstream_repo: Path | None = None,
    output: Path | None = None,
    action: str = "port",
) -> PortResult:
    """``port`` (``action="port"``), ``port --continue`` or ``port --abort``.

    Raises:
        ConfigError: ``--to`` is missing, ``--retire`` without ``--in-place`` or a ledger.
        PortStateError: a port is (or is not) in progress.
        UnresolvedError: ``--continue`` with conflict markers left.
        PatchFormatError, FetchError, TargetError, GitError: as their names say.
    """
    settings = port_settings(config)
    work = WorkDir(settings.work_dir)
    with locked(config.root, config.lock_timeout, "the downstream's port"):
        recover(work.journal, config.root)
        if action == "abort":
            state = work.load()
            work.remove()
            return PortResult("abort", ABORTED, state.series, work_dir=str(work.root))
        if action == "continue":
            return _continue(config, work)
        return _start(config, work, to, source, in_place, retire, upstream_repo, output)


def _start(
    config: Config,
    work: WorkDir,
    to: str | None,
    source: str | None,
    in_place: bool,
    retire: bool,
    upstream_repo: Path | None,
    output: Path | None,
) -> PortResult:
    if work.exists:
        work.load()
        from patchkeeper.port.workdir import PortStateError

        raise PortStateError(
            "a port is already in progress",
            path=work.root,
            hint="run 'patchkeeper port --continue' or 'patchkeeper port --abort'",
        )
    if not to:
        raise ConfigError("port needs --to NEWPIN", hint="pass --to NAME==VERSION or --to DIR")
    if retire:
        _check_retire(config, in_place)
    state = PortState(
        series=str(config.series),
        old=_spec(source or _configured_pin(config)),
        new=_spec(to),
        in_place=in_place,
        retire=retire,
        output=None,
        upstream_repo=str(upstream_repo.resolve()) if upstream_repo else None,
    )
    ctx = _context(config, state, work, config.series)
    if not in_place:
        out = output.resolve() if output else default_output(config.series.parent, ctx)
        check_output(out)
        ctx.state = replace(state, output=str(out))
    steps, stopped = _port(ctx)
    return _conclude(ctx, "port", steps, stopped)


def default_output(series_dir: Path, ctx: _Context) -> Path:
    """``patches-<new pin>`` beside ``patches``; a ``-<old pin>`` suffix is replaced.

    >>> from types import SimpleNamespace as NS
    >>> default_output(Path("d/patches-0.28.0"), NS(old_version="0.28.0", new_version="0.32.0"))
    PosixPath('d/patches-0.32.0')
    """
    name = series_dir.name
    if ctx.old_version and name.endswith(f"-{ctx.old_version}"):
        name = name[: -len(ctx.old_version) - 1]
    return series_dir.with_name(f"{name}-{ctx.new_version}")


def _check_retire(config: Config, in_place: bool) -> None:
    if not in_place:
        raise ConfigError(
            "--retire records retirements in the ledger of the series in use",
            hint="use it with --in-place, or retire later with 'patchkeeper retire'",
        )
    from patchkeeper.ledger_config import ledger_settings

    ledger_file = ledger_settings(config).file
    if not Path(ledger_file).is_file():
        raise ConfigError(
            "--retire needs the ledger file, which does not exist",
            path=ledger_file,
            hint="create it with 'patchkeeper ledger', or port without --retire",
        )


def _continue(config: Config, work: WorkDir) -> PortResult:
    state = work.load()
    name, resolved = work.read_resolution()
    ctx = _context(config, state, work, work.original_series())
    resolutions = {**work.resolutions(), name: resolved}
    labels_ctx = ctx
    steps, stopped = _port_with(labels_ctx, resolutions)
    work.save_resolution(name, resolved)
    return _conclude(ctx, "continue", steps, stopped)
