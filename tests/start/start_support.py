"""Helpers for the ``init`` tests: the example's series as a quilt tree and as a git branch."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from helpers import EXAMPLE_SERIES, EXAMPLES, Example, make_checkout

EXAMPLE_PATCHES = EXAMPLES / "downstream" / "patches"


def git(root: Path, *args: str) -> str:
    """Run git in ``root``; its output as printed."""
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def quilt_tree(example: Example) -> Path:
    """The example's old upstream with the example's series in ``patches/`` (quilt's layout)."""
    tree = example.root / "tree"
    shutil.copytree(example.old, tree)
    shutil.copytree(EXAMPLE_PATCHES, tree / "patches")
    return tree


def format_patch_branch(example: Example) -> Path:
    """A git checkout of minihttp: the 1.0 tree tagged ``v1.0``, then the example's first two
    patches as commits (their subjects and bodies from the patch headers)."""
    repo = example.root / "checkout"
    shutil.copytree(example.old, repo)
    make_checkout(repo, "minihttp 1.0", tag="v1.0")
    for name in EXAMPLE_SERIES[:2]:
        git(repo, "apply", "--directory=minihttp", str(EXAMPLE_PATCHES / name))
        git(repo, "commit", "-q", "-a", "-m", name.removesuffix(".patch"), "-m", "Why: a test.")
    return repo
