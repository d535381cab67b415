"""``unapply``: reverse the whole series, last patch first, back to pristine.

The operation, its refusals and the backup of ``--force`` are in ``trees/unapply_tree.py``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import click

from patchkeeper.commands.cli import config_of, emit
from patchkeeper.commands.options import (
    force_option,
    json_option,
    pristine_option,
    request_from,
    target_options,
)
from patchkeeper.config import Config
from patchkeeper.constants import OPTION_PRISTINE
from patchkeeper.ledger.target_files import overlay_files
from patchkeeper.trees.results import ApplyResult
from patchkeeper.trees.tree import INSTALLED, pristine_for
from patchkeeper.trees.unapply_tree import UnapplyRequest, unapply_from_tree
from patchkeeper.trees.writable import writable_target
from patchkeeper.upstream.requirements import check_release_option


def run(config: Config, request: UnapplyRequest) -> ApplyResult:
    """Undo the configured series on the target ``request`` names, checked against the
    pristine reference.

    A target whose touched files drifted (undoing the series would not give the pristine
    files) is refused, naming them; with ``request.force`` the series is undone anyway and the
    drifted files' bytes from before are first copied to a backup directory
    (:func:`patchkeeper.trees.backup.backup_files`), named in the result. A series only some
    of whose patches are applied is undone for those patches when every patch is whole and a
    pristine reference checks the result; a patch partly applied or in conflict is refused by
    name (:func:`patchkeeper.trees.unapply_tree.unapply_from_tree`).

    Raises:
        PatchFormatError: the series or a patch is malformed.
        TargetError: a patch path escapes the target, the target is read-only, or it is a
            tree of the fetch cache (:func:`~patchkeeper.trees.tree.refuse_fetch_cache`).
        LockError: another process holds the target.
        FetchError: the pristine reference must be downloaded and cannot be.
    """
    pristine = request.pristine
    check_release_option(pristine, OPTION_PRISTINE, config.upstream, config.source)
    patches, tree, pin_note = writable_target(config, request, "unapply")
    # RECORD is read under the lock, after any roll-back (see verify_series).
    from_record = tree.kind == INSTALLED and pristine is None
    # an empty series has nothing to undo: no reference is needed (nor fetched) to say so
    reference = (
        None if from_record or not patches else pristine_for(config, tree, pristine, patches)
    )
    result = unapply_from_tree(
        tree,
        patches,
        reference,
        lambda: overlay_files(config, tree),
        lock_timeout=config.lock_timeout,
        backup_root=config.root,
        force=request.force,
        from_record=from_record,
        pin_note=pin_note,
    )
    return replace(result, empty=tuple(p.name for p in patches if p.is_empty))


@click.command("unapply")
@target_options
@pristine_option()
@force_option(
    "Undo the series even where files changed outside it; their bytes are kept in "
    ".patchkeeper/backup/ first."
)
@json_option
@click.pass_context
def command(ctx: click.Context, /, as_json: bool, **_: Any) -> None:
    """Reverse the whole series, last patch first, back to pristine."""
    emit(run(config_of(ctx), request_from(ctx, UnapplyRequest)), as_json)
