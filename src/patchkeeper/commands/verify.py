"""``verify`` and ``status``: which patches are applied, and did anything else change.

Both walk the series backwards on an in-memory copy (see :mod:`patchkeeper.trees.applied`) and
compare what is left with the pristine reference: ``RECORD`` hashes for an installed
distribution, ``--pristine DIR|REQUIREMENT``, or the configured pin. Exit 0 only when every
patch is applied and nothing drifted. ``status`` also works without a pristine reference and
shows every hunk; ``verify`` requires one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from patchkeeper.commands.cli import ARGV, Settings, emit
from patchkeeper.commands.common import command_line, overlay_files
from patchkeeper.commands.options import (
    json_option,
    option_name,
    pristine_option,
    save_evidence_option,
    spelt,
    target_options,
)
from patchkeeper.config import Config
from patchkeeper.errors import ConfigError, FetchError, PatchkeeperError
from patchkeeper.progress import warn
from patchkeeper.record import evidence_store
from patchkeeper.series.engine import Workspace, touched_paths
from patchkeeper.series.load import load_series
from patchkeeper.series.parse import sha256_hex
from patchkeeper.trees.applied import FileCheck, series_state
from patchkeeper.trees.layout_hint import layout_hint
from patchkeeper.trees.pin import pin_mismatch
from patchkeeper.trees.results import OverlayCheck, VerifyResult
from patchkeeper.trees.transaction import locked, recover
from patchkeeper.trees.tree import (
    DIRECTORY,
    INSTALLED,
    Tree,
    check_paths,
    pristine_for,
    record_pristine,
    target_tree,
)
from patchkeeper.trees.untouched_files import untouched_drift
from patchkeeper.upstream.requirements import check_release_option

if TYPE_CHECKING:
    from patchkeeper.series.model import Patch
    from patchkeeper.trees.installed import AppliedRecord


def check_overlays(ws: Workspace, overlays: dict[str, bytes]) -> tuple[OverlayCheck, ...]:
    """Compare each overlay file's bytes with the target's."""
    out = []
    for path, data in sorted(overlays.items()):
        current = ws.get(path)
        state = "missing" if current is None else "ok" if current.data == data else "differs"
        out.append(OverlayCheck(path, state))
    return tuple(out)


def downstream_files(config: Config, tree: Tree, patches: Sequence[Patch]) -> frozenset[str]:
    """The downstream's own files (configuration, series, patch files, ledger) that lie
    under ``tree``'s base, as paths relative to it: a git branch on an upstream tag is the
    downstream and the patched tree at once (``patchkeeper init --tag``)."""
    from patchkeeper.ledger.settings import ledger_settings

    files = [config.series, *(config.patches_dir / patch.name for patch in patches)]
    if config.source is not None:
        files.append(config.source)
    try:
        files.append(ledger_settings(config).file)
    except PatchkeeperError:
        pass
    base = tree.base.resolve()
    own = set()
    for path in files:
        try:
            own.add(path.resolve().relative_to(base).as_posix())
        except (ValueError, OSError):
            continue
    return frozenset(own)


def _record_mismatch(record: AppliedRecord | None, names_hashes: list[tuple[str, str]]) -> str:
    if record is None:
        return ""
    recorded = list(record.series)
    if recorded == names_hashes:
        return ""
    recorded_names = [name for name, _ in recorded]
    current_names = [name for name, _ in names_hashes]
    if recorded_names != current_names:
        return (
            "patchkeeper.json records the series "
            + ", ".join(recorded_names)
            + "; the series file now lists "
            + ", ".join(current_names)
        )
    changed = [n for (n, h), (_, h2) in zip(recorded, names_hashes) if h != h2]
    return "these patch files changed since they were applied: " + ", ".join(changed)


def _layout_hint(tree: Tree, patches: Sequence[Patch]) -> str:
    """Where the files the first patch reads are, when none of them is in the directory
    target and they are all in one place nearby (a target one level too high: every
    patch "not applied", every file of the tree drifted), else ``""``."""
    if tree.kind != DIRECTORY:
        return ""
    reads = next((p.files for p in patches if any(d.old_path for d in p.files)), ())
    paths = [d.old_path for d in reads if d.old_path]
    if not paths or any((tree.base / path).exists() for path in paths):
        return ""
    directory = tree.base.relative_to(tree.root).as_posix()
    return layout_hint(
        tree.root, "" if directory == "." else directory, paths, option_name(command, "target")
    )


def run(
    config: Config,
    *,
    target: Path | None = None,
    python: Path | None = None,
    pristine: str | None = None,
    detailed: bool = False,
    argv: Sequence[str] | None = None,
    save_evidence: bool = False,
) -> VerifyResult:
    """Compute the state of the configured series on the target; ``verify`` (not
    ``detailed``) keeps it in the evidence store, with ``argv`` (the command line; default:
    the one that asks for this check).

    Raises:
        ConfigError: ``verify`` on a directory with no pristine reference.
        PatchFormatError, TargetError, FetchError, LockError: as their names say.
    """
    check_release_option(pristine, option_name(command, "pristine"), config.upstream, config.source)
    _, patches = load_series(config)
    tree = target_tree(config, target, python)
    check_paths(tree, patches)
    pin_note = pin_mismatch(config, tree)
    if pin_note:
        warn(pin_note)
    # An installed tree's RECORD is read under the lock, after any roll-back: a killed run
    # may have left RECORD and patchkeeper.json half-changed.
    from_record = tree.kind == INSTALLED and pristine is None
    unavailable = ""
    try:
        reference = None if from_record else pristine_for(config, tree, pristine)
    except FetchError as exc:
        if not detailed or pristine is not None:
            raise
        reference, unavailable = None, exc.message
    if reference is None and not from_record and not detailed:
        raise ConfigError(
            "verify needs a pristine reference for a directory target",
            hint="pass --pristine DIR|REQUIREMENT, or configure upstream and pin",
        )
    with locked(tree.state_dir, config.lock_timeout, tree.label):
        recovery = recover(tree.journal_dir, tree.root)
        if from_record:
            reference = record_pristine(tree)[0]
        ws = Workspace(tree.reader())
        overlay_paths = overlay_files(config, tree)
        overlays = check_overlays(ws, overlay_paths)
        state = series_state(ws, patches, reference)
        untouched: tuple[FileCheck, ...] = ()
        ignored: tuple[str, ...] = ()
        if reference is not None:
            skip = set(touched_paths(patches)) | set(overlay_paths)
            own = downstream_files(config, tree, patches)
            untouched, ignored = untouched_drift(tree, reference, skip, config.ignore, own)
        mismatch = ""
        if tree.kind == INSTALLED and tree.dist is not None:
            from patchkeeper.trees.installed import AppliedRecord

            record = AppliedRecord.load(tree.dist.applied_record_path)
            mismatch = _record_mismatch(record, [(p.name, sha256_hex(p.raw)) for p in patches])
    result = VerifyResult(
        "status" if detailed else "verify",
        tree.label,
        state,
        mismatch,
        recovery,
        detailed,
        overlays,
        unavailable,
        untouched,
        ignored,
        pin_note,
        _layout_hint(tree, patches),
    )
    if not detailed:
        options = spelt(command, {"target": target, "python": python, "pristine": pristine})
        evidence_store.keep(
            config, "verify", result, command_line(["verify"], options, argv), save_evidence
        )
    return result


@click.command("verify")
@target_options
@pristine_option(
    "The pristine upstream: a directory or a requirement "
    "(default for a directory target: the configured pin)."
)
@save_evidence_option
@json_option
@click.pass_obj
def command(
    settings: Settings,
    upstream: dict[str, Path | None],
    pristine: str | None,
    save_evidence: bool,
    as_json: bool,
) -> None:
    """Prove which patches are applied and that nothing else changed (exit 1 otherwise)."""
    result = run(
        settings.config(),
        target=upstream["target"],
        python=upstream["python"],
        pristine=pristine,
        argv=ARGV,
        save_evidence=save_evidence,
    )
    emit(result, as_json)
