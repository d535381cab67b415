"""``audit --to NAME==VERSION``: the upgrade question, answered patch by patch with evidence.

The series is applied in order to an in-memory copy of the new upstream tree (a requirement
fetched once into the cache, or a directory); nothing on disk changes. Every patch gets a
verdict (:mod:`patchkeeper.audit.verdicts`), weighed against the old pin's tree where it can be
had (a line already there at the pin proves nothing). Exit 1 when any patch is not clean,
offset or upstreamed: a patch to retire is a finding to act on, not an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.audit.between import (
    BetweenReleases,
    between_range,
    chosen,
    decide,
    facts,
    failing,
    not_judged,
)
from patchkeeper.audit.horizon import fetch_releases, index_releases
from patchkeeper.audit.results import AuditResult
from patchkeeper.audit.series_verdicts import judge_series
from patchkeeper.audit.verdicts import PatchVerdict, unreadable_verdict
from patchkeeper.config import Config
from patchkeeper.constants import OPTION_PRISTINE, OPTION_TO
from patchkeeper.errors import FetchError, PatchFormatError, TargetError
from patchkeeper.series.engine import FileState, Workspace
from patchkeeper.series.load import load_series_tolerant
from patchkeeper.series.model import Patch, Series
from patchkeeper.trees.tree import (
    REQUIREMENT,
    Tree,
    check_paths,
    pristine_for,
    refuse_changed_pin,
    refuse_misplaced,
    refuse_unpacked_parent,
    spec_tree,
    warn_wheel_for_sdist,
)
from patchkeeper.upstream.requirements import check_release_option
from patchkeeper.upstream.treesearch import TreeSearch


def pin_tree(
    config: Config, tree: Tree, spec: str | None, patches: list[Patch] | None = None
) -> tuple[Tree | None, str | None]:
    """The old pin's tree: ``--pristine`` (``spec``), else the configured ``pristine``, else
    ``upstream==pin`` fetched (:func:`patchkeeper.trees.tree.pristine_for`). A ``spec``
    directory holding none of ``patches``' files while another tree nearby does is refused
    (:func:`patchkeeper.trees.tree.refuse_misplaced`).

    Returns:
        ``(tree, None)``, or ``(None, why)`` when none is configured or it cannot be had
        (the audit goes on, and says so).

    Raises:
        FetchError, TargetError: ``spec`` was given and cannot be had.
    """
    if spec is not None:
        what = "the pristine reference (--pristine)"
        given = spec_tree(spec, config, what)
        refuse_unpacked_parent(given, what, "pass --pristine {}")
        if patches is not None:
            refuse_misplaced(given, patches, what, OPTION_PRISTINE, config.upstream, config.series)
        return given, None
    try:
        pristine = pristine_for(config, tree, None)
    except (FetchError, TargetError) as exc:
        return None, exc.message
    if pristine is None or pristine.tree is None:
        return None, "no pin is configured (set upstream and pin, or pass --pristine)"
    return pristine.tree, None


@dataclass(frozen=True)
class AuditRequest:
    """What ``audit`` is asked to do; each field is the option of the same parameter name, so
    the command builds it from click's parsed parameters and the evidence is read back from
    it.

    Attributes:
        to: the new upstream (``--to``): a requirement ``NAME==VERSION`` or a directory; for
            :func:`patchkeeper.audit.range_audit.audit_range`, a range ``NAME>=A,<B``.
        releases: with a range, the directory whose ``NAME-VERSION`` subdirectories and
            sdist and wheel files are the releases (``--releases``); default ``None``, the
            package indexes' releases.
        pristine: the old pin's tree (``--pristine``): a directory or a requirement; default
            ``None``, the configured ``pristine``, else ``upstream==pin``.
        between: for one release given as ``NAME==VERSION``, also judge the releases
            between the pin and it for the patches that fail there
            (:mod:`patchkeeper.audit.between`; ``--between``); default ``False``: one
            release, one download.
    """

    to: str
    releases: Path | None = None
    pristine: str | None = None
    between: bool = False


def in_series_order(
    series: Series,
    judged: Sequence[PatchVerdict],
    unreadable: Sequence[tuple[str, PatchFormatError]],
) -> tuple[PatchVerdict, ...]:
    """The verdicts of ``judged`` with one *unreadable* verdict for each patch that cannot be
    read (``unreadable``: its name and the error), each in its place in the series."""
    by_name = {v.name: v for v in judged}
    by_name.update((name, unreadable_verdict(name, error)) for name, error in unreadable)
    return tuple(by_name[e.name] for e in series.entries if e.name in by_name)


def audit_release(config: Config, request: AuditRequest) -> AuditResult:
    """Audit the configured series against the upstream ``request.to`` (requirement or
    directory), weighing the evidence against the old pin's tree ``request.pristine``
    (:class:`AuditRequest`).

    A patch file that cannot be read (missing, malformed) does not stop the audit: it gets
    the verdict *unreadable* (:func:`patchkeeper.audit.verdicts.unreadable_verdict`) and
    the rest of the series is judged without it.

    Raises:
        PatchFormatError: the series file cannot be read, or lists a patch twice.
        FetchError: as its name says.
        TargetError: a tree cannot be had, or a patch path escapes it.
    """
    to, pristine = request.to, request.pristine
    check_release_option(to, OPTION_TO, config.upstream, config.source)
    check_release_option(pristine, OPTION_PRISTINE, config.upstream, config.source)
    series, patches, unreadable = load_series_tolerant(config)
    tree = spec_tree(to, config, "the new upstream (--to)")
    refuse_unpacked_parent(tree, "the new upstream (--to)", "pass --to {}")
    refuse_misplaced(
        tree, patches, "the new upstream (--to)", OPTION_TO, config.upstream, config.series
    )
    check_paths(tree, patches)
    old, note = pin_tree(config, tree, pristine, patches)
    refuse_changed_pin(tree, old, patches, config, "the new upstream (--to)")
    warn_wheel_for_sdist(tree, old, patches)
    ws = Workspace(tree.reader())
    pin = TreeSearch(old.base, old.label) if old is not None else None
    judged = judge_series(ws, patches, TreeSearch(tree.base, tree.label), pin, tree.version)
    verdicts = in_series_order(series, judged, unreadable)
    between = None
    if request.between and any(failing(v) for v in verdicts):
        between, verdicts = releases_between(
            config, to, tree, (old, pin), (series, patches, unreadable), verdicts
        )
    result = AuditResult(
        series=str(series.path),
        pin=config.pin,
        target=tree.label,
        target_version=tree.version,
        verdicts=verdicts,
        pin_tree=old.label if old is not None else None,
        pin_note=note,
        between=between,
    )
    return result


def releases_between(
    config: Config,
    to: str,
    tree: Tree,
    pinned: tuple[Tree | None, TreeSearch | None],
    loaded: tuple[Series, list[Patch], Sequence[tuple[str, PatchFormatError]]],
    verdicts: tuple[PatchVerdict, ...],
) -> tuple[BetweenReleases | None, tuple[PatchVerdict, ...]]:
    """The releases between the pin and ``tree`` (the release ``to`` asked for) judged for
    the patches that fail at ``tree`` (:mod:`patchkeeper.audit.between`), and ``verdicts``
    decided on them; ``(None, verdicts)`` when ``to`` is no release of the configured
    upstream on the indexes (a directory, a file) or there is no pin. ``pinned`` is the old
    pin's tree and its search, ``loaded`` the series, its patches and those that cannot be
    read. A release between that cannot be had leaves every verdict as it is, with a note
    saying why (the audit of ``tree`` is whole without them)."""
    old, pin = pinned
    span = between_range(config, to, tree.version) if tree.kind == REQUIREMENT else None
    if span is None:
        return None, verdicts
    if old is None or pin is None:
        return not_judged("the old pin's tree could not be had"), verdicts
    series, patches, unreadable = loaded
    try:
        every = index_releases(config, span)[0]
        versions = chosen(every)
        trees = fetch_releases(config, span.name, versions)
        for between_tree in trees:
            check_paths(between_tree, patches)
    except (FetchError, TargetError) as exc:
        return not_judged(exc.message), verdicts
    # only the series' own files are asked (a patch's post-image there, at its place): no
    # search of the whole tree, whose answers (moved content, changelogs) no strong rule
    # reads; and a release whose files the series touches are those of the release judged
    # before it has its verdicts (most patch releases change none of them)
    paths = sorted({path for patch in patches for path in patch.touched_paths})
    judged: list[tuple[PatchVerdict, ...]] = []
    seen: tuple[FileState | None, ...] | None = None
    for version, between_tree in zip(versions, trees):
        read = between_tree.reader()
        states = tuple(read(path) for path in paths)
        if judged and states == seen:
            judged.append(judged[-1])
            continue
        found = judge_series(Workspace(read), patches, None, pin, version)
        judged.append(in_series_order(series, found, unreadable))
        seen = states
    names = [v.name for v in verdicts if failing(v)]
    known = facts(names, versions, judged, len(every) - len(versions))
    return known, decide(verdicts, known, tree.version or to)
