"""Applying the configured series to a target tree, atomically, at fuzz 0: the feature
behind ``apply`` (the command line's and the short path's of :mod:`patchkeeper.__main__`).

``apply`` changes nothing unless every hunk of every patch applies at fuzz 0 (offsets are
reported); applying an applied series says so and changes nothing; a partly applied target is
reported, not patched further (the operation: ``trees/apply_tree.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from patchkeeper.config import Config
from patchkeeper.constants import OPTION_TARGET
from patchkeeper.series.hunk_evidence import MISSING_FILE
from patchkeeper.trees.apply_tree import apply_to_tree
from patchkeeper.trees.layout_hint import installed_layout_hint, layout_hint
from patchkeeper.trees.results import DRIFTED, FAILED, PARTIAL, ApplyResult
from patchkeeper.trees.tree import (
    DIRECTORY,
    INSTALLED,
    TargetChoice,
    Tree,
)
from patchkeeper.trees.unapply_tree import PIN_REFUSAL
from patchkeeper.trees.writable import writable_target


def apply_series(
    config: Config,
    overlays: Callable[[Tree], dict[str, bytes]],
    choice: TargetChoice,
) -> ApplyResult:
    """Apply the configured series to the target ``choice`` names (``choice.target``, a
    directory, or the upstream installed for the interpreter ``choice.python``), then copy
    ``overlays(tree)`` (path -> bytes) into it.

    Raises:
        PatchFormatError: the series or a patch is malformed.
        TargetError: a patch path escapes the target, the target is read-only, or it is a
            tree of the fetch cache (:func:`~patchkeeper.trees.tree.refuse_fetch_cache`).
        LockError: another process holds the target.
    """
    patches, tree, pin_note = writable_target(config, choice, "apply")
    result = apply_to_tree(tree, patches, lambda: overlays(tree), config.lock_timeout)
    result = replace(result, empty=tuple(p.name for p in patches if p.is_empty))
    if pin_note and result.outcome in (PARTIAL, DRIFTED):
        # on another release, upstream's own changes read as applied patches or drift: the
        # way on is the warning's, not undoing "applied" hunks the series never wrote
        result = replace(result, note=PIN_REFUSAL)
    return _with_layout_hint(result, tree)


def _with_layout_hint(result: ApplyResult, tree: Tree) -> ApplyResult:
    """A failed patch whose files are all missing from a directory target: the note also
    says where they are when that is one place nearby (:func:`layout_hint`)."""
    if result.outcome != FAILED or tree.kind not in (DIRECTORY, INSTALLED):
        return result
    if not result.failures or any(f.problem != MISSING_FILE for f in result.failures):
        return result
    paths = [failure.path for failure in result.failures]
    if tree.kind == INSTALLED:
        hint = installed_layout_hint(tree.base, paths)
    else:
        directory = tree.base.relative_to(tree.root).as_posix()
        within = "" if directory == "." else directory
        hint = layout_hint(tree.root, within, paths, OPTION_TARGET)
    if not hint:
        return result
    return replace(result, note=f"{result.note}\n{hint}" if result.note else hint)
