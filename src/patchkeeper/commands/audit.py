"""``audit --to TARGET``: the upgrade question, answered patch by patch with evidence.

The series is applied in order to an in-memory copy of the new upstream tree (a requirement
fetched once into the cache, or a directory); nothing on disk changes. Every patch gets a
verdict (:mod:`patchkeeper.audit.verdicts`). Exit 1 when any patch is not clean, offset or
upstreamed: a patch to retire is a finding to act on, not an error.
"""

from __future__ import annotations

from collections.abc import Sequence

from patchkeeper.audit.results import AuditResult
from patchkeeper.audit.series_verdicts import judge_series
from patchkeeper.commands.common import command_line
from patchkeeper.config import Config
from patchkeeper.record import evidence_store
from patchkeeper.series.engine import Workspace
from patchkeeper.series.load import load_series
from patchkeeper.trees.tree import check_paths, spec_tree
from patchkeeper.upstream.treesearch import TreeSearch


def run(
    config: Config, *, to: str, argv: Sequence[str] | None = None, save_evidence: bool = False
) -> AuditResult:
    """Audit the configured series against the upstream ``to`` (requirement or directory);
    keep the result in the evidence store when ``save_evidence`` (``--save-evidence``) or
    ``evidence = true`` says so (with ``argv``, the command line; default: the one that asks
    for this audit).

    Raises:
        PatchFormatError, FetchError, TargetError: as their names say.
    """
    series, patches = load_series(config)
    tree = spec_tree(to, config)
    check_paths(tree, patches)
    ws = Workspace(tree.reader())
    verdicts = judge_series(ws, patches, TreeSearch(tree.base))
    result = AuditResult(
        series=str(series.path),
        pin=config.pin,
        target=tree.label,
        target_version=tree.version,
        verdicts=tuple(verdicts),
    )
    evidence_store.keep(
        config, "audit", result, command_line(["audit"], {"--to": to}, argv), save_evidence
    )
    return result
