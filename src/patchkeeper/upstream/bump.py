"""The pin a pull request raises: the requirement its changes to the dependency files set for
the upstream, read from git from the repository's root (whatever folder the downstream is in).

A dependency bot (Dependabot, Renovate) raises a pin by rewriting dependency files: a line of a
requirements file, a string of ``pyproject.toml``'s ``[project] dependencies``, a Poetry
constraint, a lock file's ``[[package]]`` version, often several of them at once (``pyproject.toml``
and ``uv.lock``). :func:`changed_files` reads each dependency file the pull request changed
(:func:`patchkeeper.upstream.reqfiles.file_kind`) at the merge base and at the head;
:func:`bumped` keeps the requirements for the upstream that are new on the head's side;
:func:`one_pin` makes them one requirement to audit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

from patchkeeper.errors import GitError, PatchkeeperError
from patchkeeper.upstream import gitops
from patchkeeper.upstream.reqfiles import (
    FoundRequirement,
    RequirementFileError,
    file_kind,
    requirements_for,
)


class NoBumpError(PatchkeeperError):
    """The changes set no new requirement for the project: nothing to audit (exit 1)."""

    exit_code = 1


@dataclass(frozen=True)
class ChangedFile:
    """A dependency file a pull request changed.

    Attributes:
        path: relative to the repository's root, ``/``-separated (as git names it).
        before: its text at the merge base, ``None`` when the pull request adds it.
        after: its text at the head, ``None`` when the pull request deletes it.
    """

    path: str
    before: str | None
    after: str | None


def bumped(name: str, changes: Iterable[ChangedFile]) -> list[FoundRequirement]:
    """The requirements for the project ``name`` that the changed files set on the head's side
    and did not set before (compared whole: name, extras, specifier and markers), in the order
    of ``changes`` and of each file.

    Raises:
        RequirementFileError: a file cannot be parsed on either side.
    """
    found: list[FoundRequirement] = []
    for change in changes:
        if change.after is None:
            continue
        before = requirements_for(name, change.path, change.before or "")
        old = {str(item.requirement) for item in before}
        found += [
            item
            for item in requirements_for(name, change.path, change.after)
            if str(item.requirement) not in old
        ]
    return found


def one_pin(name: str, found: Sequence[FoundRequirement], where: str) -> FoundRequirement:
    """The one requirement to audit among ``found`` (what :func:`bumped` or a file gives).

    Requirements that name the same pin (name and specifier: :attr:`FoundRequirement.pin`)
    are one. Several different ones are one when exactly one of them names a single version
    (``==X``, as a lock file does) and every other one admits that version: a bot that raises
    ``vllm>=0.32`` in ``pyproject.toml`` and locks ``vllm==0.32.0`` in ``uv.lock`` moves the
    pin to 0.32.0. The first place that sets the chosen pin is returned.

    Args:
        where: what was read, for the messages ("the pull request's changes").

    Raises:
        NoBumpError: ``found`` is empty.
        PatchkeeperError: several requirements that do not agree on one version (each named
            with its file and line).
    """
    if not found:
        raise NoBumpError(
            f"{where} set no new requirement for {name}",
            hint=f"nothing to audit; or check that '{name}' is the upstream's project name",
        )
    pins = list(dict.fromkeys(item.pin for item in found))
    if len(pins) == 1:
        return found[0]
    exact = {item.pin: version for item in found if (version := _one_version(item)) is not None}
    if len(exact) == 1:
        [(pin, version)] = exact.items()
        if all(item.requirement.specifier.contains(version, prereleases=True) for item in found):
            return next(item for item in found if item.pin == pin)
    listed = "; ".join(f"{item.pin} ({item.where})" for item in found)
    raise PatchkeeperError(
        f"{where} set several requirements for {name} that name no one version: {listed}",
        path=found[0].path,
        line=found[0].line,
        hint="audit each with `patchkeeper audit --to REQUIREMENT` (a matrix of jobs), "
        "or make the files agree",
    )


def _one_version(item: FoundRequirement) -> Version | None:
    """The single version ``item`` admits (``==X`` without a wildcard, or ``===X``)."""
    specifiers = list(item.requirement.specifier)
    if len(specifiers) != 1 or specifiers[0].operator not in ("==", "==="):
        return None
    text = specifiers[0].version
    return None if text.endswith(".*") else Version(text)


def changed_files(checkout: Path, base: str, head: str = "HEAD") -> list[ChangedFile]:
    """The dependency files that differ between the merge base of ``base`` and ``head``, and
    ``head`` (what ``git diff BASE...HEAD`` shows), anywhere in the repository that holds
    ``checkout`` (read from its root, so a downstream in a subfolder still sees a bump in
    another folder), with their text on both sides.

    Raises:
        GitError: ``checkout`` is not in a git work tree, a revision is missing, or the two
            have no common history (a shallow clone: check out with the whole history).
        RequirementFileError: a file is not UTF-8.
    """
    try:
        root = gitops.toplevel(checkout)
    except GitError:
        raise GitError(
            f"{checkout} is not in a git checkout",
            path=checkout,
            hint="run it in the pull request's checkout, or pass --file with a dependency file",
        ) from None
    for rev in (base, head):
        if not gitops.has_revision(root, f"{rev}^{{commit}}"):
            raise GitError(
                f"no commit '{rev}' in {root}",
                path=root,
                hint="fetch the pull request's base branch (actions/checkout with "
                "fetch-depth: 0), or pass the base revision",
            )
    done = gitops.call(["merge-base", base, head], root)
    if done.returncode != 0:
        raise GitError(
            f"'{base}' and '{head}' have no common commit in {root}",
            path=root,
            hint="the clone is shallow: check out with the whole history "
            "(actions/checkout with fetch-depth: 0)",
        )
    merge_base = done.stdout.decode("ascii").strip()
    changes = []
    for path in gitops.diff_names(root, merge_base, head):
        if file_kind(path) is not None:
            changes.append(
                ChangedFile(path, _text(root, merge_base, path), _text(root, head, path))
            )
    return changes


def _text(root: Path, rev: str, path: str) -> str | None:
    """The text of ``path`` at ``rev``, or ``None`` when it does not exist there.

    Raises:
        RequirementFileError: the file is not UTF-8.
    """
    if not gitops.has_revision(root, f"{rev}:{path}"):
        return None
    data = gitops.show_file(root, rev, path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RequirementFileError(
            f"not UTF-8 at {rev[:12]} (byte {error.start})",
            path=path,
            hint="dependency files are read as UTF-8: save it so",
        ) from None


def bumped_pin(checkout: Path, base: str, name: str, head: str = "HEAD") -> FoundRequirement:
    """The requirement to audit that the changes from ``base`` to ``head`` set for ``name``:
    :func:`changed_files`, :func:`bumped` and :func:`one_pin` in one call.

    Raises:
        NoBumpError: no new requirement for ``name``.
        PatchkeeperError: several that disagree, a file that cannot be parsed, a git failure.
    """
    changes = changed_files(checkout, base, head)
    return one_pin(name, bumped(name, changes), f"the changes from {base} to {head}")
