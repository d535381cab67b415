"""Which patches of the configured series are applied to a target, and did anything else
change: the feature behind ``verify`` and ``status``.

Both walk the series backwards on an in-memory copy (see :mod:`patchkeeper.trees.applied`) and
compare what is left with the pristine reference: ``RECORD`` hashes for an installed
distribution, ``--pristine DIR|REQUIREMENT``, or the configured pin. ``status`` (``detailed``)
also works without a pristine reference and shows every hunk; ``verify`` requires one.
Nothing is written: the target is read under its lock, after any interrupted change is rolled
back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from patchkeeper.config import Config
from patchkeeper.constants import OPTION_PRISTINE, OPTION_TARGET
from patchkeeper.errors import ConfigError, FetchError
from patchkeeper.progress import warn
from patchkeeper.series.engine import Workspace, touched_paths
from patchkeeper.series.load import load_series
from patchkeeper.series.parse import sha256_hex
from patchkeeper.trees.applied import FileCheck, series_state
from patchkeeper.trees.layout_hint import installed_layout_hint, layout_hint
from patchkeeper.trees.pin import pin_mismatch
from patchkeeper.trees.results import OverlayCheck, VerifyResult
from patchkeeper.trees.transaction import locked, recover
from patchkeeper.trees.tree import (
    DIRECTORY,
    INSTALLED,
    TargetChoice,
    Tree,
    applied_landing,
    check_paths,
    pristine_for,
    record_pristine,
    refuse_environment_root,
    target_tree,
)
from patchkeeper.trees.untouched_files import untouched_drift
from patchkeeper.upstream.requirements import check_release_option

if TYPE_CHECKING:
    from patchkeeper.series.model import Patch
    from patchkeeper.trees.installed import AppliedRecord


@dataclass(frozen=True, kw_only=True)
class VerifyRequest(TargetChoice):
    """What ``verify`` and ``status`` are asked to do; each field is the option of the same
    parameter name, so the command builds it from click's parsed parameters; the tree as
    :class:`~patchkeeper.trees.tree.TargetChoice` says.

    Attributes:
        pristine: the pristine upstream (``--pristine``): a directory or a requirement;
            default ``None``, the installed distribution's ``RECORD``, else the configured
            pin.
    """

    pristine: str | None = None


#: The downstream's own files under a tree's base (``(config, tree, patches) -> paths``
#: relative to the base), left out of the drift comparison.
OwnFiles = Callable[[Config, Tree, Sequence["Patch"]], frozenset[str]]


def check_overlays(ws: Workspace, overlays: dict[str, bytes]) -> tuple[OverlayCheck, ...]:
    """Compare each overlay file's bytes with the target's: ``ok``, ``differs`` or
    ``missing``, in path order."""
    out = []
    for path, data in sorted(overlays.items()):
        current = ws.get(path)
        state = "missing" if current is None else "ok" if current.data == data else "differs"
        out.append(OverlayCheck(path, state))
    return tuple(out)


def record_mismatch(record: AppliedRecord | None, names_hashes: list[tuple[str, str]]) -> str:
    """How the install manifest (``patchkeeper.json``) disagrees with the series now:
    ``names_hashes`` is ``[(patch name, sha256 of its bytes)]`` in series order; ``""`` when
    they agree or there is no manifest."""
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


def tree_layout_hint(tree: Tree, patches: Sequence[Patch]) -> str:
    """Where the files the first patch reads are, when none of them is in the directory
    target and they are all in one place nearby (a target one level too high: every
    patch "not applied", every file of the tree drifted), else ``""``; the hint tells the
    user to change ``--target``. A file a patch of the series creates (or renames to) is
    left out: later patches read it from there, not from the tree."""
    if tree.kind not in (DIRECTORY, INSTALLED):
        return ""
    # a file the series itself creates (or renames to) is no file the tree should have
    made = {d.new_path for p in patches for d in p.files if d.is_creation or d.is_rename}
    reads = next(
        (p.files for p in patches if any(d.old_path and d.old_path not in made for d in p.files)),
        (),
    )
    paths = [d.old_path for d in reads if d.old_path and d.old_path not in made]
    if not paths or any((tree.base / path).exists() for path in paths):
        return ""
    if tree.kind == INSTALLED:
        # every file of the series the installation lacks, not only the first patch's: a
        # Debian series often starts with a docs patch, before the code's src/ paths
        lacking = dict.fromkeys(
            d.old_path
            for patch in patches
            for d in patch.files
            if d.old_path and d.old_path not in made and not (tree.base / d.old_path).exists()
        )
        return installed_layout_hint(tree.base, list(lacking))
    directory = tree.base.relative_to(tree.root).as_posix()
    return layout_hint(tree.root, "" if directory == "." else directory, paths, OPTION_TARGET)


def verify_series(
    config: Config,
    overlays: Callable[[Tree], dict[str, bytes]],
    own_files: OwnFiles,
    request: VerifyRequest = VerifyRequest(),
    *,
    detailed: bool = False,
) -> VerifyResult:
    """The state of the configured series on the target ``request`` names against its
    pristine reference (:class:`VerifyRequest`).

    ``overlays(tree)`` gives the configured overlay files (path -> bytes) to compare with the
    target; ``own_files`` the downstream's own files under the tree's base (a git branch on
    an upstream tag is the downstream and the patched tree at once), which are no drift.
    ``detailed`` (``status``) goes on without a pristine reference when the default one
    cannot be had.

    Raises:
        ConfigError: ``verify`` on a directory with no pristine reference.
        TargetError: the target is a virtual environment's root
            (:func:`~patchkeeper.trees.tree.refuse_environment_root`), or as its name says.
        PatchFormatError, FetchError, LockError: as their names say.
    """
    pristine = request.pristine
    check_release_option(pristine, OPTION_PRISTINE, config.upstream, config.source)
    _, patches = load_series(config)
    tree = target_tree(config, request.target, request.python)
    refuse_environment_root(tree, patches)
    check_paths(tree, patches)
    # warned before the result is printed (standard error; the JSON envelope's warnings),
    # so it is read before the patches' states, which it qualifies; kept in the result too
    pin_note = pin_mismatch(config, tree)
    if pin_note:
        warn(pin_note)
    # An installed tree's RECORD is read under the lock, after any roll-back: a killed run
    # may have left RECORD and patchkeeper.json half-changed.
    from_record = tree.kind == INSTALLED and pristine is None
    unavailable = ""
    try:
        reference = None if from_record else pristine_for(config, tree, pristine, patches)
    except FetchError as exc:
        if not detailed or pristine is not None:
            raise
        reference, unavailable = None, exc.located()
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
        overlay_paths = overlays(tree)
        checked = check_overlays(ws, overlay_paths)
        state = series_state(ws, patches, reference, applied_landing(tree))
        untouched: tuple[FileCheck, ...] = ()
        ignored: tuple[str, ...] = ()
        if reference is not None:
            skip = set(touched_paths(patches)) | set(overlay_paths)
            own = own_files(config, tree, patches)
            untouched, ignored = untouched_drift(tree, reference, skip, config.ignore, own)
        mismatch = ""
        if tree.kind == INSTALLED and tree.dist is not None:
            from patchkeeper.trees.installed import AppliedRecord

            record = AppliedRecord.load(tree.dist.applied_record_path)
            mismatch = record_mismatch(record, [(p.name, sha256_hex(p.raw)) for p in patches])
    return VerifyResult(
        "status" if detailed else "verify",
        tree.label,
        state,
        mismatch,
        recovery,
        detailed,
        checked,
        unavailable,
        untouched,
        ignored,
        pin_note,
        tree_layout_hint(tree, patches),
    )
