"""Helpers for the port tests: resolving conflicts, building an upstream git history."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

#: One conflict region in diff3 style, markers included.
REGION = re.compile(rb"^<<<<<<< [^\n]*\n.*?^>>>>>>> [^\n]*\n", re.S | re.M)


def resolve(path: Path, *replacements: bytes) -> None:
    """Replace the conflict regions of ``path``, in order, with ``replacements``."""
    data = path.read_bytes()
    regions = REGION.findall(data)
    assert len(regions) == len(replacements), (path, regions)
    for region, replacement in zip(regions, replacements):
        data = data.replace(region, replacement, 1)
    path.write_bytes(data)


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` (the autouse fixture isolates its configuration)."""
    done = subprocess.run(
        ["git", "-c", "commit.gpgSign=false", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


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
