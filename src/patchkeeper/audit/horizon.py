"""The upgrade horizon: the series audited at every release in a version range.

``audit --to 'vllm>=0.28,<0.34'`` lists the releases the range admits (final releases only,
unless the range itself names a pre-release: PEP 440's rule, as ``packaging`` applies it),
fetches each once into the cache, and judges every patch at each of them, so a maintainer sees
at which release a patch starts to conflict and at which one upstream takes it, and which
release to pin next.

The releases come from the package indexes pip is configured with
(:meth:`patchkeeper.upstream.finder.Finder.versions`), or, with ``--releases DIR``, from the
subdirectories of ``DIR`` named ``NAME-VERSION`` (``examples/upstream/minihttp-1.1``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, cast

from patchkeeper.audit.rules import Rule
from patchkeeper.audit.verdicts import (
    BLOCKED,
    CONFLICT,
    GOOD,
    PARTIALLY_UPSTREAMED,
    TARGET_GONE,
    UNREADABLE,
    UPSTREAMED,
    PatchVerdict,
    evidence_of,
    with_action,
)
from patchkeeper.constants import OPTION_RELEASES, OPTION_TO
from patchkeeper.errors import TargetError
from patchkeeper.system.names import shown_name

if TYPE_CHECKING:
    from packaging.requirements import Requirement

    from patchkeeper.config import Config
    from patchkeeper.trees.tree import Tree

# ``packaging`` is imported where it is used: ``main`` asks :func:`is_range` on every
# ``audit``, and an exact pin answered from the cache must not pay for it.

#: Characters only a version range (or a marker) has; an ``==`` without them pins one version.
_RANGE_CHARACTERS = frozenset("<>!~,*;")

#: Verdicts that keep a release from being suggested as the next pin (a *conflict* that
#: only needs a refresh does not: :attr:`ReleaseVerdicts.blocking`).
BLOCKING = frozenset({CONFLICT, TARGET_GONE, BLOCKED})

#: At most this many releases are fetched at once (downloads wait on the network, not the CPU).
FETCH_WORKERS = 4


@dataclass(frozen=True)
class ReleaseVerdicts:
    """The verdicts of the series at one release.

    Attributes:
        version: the release, ``"1.26.19"``.
        target: the audited tree, described (as :attr:`AuditResult.target`).
        verdicts: one per patch, in series order.
    """

    version: str
    target: str
    verdicts: tuple[PatchVerdict, ...]

    @property
    def blocking(self) -> tuple[str, ...]:
        """The patches whose verdict keeps this release from being the next pin: a
        :data:`BLOCKING` verdict, but not a *conflict* that only needs a refresh (its hunks
        land with their own lines unchanged: it is carried, as a patch with an offset is,
        and the patches after it are judged on its refreshed files)."""
        return tuple(v.name for v in self.verdicts if v.verdict in BLOCKING and not v.refresh)


@dataclass(frozen=True)
class HorizonResult:
    """The series audited at every release of a range.

    Attributes:
        series: the series file.
        pin: the configured pin, or ``None``.
        requirement: the range asked for, ``"minihttp>1.0"``.
        releases: one per release in the range, oldest first.
        patches: the patch names, in series order (the table's rows).
        next_pin: the highest release where no patch conflicts (but for one a refresh
            carries), is *target gone* or *blocked*, else ``None``.
        pin_tree: the old pin's tree the evidence was weighed against, or ``None``.
        pin_note: why it could not be had, else ``None``.
        releases_dir: the ``--releases`` directory the releases were chosen from, or ``None``
            (the package indexes).
        left_out: how many releases the range admits that are older than the pin and were
            left out, neither fetched nor judged (an upgrade audit is of the pin and after).
        left_out_note: that, in one line with why and what to do, or ``None`` when none was
            (:func:`left_out_note`).
    """

    series: str
    pin: str | None
    requirement: str
    releases: tuple[ReleaseVerdicts, ...]
    patches: tuple[str, ...]
    next_pin: str | None
    pin_tree: str | None = None
    pin_note: str | None = None
    releases_dir: str | None = None
    left_out: int = 0
    left_out_note: str | None = None

    @property
    def envelope_target(self) -> dict[str, str | None]:
        """The JSON envelope's ``target`` (docs/json.md): the range asked for, as kind
        ``"requirement"`` with ``range`` (its specifier) and no one ``version``; ``path`` is
        the ``--releases`` directory, else ``None``."""
        from packaging.requirements import Requirement

        parsed = Requirement(self.requirement)
        # the specifier as written (a SpecifierSet orders its parts its own way)
        written = self.requirement.split(";")[0].strip()[len(parsed.name) :]
        written = re.sub(r"^\s*\[[^\]]*\]", "", written).replace(" ", "")
        return {
            "kind": "requirement",
            "path": self.releases_dir,
            "name": parsed.name,
            "version": None,
            "range": written or str(parsed.specifier),
        }

    def row(self, patch: str) -> tuple[str, ...]:
        """The verdicts of ``patch`` at each release, oldest first."""
        return tuple(
            next(v.verdict for v in release.verdicts if v.name == patch)
            for release in self.releases
        )

    @property
    def blocking_at_pin(self) -> tuple[str, ...]:
        """The patches whose verdict keeps the configured pin itself from being a pin, when
        the range holds that release (PEP 440 equality): the series does not apply at its
        own pin (a patch cut against another tree than the release's), else ``()``."""
        if self.pin is None:
            return ()
        from packaging.version import InvalidVersion, Version

        for release in self.releases:
            try:
                if Version(release.version) == Version(self.pin):
                    return release.blocking
            except InvalidVersion:
                continue
        return ()

    @property
    def below_pin(self) -> bool:
        """Whether every release of the range is older than the configured pin (PEP 440):
        none of them can be a next pin, whatever the verdicts; ``False`` without a pin, an
        empty range or a version PEP 440 cannot read."""
        if self.pin is None or not self.releases:
            return False
        from packaging.version import InvalidVersion, Version

        try:
            pin = Version(self.pin)
            return all(Version(release.version) < pin for release in self.releases)
        except InvalidVersion:
            return False

    @property
    def next_pin_is_current(self) -> bool:
        """Whether the suggested next pin is the configured pin (PEP 440 equality)."""
        if self.next_pin is None or self.pin is None:
            return False
        from packaging.version import InvalidVersion, Version

        try:
            return Version(self.next_pin) == Version(self.pin)
        except InvalidVersion:
            return False

    @property
    def exit_code(self) -> int:
        """2 when a patch file cannot be read (the others are judged all the same, as by
        ``audit`` of one release), else 0 when every patch is clean, offset or upstreamed at
        every release, else 1 (a patch that needs work somewhere in the range is a finding)."""
        if any(v.verdict == UNREADABLE for v in self.unreadable):
            return 2
        good = all(v.verdict in GOOD for r in self.releases for v in r.verdicts)
        return 0 if good else 1

    @property
    def unreadable(self) -> tuple[PatchVerdict, ...]:
        """The verdicts of the patches whose file cannot be read (the same at every release),
        in series order, from the first release."""
        first = self.releases[0].verdicts if self.releases else ()
        return tuple(v for v in first if v.verdict == UNREADABLE)


def left_out_note(count: int, pin: str | None, name: str) -> str | None:
    """The line saying ``count`` releases older than ``pin`` were left out of a range audit
    and why, or ``None`` when none was.

    >>> left_out_note(1, "1.0", "minihttp")[:63]
    'left out 1 release older than the pin 1.0: an upgrade audit is '
    >>> left_out_note(0, "1.0", "minihttp") is None
    True
    """
    if not count:
        return None
    releases = "release" if count == 1 else "releases"
    return (
        f"left out {count} {releases} older than the pin {pin}: an upgrade audit is of the pin"
        f" and later releases (to audit older ones, pass a range below the pin, such as"
        f" '{name}<{pin}')"
    )


def is_range(spec: str) -> bool:
    """Whether ``spec`` (a ``--to`` value) asks for a range of releases: a requirement whose
    specifier is not one ``==`` pinning one version (``==1.*`` is a range).

    >>> is_range("vllm>=0.28,<0.34"), is_range("vllm==0.32.0"), is_range("vllm==0.3.*")
    (True, False, True)
    >>> is_range("./examples/upstream/minihttp-1.1"), is_range("vllm")
    (False, False)
    """
    text = spec.strip()
    if "==" in text and not _RANGE_CHARACTERS.intersection(text):
        return False  # NAME==VERSION: one release, answered without importing packaging
    requirement = _requirement(spec)
    if requirement is None or requirement.url is not None or not requirement.specifier:
        return False
    specifiers = list(requirement.specifier)
    exact = len(specifiers) == 1 and specifiers[0].operator in ("==", "===")
    return not (exact and not specifiers[0].version.endswith(".*"))


def parse_range(spec: str) -> Requirement:
    """``spec`` (a ``--to`` value) as a requirement with a version range: what ``--to``
    must be when ``--releases`` is given (a ``--to`` that is a range needs no ``--releases``,
    so a value that is none came with it).

    Raises:
        TargetError: it is not one: the message names ``--releases`` as what needs a range,
            the hint says what a range looks like, and to leave ``--releases`` out for one
            release.
    """
    requirement = _requirement(spec)
    if requirement is None or not requirement.specifier or requirement.url is not None:
        raise TargetError(
            f"{OPTION_TO} {spec!r} is not a requirement with a version range, which "
            f"{OPTION_RELEASES} needs",
            hint=f"pass {OPTION_TO} NAME followed by a range, such as 'vllm>=0.28,<0.34' or "
            f"'minihttp>1.0'; for one release, leave {OPTION_RELEASES} out",
        )
    return requirement


def in_range(requirement: Requirement, versions: Sequence[str]) -> list[str]:
    """The versions ``requirement`` admits, oldest first, each once.

    Pre-releases count only when the range names one (``>=2.0rc1``): PEP 440's rule, with no
    fallback to pre-releases when no final release matches.

    >>> from packaging.requirements import Requirement
    >>> in_range(Requirement("x>1.0,<2"), ["1.0", "1.2", "1.1", "2.0", "1.3rc1", "bad"])
    ['1.1', '1.2']
    >>> in_range(Requirement("x>=1.3rc1"), ["1.2", "1.3rc1", "1.3"])
    ['1.3rc1', '1.3']
    """
    from packaging.version import InvalidVersion, Version

    specifier = requirement.specifier
    pre = any(Version(s.version.rstrip(".*")).is_prerelease for s in specifier if _parses(s))
    parsed: dict[Version, str] = {}
    for text in versions:
        try:
            parsed.setdefault(Version(text), text)
        except InvalidVersion:
            continue
    chosen = specifier.filter(parsed, prereleases=pre)
    return [parsed[v] for v in sorted(chosen)]


def fetch_all(versions: Sequence[str], fetch: Callable[[str], object]) -> list[object]:
    """``fetch(version)`` for each version, in parallel threads (downloads wait on the
    network), results in the order of ``versions``. The first error raised is raised."""
    if len(versions) <= 1:
        return [fetch(v) for v in versions]
    with ThreadPoolExecutor(max_workers=min(FETCH_WORKERS, len(versions))) as pool:
        return list(pool.map(fetch, versions))


def index_releases(config: Config, requirement: Requirement) -> tuple[list[str], list[str]]:
    """The releases the package indexes have in ``requirement``'s range, oldest first
    (:func:`in_range`), and every version they have of its project (for a hint when none
    is in range).

    Raises:
        FetchError: the index cannot be asked.
    """
    from packaging.utils import canonicalize_name

    from patchkeeper.upstream.finder import Finder

    with Finder() as finder:
        available = finder.versions(canonicalize_name(requirement.name), config.fetch)
    return in_range(requirement, available), available


def fetch_releases(config: Config, name: str, versions: Sequence[str]) -> list[Tree]:
    """Each release ``name==VERSION`` of ``versions`` fetched into the cache (several at a
    time: :func:`fetch_all`), in order.

    Raises:
        FetchError, TargetError: a release cannot be fetched or lacks the ``directory``.
    """
    from patchkeeper.trees.tree import requirement_tree

    def fetch(version: str) -> Tree:
        return requirement_tree(f"{name}=={version}", config)

    return [cast("Tree", tree) for tree in fetch_all(versions, fetch)]


#: Verdicts at a later release that mean upstream rewrote the lines of a patch it had taken.
REWRITTEN_AFTER = frozenset({CONFLICT, PARTIALLY_UPSTREAMED})


def _rewritten_after(verdict: PatchVerdict, taken: str) -> PatchVerdict:
    """``verdict`` (at a release after ``taken``) made *upstreamed*: upstream took the patch
    at ``taken`` and rewrote its lines since; the later evidence follows."""
    later = evidence_of(verdict)
    summary = f"upstream took it in {taken} and has rewritten its lines since: {later}"
    return with_action(
        replace(verdict, verdict=UPSTREAMED, summary=summary, action="", rule=Rule.TAKEN_EARLIER)
    )


def _blocker_upstream(verdict: PatchVerdict, blocker: str) -> PatchVerdict:
    """``verdict`` (*blocked* by ``blocker``, which upstream has at this release) made a
    *conflict*: the lines it needs from ``blocker`` are upstream's own now, written
    differently, so it is ported onto them; its blocker is retired, not ported first."""
    summary = (
        f"it needs lines of {shown_name(blocker)}, which upstream has (written its own way): "
        "port it onto upstream's lines"
    )
    return with_action(
        replace(
            verdict,
            verdict=CONFLICT,
            summary=summary,
            action="",
            blocked_by=None,
            lands="",
            rule=Rule.BLOCKER_UPSTREAM,
        )
    )


def taken_earlier(releases: Sequence[ReleaseVerdicts]) -> list[ReleaseVerdicts]:
    """The releases' verdicts, oldest first, with every patch that is *upstreamed* at one
    release and *conflict* or *partially upstreamed* at a later one made *upstreamed* there.

    A backport upstream took in release N and rewrote again in N+1 no longer matches N+1
    line for line; its fix is there, written differently. A patch that applies again at a
    later release (*clean*, *offset*: upstream reverted the fix) keeps its verdict.

    A patch *blocked* by a patch that is *upstreamed* at the same release (as judged, or
    made so here) is not blocked by it: upstream has what it needed. When upstream took the
    blocked patch too at an earlier release, it is *upstreamed* as well; otherwise it is a
    *conflict* (it needs the blocker's lines, which upstream wrote its own way).
    """
    taken: dict[str, str] = {}
    out = []
    for release in releases:
        verdicts: list[PatchVerdict] = []
        upstream: set[str] = set()
        for verdict in release.verdicts:
            if verdict.verdict == BLOCKED and verdict.blocked_by in upstream:
                if verdict.name in taken:
                    needs = f"it needs lines of {verdict.blocked_by}, which upstream rewrote too"
                    unblocked = replace(
                        verdict, summary=needs, blocked_by=None, lands="", action="", evidence=None
                    )
                    verdict = _rewritten_after(unblocked, taken[verdict.name])
                else:
                    verdict = _blocker_upstream(verdict, verdict.blocked_by or "")
            if verdict.verdict == UPSTREAMED:
                taken.setdefault(verdict.name, release.version)
            elif verdict.verdict in REWRITTEN_AFTER and verdict.name in taken:
                verdict = _rewritten_after(verdict, taken[verdict.name])
            elif verdict.verdict in GOOD:
                taken.pop(verdict.name, None)
            if verdict.verdict == UPSTREAMED:
                upstream.add(verdict.name)
            verdicts.append(verdict)
        out.append(replace(release, verdicts=tuple(verdicts)))
    return out


def next_pin(releases: Sequence[ReleaseVerdicts], pin: str | None = None) -> str | None:
    """The highest release where no patch is :data:`BLOCKING`, else ``None``. A release
    older than ``pin`` (PEP 440) is never one: moving the pin back is no upgrade, so a
    range wholly below the pin has no next pin, whatever its verdicts.

    >>> ok = ReleaseVerdicts("0.9", "tree 0.9", ())
    >>> next_pin([ok], None), next_pin([ok], "1.0"), next_pin([ok], "0.9")
    ('0.9', None, '0.9')
    """
    from packaging.version import InvalidVersion, Version

    try:
        floor = Version(pin) if pin is not None else None
    except InvalidVersion:
        floor = None
    for release in reversed(releases):
        try:
            older = floor is not None and Version(release.version) < floor
        except InvalidVersion:
            older = False
        if not release.blocking and not older:
            return release.version
    return None


def no_release(
    requirement: Requirement, where: str, available: Sequence[str], directory: bool = False
) -> TargetError:
    """The error for a range that admits no release: the hint lists what there is, or,
    for a ``--releases`` directory (``directory``: ``where`` names it) that holds none at
    all, what it must hold, since no range would find one there. (An index with no release
    of the project is refused before: :meth:`patchkeeper.upstream.finder.Finder.versions`.)"""
    if directory and not available:
        hint = (
            f"{where} holds no release of {requirement.name}: pass --releases a directory "
            f"holding {requirement.name}-VERSION subdirectories, or the sdist or wheel files "
            "of the releases"
        )
    else:
        listed = ", ".join(available[-12:]) if available else "none"
        hint = f"releases found: {listed}; widen the range"
    return TargetError(
        f"no release of {requirement.name} in {where} matches {requirement}", hint=hint
    )


def _requirement(spec: str) -> Requirement | None:
    text = spec.strip()
    if not text or text.startswith((".", "/", "~", "\\")) or re.search(r"[\\/]", text):
        return None
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


def _parses(specifier: object) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        Version(str(getattr(specifier, "version", "")).rstrip(".*"))
    except InvalidVersion:
        return False
    return True
