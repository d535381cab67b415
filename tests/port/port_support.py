"""Helpers for the port tests: resolving conflicts, building an upstream git history."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

from helpers import git, resolve

__all__ = ["git", "resolve"]


def _replace_tree(repo: Path, tree: Path) -> None:
    for entry in repo.iterdir():
        if entry.name == ".git":
            continue
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    shutil.copytree(tree, repo, dirs_exist_ok=True)


def upstream_repository(
    dest: Path,
    old: tuple[str, Path],
    new: tuple[str, Path],
    commits: list[tuple[str, Mapping[str, bytes | None]]],
    release_subject: str = "Release",
) -> Path:
    """A git repository with the two trees as tagged commits and ``commits`` between them.

    Args:
        dest: where to create it.
        old, new: ``(tag, tree)`` of the two releases (an unpacked sdist, a directory).
        commits: ``(subject, {path: content or None to delete})``, written on top of the old
            tree in order; the new tree is then committed as it is and tagged.
    """
    dest.mkdir(parents=True)
    git(dest, "init", "-q", "-b", "main")
    _replace_tree(dest, old[1])
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", f"{release_subject} {old[0]}")
    git(dest, "tag", old[0])
    for subject, files in commits:
        for path, data in files.items():
            target = dest / path
            if data is None:
                target.unlink()
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        git(dest, "add", "-A")
        git(dest, "commit", "-q", "--allow-empty", "-m", subject)
    _replace_tree(dest, new[1])
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "--allow-empty", "-m", f"{release_subject} {new[0]}")
    git(dest, "tag", new[0])
    return dest
