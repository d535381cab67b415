"""Whether the series init makes from a git branch gives the branch back when applied.

``git format-patch TAG..HEAD`` writes one patch per commit that is not a merge, one after
another. On a linear branch that series, applied to the tag's files, gives HEAD's files. On a
branch with merges it may not: the commits of the two sides of a merge can change the same
lines (the merge resolved them; their patches, one after the other, do not apply at fuzz 0),
and a merge can carry changes of its own (its conflict resolution), which no patch holds. A
commit can also give a patch that ``apply`` refuses whatever the history (a binary diff).

So init applies the series it writes, in memory and as ``apply`` does (:mod:`patchkeeper.series
.engine`, fuzz 0), to the tag's files, and compares the result with HEAD's: every file a patch
touches or that differs between the tag and HEAD. What does not come out the same is told as a
warning naming the patches, the commits they came from and the merges, and what to do; init
still writes the series, so the user can look at it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.errors import PatchkeeperError
from patchkeeper.series.engine import FileState, Workspace, apply_patch, touched_paths
from patchkeeper.series.model import Patch
from patchkeeper.series.parse import parse_patch
from patchkeeper.upstream import gitops

#: The most file names one warning lists before it says how many more.
SHOWN_FILES = 3
#: git's tree entry modes of what is no file: a submodule (a commit) and a directory.
NOT_FILES = ("160000", "040000")


@dataclass(frozen=True)
class Commit:
    """One commit of the branch: its abbreviated id and its subject line."""

    short: str
    subject: str

    def __str__(self) -> str:
        return f'{self.short} "{self.subject}"'


def branch_warnings(root: Path, tag: str, written: Sequence[tuple[Path, bytes]]) -> list[str]:
    """What is wrong with the series ``git format-patch TAG..HEAD`` wrote in ``root`` (a git
    checkout): one warning for each patch ``apply`` refuses to read, then one when the series
    applied to ``tag``'s files does not give HEAD's (a patch that does not apply after the
    ones before it, or files that come out otherwise). Empty when the series gives HEAD back.

    Args:
        root: the checkout (any directory in it; paths are the repository's).
        tag: the upstream tag the series sits on.
        written: the patch files init writes, in series order: ``(path, bytes)``, each as
            git format-patch wrote it (its first line names the commit).

    Raises:
        GitError: git fails on the checkout (it just ran format-patch there).
    """
    commits = _commits(root, f"{tag}..HEAD", merges=False)
    warnings: list[str] = []
    parsed: list[Patch] = []
    for path, data in written:
        try:
            parsed.append(parse_patch(data, name=path.name, path=path, strip=1))
        except PatchkeeperError as exc:
            todo = exc.hint or "rework the commit"
            warnings.append(
                f"apply refuses {path.name} ({_origin(data, commits)}), which init wrote: "
                f"{exc.message}; to do: {todo}"
            )
    if warnings:
        return warnings
    paths = set(touched_paths(parsed)) | set(gitops.diff_names(root, tag, "HEAD"))
    before, after = _files(root, tag, paths), _files(root, "HEAD", paths)
    workspace = Workspace(before.get)
    failed = [patch.name for patch in parsed if not apply_patch(workspace, patch).ok]
    differ = sorted(path for path in paths if not _same(workspace.get(path), after.get(path)))
    if not failed and not differ:
        return []
    by_name = {path.name: data for path, data in written}
    if failed:
        named = ", ".join(f"{name} ({_origin(by_name[name], commits)})" for name in failed)
        what = f"{named} does not apply at fuzz 0 after the patches before it"
    else:
        shown = ", ".join(differ[:SHOWN_FILES])
        more = f" and {len(differ) - SHOWN_FILES} more" if len(differ) > SHOWN_FILES else ""
        what = f"it gives {shown}{more} otherwise than HEAD has them"
    merges = list(_commits(root, f"{tag}..HEAD", merges=True).values())
    if not merges:
        return [
            f"the series applied to {tag} is not HEAD: {what}; to do: rework those patches so "
            "that each applies to the files the ones before it leave"
        ]
    listed = ", ".join(str(commit) for commit in merges)
    return [
        f"the series applied to {tag} is not HEAD: {what}. The merge commit(s) {listed} are "
        "no patches: git format-patch skips a merge, with the conflicts it resolved and the "
        "changes it carries, and writes the commits of both sides one after another. To do: "
        f"put the commits in a line on {tag} (git rebase {tag} replays them without the "
        "merges, asking for each conflict once), move away what init wrote "
        "(patchkeeper.toml, the ledger, patches/), and run init again"
    ]


def _commits(root: Path, rev_range: str, *, merges: bool) -> dict[str, Commit]:
    """The commits of ``rev_range``, merges only or none (full id -> :class:`Commit`),
    oldest first."""
    out = gitops.run_text(
        [
            "log",
            "--reverse",
            "--merges" if merges else "--no-merges",
            "--format=%H%x00%h%x00%s",
            rev_range,
            "--",
        ],
        root,
    )
    commits: dict[str, Commit] = {}
    for line in out.splitlines():
        full, short, subject = line.split("\0", 2)
        commits[full] = Commit(short, subject)
    return commits


def _origin(data: bytes, commits: dict[str, Commit]) -> str:
    """``commit ID "SUBJECT"`` of a git format-patch file, from its first line (``From ID
    Mon Sep 17 00:00:00 2001``, git-format-patch(1)'s mbox separator)."""
    first = data.split(b"\n", 1)[0].split()
    full = first[1].decode("ascii", "replace") if len(first) > 1 else ""
    commit = commits.get(full)
    return f"commit {commit}" if commit is not None else f"commit {full[:12]}"


def _files(root: Path, rev: str, paths: set[str]) -> dict[str, FileState]:
    """The files of ``paths`` that ``rev`` has (repository path -> content and mode); a
    symbolic link's content is its target, as git stores it."""
    entries = {
        path: (mode, blob)
        for path, (mode, blob) in gitops.ls_tree(root, rev).items()
        if path in paths and mode not in NOT_FILES
    }
    blobs = gitops.cat_file_batch(root, sorted({blob for _, blob in entries.values()}))
    return {
        path: FileState.from_bytes(blobs[blob], int(mode[-3:], 8))
        for path, (mode, blob) in entries.items()
        if blob in blobs
    }


def _same(got: FileState | None, want: FileState | None) -> bool:
    """Whether a file the series gives is HEAD's: both absent, or the same bytes and the
    same executable bit (the rest of a mode is the file system's, not git's)."""
    if got is None or want is None:
        return got is None and want is None
    executable = (got.mode or 0) & 0o111, (want.mode or 0) & 0o111
    return got.data == want.data and bool(executable[0]) == bool(executable[1])
