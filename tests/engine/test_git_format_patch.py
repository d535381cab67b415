"""``git format-patch`` series made by real git, applied beside ``git apply``.

Each test builds an upstream repository, commits the downstream's changes on top of the
``base`` tag and writes them with ``git format-patch -M``; the series then goes through
``patchkeeper apply`` on one copy of the base tree and ``git apply`` (patch by patch) on
another. Both trees must be equal byte for byte, executable bits included; ``verify`` must
call the series applied and ``unapply`` must give the base tree back.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from engine_support import make_downstream, run, tree_state

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "a",
    "GIT_AUTHOR_EMAIL": "a@example.org",
    "GIT_COMMITTER_NAME": "a",
    "GIT_COMMITTER_EMAIL": "a@example.org",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _git(repo: Path, *args: str) -> bytes:
    done = subprocess.run(["git", *args], cwd=repo, env=_ENV, capture_output=True, check=True)
    return done.stdout


def _commit(repo: Path, message: str) -> None:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)


def _series(tmp_path: Path, repo: Path) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The base tree's files (path -> bytes) and the series ``git format-patch -M`` writes
    for the commits after ``base`` (file name -> bytes)."""
    out = tmp_path / "format-patch"
    _git(repo, "format-patch", "-q", "-M", "-o", str(out), "base..HEAD")
    patches = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    _git(repo, "checkout", "-q", "base")
    files = {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }
    return files, patches


def _check_beside_git(tmp_path: Path, repo: Path, executable: tuple[str, ...]) -> None:
    files, patches = _series(tmp_path, repo)
    ds = make_downstream(tmp_path / "ds", files, patches)
    git_tree = tmp_path / "git"
    shutil.copytree(ds.pristine, git_tree)
    for tree in (ds.pristine, ds.target, git_tree):
        for name in executable:
            (tree / name).chmod(0o755)
    _git(git_tree, "init", "-q")
    for name in patches:
        _git(git_tree, "apply", str(ds.patches / name))
    shutil.rmtree(git_tree / ".git")
    pristine = tree_state(ds.target)
    applied = run(ds, "apply")
    assert applied.code == 0, applied.out
    assert tree_state(ds.target) == tree_state(git_tree)
    verify = run(ds, "verify")
    assert verify.code == 0, verify.out
    assert run(ds, "unapply").code == 0
    assert tree_state(ds.target) == pristine


def test_mode_changes_on_names_with_spaces_and_slash_b(tmp_path) -> None:
    """A mode-only diff has no ``---``/``+++`` lines: its name is read from the ``diff --git``
    line, whose two names git leaves unquoted when they hold spaces. ``pkg/a b/c.sh`` holds
    `` b/`` itself; git takes the split at which both names are the same file."""
    repo = tmp_path / "repo"
    (repo / "pkg" / "a b").mkdir(parents=True)
    names = ("pkg/a b/c.sh", "pkg/with space.sh", "pkg/caf\u00e9.sh", "pkg/plain.sh")
    for name in names:
        (repo / name).write_bytes(b"#!/bin/sh\n")
    _git(repo, "init", "-q")
    _commit(repo, "base")
    _git(repo, "tag", "base")
    for name in names:
        (repo / name).chmod(0o755)
    _commit(repo, "make the scripts executable")
    (repo / "pkg" / "a b" / "c b").mkdir()
    _git(repo, "mv", "pkg/a b/c.sh", "pkg/a b/c b/d.sh")
    _commit(repo, "move a script under a directory named with ' b'")
    (repo / "pkg" / "a b" / "c b" / "d.sh").chmod(0o644)
    _commit(repo, "the moved script is no longer executable")
    (repo / "pkg" / "a b" / "new.py").write_bytes(b"")
    _commit(repo, "an empty file in a directory with a space")
    _check_beside_git(tmp_path, repo, ())


def test_changes_and_renames_of_names_holding_slash_b(tmp_path) -> None:
    """A diff with hunks names its files on ``---``/``+++`` lines; a name holding `` b/``
    (plain, or quoted by git for its ``é``) is read from them, not from a split of the
    ``diff --git`` line, whether the file is changed in place or renamed with a change."""
    repo = tmp_path / "repo"
    (repo / "pkg" / "x b").mkdir(parents=True)
    body = b"".join(b"z%d = 1\n" % n for n in range(8))
    (repo / "pkg" / "x b" / "plain.py").write_bytes(body)
    (repo / "pkg" / "x b" / "caf\u00e9.py").write_bytes(body)
    _git(repo, "init", "-q")
    _commit(repo, "base")
    _git(repo, "tag", "base")
    (repo / "pkg" / "x b" / "plain.py").write_bytes(body.replace(b"z3 = 1", b"z3 = 2"))
    _commit(repo, "change a file in a directory named with ' b'")
    (repo / "pkg" / "y b").mkdir()
    _git(repo, "mv", "pkg/x b/caf\u00e9.py", "pkg/y b/th\u00e9 b.py")
    (repo / "pkg" / "y b" / "th\u00e9 b.py").write_bytes(body.replace(b"z5 = 1", b"z5 = 2"))
    _commit(repo, "rename with a change, quoted names holding ' b/'")
    (repo / "pkg" / "y b" / "th\u00e9 b.py").write_bytes(body.replace(b"z6 = 1", b"z6 = 2"))
    (repo / "pkg" / "y b" / "th\u00e9 b.py").chmod(0o755)
    _commit(repo, "change and mode of the renamed file")
    _check_beside_git(tmp_path, repo, ())


def test_mode_change_and_empty_deletion_of_quoted_names_holding_slash_b(tmp_path) -> None:
    """git quotes a name with ``é``; a diff without ``---``/``+++`` lines (a mode change, an
    empty file deleted) is named by the quoted ``diff --git`` names, split at the first
    one's closing quote: a misread name would make the deletion look already done."""
    repo = tmp_path / "repo"
    (repo / "pkg" / "x b").mkdir(parents=True)
    (repo / "pkg" / "x b" / "caf\u00e9.sh").write_bytes(b"#!/bin/sh\n")
    (repo / "pkg" / "x b" / "\u00e9mpty").write_bytes(b"")
    _git(repo, "init", "-q")
    _commit(repo, "base")
    _git(repo, "tag", "base")
    (repo / "pkg" / "x b" / "caf\u00e9.sh").chmod(0o755)
    _commit(repo, "make a script executable")
    (repo / "pkg" / "x b" / "\u00e9mpty").unlink()
    _commit(repo, "delete an empty file")
    _check_beside_git(tmp_path, repo, ())
