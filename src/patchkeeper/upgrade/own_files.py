"""The downstream's own files inside a tree that is the downstream and the patched tree at
once (a git branch on an upstream tag, a Debian source package): no drift for ``verify``
and ``status`` (:func:`patchkeeper.trees.verify_series.verify_series` takes
:func:`own_files`).

Here because the upgrade is the one feature that knows every file the downstream's
workflow writes: ``decide`` and ``report`` (the record's files), ``port`` and ``upgrade``
(their work directories).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from patchkeeper.config import Config
from patchkeeper.errors import PatchkeeperError
from patchkeeper.ledger.target_files import downstream_files

if TYPE_CHECKING:
    from patchkeeper.series.model import Patch
    from patchkeeper.trees.tree import Tree


def own_files(config: Config, tree: Tree, patches: Sequence[Patch]) -> frozenset[str]:
    """The downstream's own files under ``tree`` (paths relative to its base): those of
    :func:`patchkeeper.ledger.target_files.downstream_files` (configuration, series,
    patches, ledger, a Debian ``debian/``), with the files ``decide`` and ``report`` write
    (the decisions file, ``AUDIT.md``, ``AUDIT.html``) and the work directories of a stopped
    ``port`` or ``upgrade``. A ``[report]`` or ``[port]`` table that cannot be read adds
    nothing here: the command that writes those files names the error."""
    # imported here: verify and status start without the port's, record's and upgrade's
    # (the upgrade's state module, which imports shutil, not at all)
    from patchkeeper.constants import UPGRADE_WORK_DIR
    from patchkeeper.port.settings import port_settings
    from patchkeeper.record.settings import report_settings

    also: list[Path] = [config.root / UPGRADE_WORK_DIR]
    try:
        report = report_settings(config)
        also += [report.decisions_file, report.audit_file, report.html_file]
    except PatchkeeperError:
        pass
    try:
        also.append(port_settings(config).work_dir)
    except PatchkeeperError:
        pass
    return downstream_files(config, tree, patches, also)
