"""``audit --to RANGE``: the upgrade horizon, the series judged at every release of a range.

The releases come from the package indexes (each fetched once into the cache, several at a
time) or, with ``--releases DIR``, from the ``NAME-VERSION`` subdirectories and the sdist and
wheel files of a directory.
Every release is judged as ``audit --to NAME==VERSION`` judges it, against the same old pin's
tree; nothing on disk changes (see :mod:`patchkeeper.audit.horizon`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from patchkeeper.audit.horizon import (
    HorizonResult,
    ReleaseVerdicts,
    fetch_releases,
    in_range,
    index_releases,
    left_out_note,
    next_pin,
    no_release,
    parse_range,
    taken_earlier,
)
from patchkeeper.audit.release import AuditRequest, in_series_order, pin_tree
from patchkeeper.audit.series_verdicts import judge_series
from patchkeeper.config import Config
from patchkeeper.constants import OPTION_PRISTINE, OPTION_TO
from patchkeeper.series.engine import Workspace
from patchkeeper.series.load import load_series_tolerant
from patchkeeper.trees.releases import directory_releases
from patchkeeper.trees.tree import (
    Tree,
    archive_tree,
    check_paths,
    directory_tree,
    local_releases,
    refuse_changed_pin,
)
from patchkeeper.upstream.requirements import check_release_option
from patchkeeper.upstream.treesearch import TreeSearch


def audit_range(config: Config, request: AuditRequest) -> HorizonResult:
    """Audit the configured series at every release the range ``request.to`` admits
    (``"vllm>=0.28,<0.34"``), oldest first: the releases of ``request.releases`` (a
    directory of ``NAME-VERSION`` release trees and release files; by default the directory
    the downstream keeps its releases in, :func:`patchkeeper.trees.tree.local_releases`) or
    of the package indexes, each judged against the old pin's tree ``request.pristine`` (as ``audit
    --pristine``).

    A patch file that cannot be read (missing, malformed) does not stop the audit: it is
    *unreadable* at every release and the rest of the series is judged without it.

    Raises:
        TargetError: ``to`` is not a range, or it admits no release.
        PatchFormatError: the series file cannot be read, or lists a patch twice.
        FetchError: as its name says.
    """
    to, releases, pristine = request.to, request.releases, request.pristine
    check_release_option(to, OPTION_TO, config.upstream, config.source, range_allowed=True)
    check_release_option(pristine, OPTION_PRISTINE, config.upstream, config.source)
    requirement = parse_range(to)
    local = local_releases(config) if releases is None else None
    same = canonicalize_name(requirement.name) == canonicalize_name(config.upstream or "")
    if local is not None and same:
        releases = local[0]  # where the downstream keeps its releases, as --releases
    series, patches, unreadable = load_series_tolerant(config)
    trees, older = release_trees(config, requirement, releases)
    for _, tree in trees:
        check_paths(tree, patches)
    old, note = pin_tree(config, trees[-1][1], pristine)
    for version, tree in trees:
        refuse_changed_pin(tree, old, patches, config, f"the release {version} (--releases)")
    pin = TreeSearch(old.base, old.label) if old is not None else None
    judged = []
    for version, tree in trees:
        ws = Workspace(tree.reader())
        verdicts = judge_series(ws, patches, TreeSearch(tree.base, tree.label), pin, version)
        # a patch that cannot be read is unreadable at every release, as in one release's
        ordered = in_series_order(series, verdicts, unreadable)
        judged.append(ReleaseVerdicts(version, tree.label, ordered))
    judged = taken_earlier(judged)
    return HorizonResult(
        series=str(series.path),
        pin=config.pin,
        requirement=to.strip(),
        releases=tuple(judged),
        patches=tuple(v.name for v in judged[0].verdicts) if judged else (),
        next_pin=next_pin(judged, config.pin),
        pin_tree=old.label if old is not None else None,
        pin_note=note,
        releases_dir=str(releases.resolve()) if releases is not None else None,
        left_out=older,
        left_out_note=left_out_note(older, config.pin, requirement.name),
    )


def release_trees(
    config: Config, requirement: Requirement, releases: Path | None
) -> tuple[list[tuple[str, Tree]], int]:
    """``(version, tree)`` for every release in range, oldest first: the directories of
    ``releases``, else the indexes' releases fetched into the cache (in parallel); and how
    many releases of the range older than the pin were left out (:func:`from_pin_on`),
    before any is fetched.

    Raises:
        TargetError: no release matches (the hint lists the releases found).
        FetchError: the index cannot be asked, or a release cannot be fetched.
    """
    if releases is not None:
        found = directory_releases(requirement, releases)
        versions = in_range(requirement, list(found))
        if not versions:
            raise no_release(requirement, str(releases), in_range_all(found), directory=True)
        versions, older = from_pin_on(versions, config.pin)
        return [
            (
                v,
                directory_tree(found[v], config)
                if found[v].is_dir()
                else archive_tree(found[v], config),
            )
            for v in versions
        ], older
    versions, available = index_releases(config, requirement)
    if not versions:
        raise no_release(requirement, "the package indexes", in_range_all(available))
    versions, older = from_pin_on(versions, config.pin)
    trees = fetch_releases(config, canonicalize_name(requirement.name), versions)
    return list(zip(versions, trees)), older


def from_pin_on(versions: list[str], pin: str | None) -> tuple[list[str], int]:
    """``versions`` (oldest first) without those older than ``pin`` (PEP 440), and how many
    were left out: an upgrade audit is of the pin and the releases after it, and a range
    such as ``NAME!=4.0.1`` also admits every release before the pin, each of which would
    be fetched and judged for nothing. When every version is older than the pin the range
    asks for those on purpose and all are kept (the next-pin line says none can be one);
    without a pin, or with one PEP 440 cannot read, nothing is left out.

    >>> from_pin_on(["0.9", "1.0", "1.1"], "1.0"), from_pin_on(["0.8", "0.9"], "1.0")
    ((['1.0', '1.1'], 1), (['0.8', '0.9'], 0))
    """
    from packaging.version import InvalidVersion, Version

    if pin is None:
        return versions, 0
    try:
        floor = Version(pin)
    except InvalidVersion:
        return versions, 0
    kept = [v for v in versions if Version(v) >= floor]
    if not kept:
        return versions, 0
    return kept, len(versions) - len(kept)


def in_range_all(versions: Iterable[str]) -> list[str]:
    """Every valid version among ``versions``, pre-releases too, oldest first (for an error's
    hint)."""
    return in_range(Requirement("any>=0.dev0"), list(versions))
