"""``audit --to TARGET``: the upgrade question, answered patch by patch with evidence.

The series is applied in order to an in-memory copy of the new upstream tree (a requirement
fetched once into the cache, or a directory); nothing on disk changes. Every patch gets a
verdict (:mod:`patchkeeper.audit.verdicts`). Exit 1 when any patch is not clean, offset or
upstreamed: a patch to retire is a finding to act on, not an error.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from patchkeeper.audit.series_verdicts import judge_series
from patchkeeper.audit.verdicts import GOOD, UPSTREAMED, PatchVerdict
from patchkeeper.commands.common import check_paths, load_series
from patchkeeper.config import Config
from patchkeeper.series.engine import Workspace
from patchkeeper.trees.tree import spec_tree
from patchkeeper.upstream.treesearch import TreeSearch


@dataclass(frozen=True)
class AuditResult:
    """The audit of a series against a new upstream.

    Attributes:
        series: the series file.
        pin: the configured pin (the series' current base), or ``None``.
        target: the new upstream's description.
        target_version: its version, when known.
        verdicts: one per patch, in series order.
    """

    series: str
    pin: str | None
    target: str
    target_version: str | None
    verdicts: tuple[PatchVerdict, ...]

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


def run(config: Config, *, to: str) -> AuditResult:
    """Audit the configured series against the upstream ``to`` (requirement or directory).

    Raises:
        PatchFormatError, FetchError, TargetError: as their names say.
    """
    series, patches = load_series(config)
    tree = spec_tree(to, config)
    check_paths(tree, patches)
    ws = Workspace(tree.reader())
    verdicts = judge_series(ws, patches, TreeSearch(tree.base))
    return AuditResult(
        series=str(series.path),
        pin=config.pin,
        target=tree.label,
        target_version=tree.version,
        verdicts=tuple(verdicts),
    )
