"""``apply`` and ``unapply`` refuse a target inside the fetch cache.

The cache's unpacked releases are the pristine references every check compares with; one
patched in place makes ``verify`` report the series' files as drift in every other tree.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers import Example, tree_bytes


@pytest.fixture
def cached_pin(example: Example, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The pin's tree where the fetch cache unpacks an sdist (``trees/NAME/DIST/DIST``)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(cache))
    tree = cache / "trees" / "minihttp" / "minihttp-1.0" / "minihttp-1.0"
    shutil.copytree(example.old, tree)
    return tree


@pytest.mark.parametrize("command", ["apply", "unapply"])
def test_a_tree_of_the_fetch_cache_is_not_a_target(
    cli, example: Example, cached_pin: Path, command: str
) -> None:
    before = tree_bytes(cached_pin)
    run = cli(command, "--target", str(cached_pin), cwd=example.downstream)
    hint = {
        "apply": f"copy it and work on the copy: cp -R {cached_pin} COPY && patchkeeper apply "
        "--target COPY",
        "unapply": f"if it was patched, delete it (rm -rf {cached_pin}): the next command "
        "that needs it downloads it again",
    }[command]
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {cached_pin}: the target is inside patchkeeper's fetch cache "
        f"({cached_pin.parents[3]}), whose trees are the pristine references verify, unapply "
        f"and audit compare with; nothing was changed\n  hint: {hint}\n"
    )
    assert tree_bytes(cached_pin) == before


def test_a_copy_of_a_cached_tree_is_a_target(cli, example: Example, cached_pin: Path) -> None:
    copy = example.root / "copy"
    shutil.copytree(cached_pin, copy)
    run = cli("apply", "--target", str(copy), cwd=example.downstream)
    assert (run.code, run.out) == (0, f"applied 7 patches on directory {copy}: 4 files changed\n")
    run = cli("unapply", "--target", str(copy), cwd=example.downstream)
    assert run.code == 0
    assert tree_bytes(copy) == tree_bytes(cached_pin)
