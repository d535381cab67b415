"""``audit --to TARGET``: the upgrade question, answered patch by patch with evidence.

The series is applied in order to an in-memory copy of the new upstream tree (a requirement
fetched once into the cache, or a directory); nothing on disk changes. Every patch gets a
verdict (:mod:`patchkeeper.verdicts`). Exit 1 when any patch is not clean, offset or
upstreamed: a patch to retire is a finding to act on, not an error.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from patchkeeper.commands.common import check_paths, load_series
from patchkeeper.config import Config
from patchkeeper.engine import Workspace
from patchkeeper.errors import FetchError, TargetError
from patchkeeper.series_verdicts import judge_series
from patchkeeper.trees import Tree, pristine_for, spec_tree
from patchkeeper.treesearch import TreeSearch
from patchkeeper.verdicts import GOOD, UPSTREAMED, PatchVerdict


@dataclass(frozen=True)
class AuditResult:
    """The audit of a series against a new upstream.

    Attributes:
        series: the series file.
        pin: the configured pin (the series' current base), or ``None``.
        target: the new upstream's description.
        target_version: its version, when known.
        verdicts: one per patch, in series order.
        pin_tree: the old pin's tree the evidence was weighed against (lines already there
            at the pin prove nothing), described; ``None`` when it could not be had.
        pin_note: why the old pin's tree could not be had, else ``None``.
    """

    series: str
    pin: str | None
    target: str
    target_version: str | None
    verdicts: tuple[PatchVerdict, ...]
    pin_tree: str | None = None
    pin_note: str | None = None

    @property
    def counts(self) -> dict[str, int]:
        """How many patches got each verdict."""
        return dict(Counter(v.verdict for v in self.verdicts))

    @property
    def to_retire(self) -> tuple[str, ...]:
        """The patches the new upstream already carries."""
        return tuple(v.name for v in self.verdicts if v.verdict == UPSTREAMED)

    @property
    def exit_code(self) -> int:
        return 0 if all(v.verdict in GOOD for v in self.verdicts) else 1


def pin_tree(config: Config, tree: Tree, spec: str | None) -> tuple[Tree | None, str | None]:
    """The old pin's tree: ``--pristine`` (``spec``), else the configured ``pristine``, else
    ``upstream==pin`` fetched (:func:`patchkeeper.trees.pristine_for`).

    Returns:
        ``(tree, None)``, or ``(None, why)`` when none is configured or it cannot be had
        (the audit goes on, and says so).

    Raises:
        FetchError, TargetError: ``spec`` was given and cannot be had.
    """
    if spec is not None:
        return spec_tree(spec, config), None
    try:
        pristine = pristine_for(config, tree, None)
    except (FetchError, TargetError) as exc:
        return None, exc.message
    if pristine is None or pristine.tree is None:
        return None, "no pin is configured (set upstream and pin, or pass --pristine)"
    return pristine.tree, None


def run(config: Config, *, to: str, pristine: str | None = None) -> AuditResult:
    """Audit the configured series against the upstream ``to`` (requirement or directory).

    ``pristine`` is the old pin's tree (directory or requirement); by default the configured
    ``pristine`` or ``upstream==pin``.

    Raises:
        PatchFormatError, FetchError, TargetError: as their names say.
    """
    series, patches = load_series(config)
    tree = spec_tree(to, config)
    check_paths(tree, patches)
    old, note = pin_tree(config, tree, pristine)
    ws = Workspace(tree.reader())
    pin = TreeSearch(old.base, old.label) if old is not None else None
    verdicts = judge_series(ws, patches, TreeSearch(tree.base, tree.label), pin)
    return AuditResult(
        series=str(series.path),
        pin=config.pin,
        target=tree.label,
        target_version=tree.version,
        verdicts=tuple(verdicts),
        pin_tree=old.label if old is not None else None,
        pin_note=note,
    )
