"""The series and the target tree a command that writes the target (``apply``, ``unapply``)
works on, checked before anything is written."""

from __future__ import annotations

from patchkeeper.config import Config
from patchkeeper.progress import warn
from patchkeeper.series.load import load_series
from patchkeeper.series.model import Patch
from patchkeeper.trees.pin import pin_mismatch
from patchkeeper.trees.tree import (
    TargetChoice,
    Tree,
    check_paths,
    refuse_environment_root,
    refuse_fetch_cache,
    target_tree,
)


def writable_target(
    config: Config, choice: TargetChoice, command: str
) -> tuple[list[Patch], Tree, str]:
    """The configured series and the target ``choice`` names, for ``command`` (``"apply"`` or
    ``"unapply"``) to write: refused when it is a tree of the fetch cache or a patch path
    escapes it; when the target is not the configured pin, that is warned at once (the
    command goes on).

    Returns:
        ``(patches, tree, pin_note)``: the series' patches in order, the target, and what
        :func:`~patchkeeper.trees.pin.pin_mismatch` says (``""`` when it is the pin).

    Raises:
        PatchFormatError: the series or a patch is malformed.
        ConfigError, TargetError: as :func:`~patchkeeper.trees.tree.target_tree`; and
            TargetError when a patch path escapes the target, it is a tree of the fetch
            cache (:func:`~patchkeeper.trees.tree.refuse_fetch_cache`) or a virtual
            environment's root (:func:`~patchkeeper.trees.tree.refuse_environment_root`).
    """
    _, patches = load_series(config)
    tree = target_tree(config, choice.target, choice.python)
    refuse_fetch_cache(tree, command)
    refuse_environment_root(tree, patches)
    check_paths(tree, patches)
    pin_note = pin_mismatch(config, tree)
    if pin_note:
        warn(pin_note)
    return patches, tree, pin_note
