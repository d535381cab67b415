"""The git side of ``upgrade --branch NAME``: the work on a new branch, one commit per step.

Every call goes through :mod:`patchkeeper.upstream.gitops` (a controlled environment: no user
configuration, no hooks, the identity ``patchkeeper <patchkeeper@localhost>``: the commits
are the tool's work, the pull request is where a person reviews it).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from patchkeeper.errors import GitError, PatchkeeperError
from patchkeeper.upstream import gitops


class BranchError(PatchkeeperError):
    """The checkout cannot take the upgrade's branch: not a checkout, changes not
    committed, or the branch exists."""


def branch_base(root: Path, name: str) -> tuple[str, str]:
    """Check that the branch ``name`` can be started at ``HEAD`` of the checkout holding
    ``root`` (writing nothing); return ``(base, commit)``: the branch it starts from (the
    commit's id from a detached head) and ``HEAD``'s commit. :func:`create_branch` then
    creates it, once the upgrade's state names it, so that a run cut short between the two
    leaves an upgrade that ``--abort`` and ``--continue`` know.

    Raises:
        BranchError: ``root`` is not in a git checkout, the checkout has changes to tracked
            files or untracked files in the downstream (they would be mixed into the
            commits, or lost on ``--abort``), or the branch exists.
        GitError: ``name`` is no valid branch name (:func:`gitops.check_branch_name`).
    """
    try:
        top = gitops.toplevel(root)
    except GitError:
        raise BranchError(
            "--branch needs the downstream in a git checkout",
            path=root,
            hint="run 'git init' and commit the downstream first, or leave out --branch",
        ) from None
    status = gitops.run(["status", "--porcelain", "-z", "--untracked-files=no"], top)
    untracked = gitops.run(
        ["ls-files", "-z", "--others", "--exclude-standard", "--", str(root)], top
    )
    dirty = [p for p in (status + untracked).decode("utf-8", "surrogateescape").split("\0") if p]
    if dirty:
        first = dirty[0][3:] if status else dirty[0]
        raise BranchError(
            f"the checkout has changes not committed ({first}"
            f"{', ...' if len(dirty) > 1 else ''}): they would be mixed into the upgrade's "
            "commits",
            path=top,
            hint="commit or stash them (git stash -u) first, then run the upgrade again",
        )
    gitops.check_branch_name(name, top)
    if gitops.has_revision(top, f"refs/heads/{name}"):
        raise BranchError(
            f"the branch {name} already exists",
            path=top,
            hint=f"pass another --branch, or delete it (git branch -D {name})",
        )
    commit = gitops.commit_id(top, "HEAD")
    done = gitops.call(["symbolic-ref", "--quiet", "--short", "HEAD"], top)
    base = done.stdout.decode("utf-8", "surrogateescape").strip() if done.returncode == 0 else ""
    return base or commit, commit


def create_branch(root: Path, name: str) -> None:
    """Create the branch ``name`` at ``HEAD`` of the checkout holding ``root`` and switch to
    it (checked by :func:`branch_base`).

    Raises:
        GitError: as git says.
    """
    gitops.run(["checkout", "-q", "-b", name], gitops.toplevel(root))


def resume_branch(root: Path, name: str, commit: str) -> None:
    """Go on on the upgrade's branch ``name``: create it at ``commit`` when a run was cut
    short after the upgrade's state named it and before it was created (``HEAD`` still at
    ``commit``); else check it is checked out (:func:`check_on_branch`).

    Raises:
        BranchError: another branch is checked out.
    """
    top = gitops.toplevel(root)
    if not gitops.has_revision(top, f"refs/heads/{name}") and (
        gitops.commit_id(top, "HEAD") == commit
    ):
        create_branch(top, name)
        return
    check_on_branch(root, name)


def commit_step(root: Path, files: Sequence[str], subject: str, body: str) -> str | None:
    """Commit ``files`` (relative to ``root``: written, created or deleted) as one commit;
    return its id, or ``None`` when there is nothing to commit. A file the checkout's
    ``.gitignore`` names is committed too: the record's evidence belongs with it. A file
    that is neither on disk nor tracked (a record the user deleted before it was committed)
    is left out: there is nothing of it to commit, and git would refuse the whole step over
    its name."""
    if not files:
        return None
    # run in the downstream: the paths are relative to it, as git reads a pathspec
    listed = gitops.run_text(["ls-files", "-z", "--", *files], root)
    tracked = set(listed.split("\0"))
    files = [f for f in files if f in tracked or os.path.lexists(root / f)]
    if not files:
        return None
    gitops.run(["add", "-A", "-f", "--", *files], root)
    if gitops.call(["diff", "--cached", "--quiet"], root).returncode == 0:
        return None
    message = f"{subject}\n\n{body}\n".encode()
    gitops.run(["commit", "-q", "--no-verify", "-F", "-"], root, input=message)
    return gitops.commit_id(root, "HEAD")


def restore(root: Path, base: str, name: str) -> None:
    """Put the checkout back: every change since the last commit dropped, ``base``
    checked out again and the branch ``name`` deleted.

    Raises:
        GitError: as git says.
    """
    top = gitops.toplevel(root)
    gitops.run(["reset", "-q", "--hard"], top)
    gitops.run(["checkout", "-q", base], top)
    gitops.check_branch_name(name, top)
    if gitops.has_revision(top, f"refs/heads/{name}"):
        gitops.run(["branch", "-q", "-D", name], top)


def check_on_branch(root: Path, name: str) -> None:
    """Refuse to go on when the checkout is not on the upgrade's branch: the next step's
    commit would land on another one.

    Raises:
        BranchError: naming the branch checked out and the upgrade's.
    """
    done = gitops.call(["symbolic-ref", "--quiet", "--short", "HEAD"], root)
    current = done.stdout.decode("utf-8", "surrogateescape").strip()
    if done.returncode != 0 or current != name:
        raise BranchError(
            f"the upgrade works on the branch {name}, but {current or 'a detached HEAD'} "
            "is checked out",
            path=root,
            hint=f"run 'git switch {name}', then the upgrade again",
        )
