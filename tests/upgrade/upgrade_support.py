"""Helpers of the upgrade tests: a downstream made a git checkout, its commits and files."""

from __future__ import annotations

from pathlib import Path

from helpers import git, resolve

__all__ = ["git", "resolve"]


def make_checkout(root: Path) -> str:
    """``git init`` in ``root`` and commit every file on ``main``; the commit's id."""
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the downstream")
    return git(root, "rev-parse", "HEAD")


def subjects(root: Path, base: str) -> list[str]:
    """The subjects of the commits after ``base``, oldest first."""
    return git(root, "log", "--reverse", "--format=%s", f"{base}..HEAD").splitlines()


def committed_files(root: Path, commit: str) -> list[str]:
    """The files one commit changed, sorted."""
    return sorted(git(root, "show", "--format=", "--name-only", commit).splitlines())


def tracked_tree(root: Path) -> dict[str, bytes]:
    """Every file of the work tree but ``.git`` (relative path -> bytes)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }
