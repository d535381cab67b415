"""A real upstream git repository made from the vLLM 0.27.1 sdist (one commit, tag v0.27.1).

Built once into the corpus cache (``<cache>/git/vllm-0.27.1.git``, a bare repository) from the
unpacked sdist, which is read and never written; tests and benchmarks clone it. The commit
has a fixed author, committer and date, so its id is the same on every machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from corpus import sdist_tree
from patchkeeper.upstream.fetch import cache_root

VERSION = "0.27.1"
TAG = f"v{VERSION}"
_IDENTITY = {
    "GIT_AUTHOR_NAME": "vLLM release",
    "GIT_AUTHOR_EMAIL": "release@vllm.invalid",
    "GIT_COMMITTER_NAME": "vLLM release",
    "GIT_COMMITTER_EMAIL": "release@vllm.invalid",
    "GIT_AUTHOR_DATE": "1767225600 +0000",
    "GIT_COMMITTER_DATE": "1767225600 +0000",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
}


def _git(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    full.update(_IDENTITY)
    full.update(env or {})
    done = subprocess.run(["git", *args], cwd=cwd, env=full, capture_output=True, check=True)
    return done.stdout.decode().strip()


def vllm_bare() -> Path:
    """The cached bare repository of the vLLM 0.27.1 sdist (built on first use)."""
    bare = cache_root() / "git" / f"vllm-{VERSION}.git"
    if (bare / "refs" / "tags" / TAG).is_file() or _has_tag(bare):
        return bare
    tree = sdist_tree(f"vllm=={VERSION}")
    scratch = bare.with_name(bare.name + ".partial")
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.parent.mkdir(parents=True, exist_ok=True)
    _git("init", "-q", "--bare", str(scratch))
    env = {"GIT_DIR": str(scratch), "GIT_WORK_TREE": str(tree)}
    _git("-c", "core.autocrlf=false", "add", "-A", "--force", ".", env=env, cwd=tree)
    tree_id = _git("write-tree", env=env)
    commit = _git("commit-tree", tree_id, "-m", f"vLLM {VERSION} (sdist)", env=env)
    _git("update-ref", "refs/heads/main", commit, env=env)
    _git("symbolic-ref", "HEAD", "refs/heads/main", env=env)
    _git("tag", TAG, commit, env=env)
    shutil.rmtree(bare, ignore_errors=True)
    os.rename(scratch, bare)
    return bare


def _has_tag(bare: Path) -> bool:
    if not bare.is_dir():
        return False
    try:
        _git("--git-dir", str(bare), "rev-parse", "--verify", "--quiet", f"{TAG}^{{commit}}")
    except subprocess.CalledProcessError:
        return False
    return True


def vllm_clone(dest: Path) -> Path:
    """A working clone of the cached repository at ``dest`` (objects shared, fast)."""
    _git("clone", "-q", "--shared", str(vllm_bare()), str(dest))
    return dest


def vllm_clone_bare_tree(dest: Path) -> Path:
    """A clone without a checked-out work tree (import, export and check-branch need none)."""
    _git("clone", "-q", "--shared", "--no-checkout", str(vllm_bare()), str(dest))
    return dest


def show(repo: Path, rev: str, path: str) -> str:
    """The exact text of ``path`` at ``rev``."""
    done = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "blob", f"{rev}:{path}"],
        capture_output=True,
        check=True,
    )
    return done.stdout.decode()


def commit_files(repo: Path, parent: str, message: str, files: dict[str, str]) -> str:
    """Commit ``files`` on top of ``parent`` without a work tree; return the commit id.

    The message is stored verbatim (``commit-tree``), as a contributor's ``git commit
    --cleanup=verbatim`` would.
    """
    index = repo / ".git" / "contributor-index"
    env = {"GIT_INDEX_FILE": str(index)}
    _git("-C", str(repo), "read-tree", parent, env=env)
    for path, text in files.items():
        blob = (
            subprocess.run(
                ["git", "-C", str(repo), "hash-object", "-w", "--stdin"],
                input=text.encode(),
                capture_output=True,
                check=True,
            )
            .stdout.decode()
            .strip()
        )
        _git(
            "-C",
            str(repo),
            "update-index",
            "--add",
            "--cacheinfo",
            f"100644,{blob},{path}",
            env=env,
        )
    tree = _git("-C", str(repo), "write-tree", env=env)
    index.unlink()
    done = subprocess.run(
        ["git", "-C", str(repo), "commit-tree", tree, "-p", parent, "-F", "-"],
        input=message.encode(),
        capture_output=True,
        check=True,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
            **_IDENTITY,
            "GIT_AUTHOR_NAME": "Con Tributor",
            "GIT_AUTHOR_EMAIL": "con@example.org",
        },
    )
    return done.stdout.decode().strip()
