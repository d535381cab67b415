"""A patch that removes a test function sitting between two others, the one before it ending
as the removed one ends: the untouched file holds the patch's post-image twice, at the
hunk's place (the function before, two blank lines, the function after) and at the end of
the removed function. Undoing the patch finds the second copy, so the untouched tree looked
patched and drifted: ``status`` said *applied* with drift, ``unapply`` refused, and ``unapply
--force`` wrote the function in a second time. GNU patch tries a hunk forward first, and the
patch applies forward at its place: the untouched tree is *not applied*, and pristine.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helpers import DROP_FLAKY_TEST, FLAKY_TEST, FLAKY_TESTS

pytestmark = pytest.mark.tool("patch")

PRISTINE = FLAKY_TESTS.encode()
REMOVED = FLAKY_TEST.encode()
PATCH = DROP_FLAKY_TEST.encode()


def tree_of(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "subprocess_test.py").write_bytes(PRISTINE)
    return root


@pytest.fixture
def downstream(tmp_path: Path) -> Path:
    root = tmp_path / "downstream"
    (root / "debian" / "patches").mkdir(parents=True)
    (root / "debian" / "patches" / "remove-poll-test.patch").write_bytes(PATCH)
    (root / "debian" / "patches" / "series").write_text("remove-poll-test.patch\n")
    (root / "patchkeeper.toml").write_text(
        'upstream = "pkg"\npin = "1.0"\nseries = "debian/patches/series"\n'
    )
    tree_of(tmp_path / "pristine")
    return root


def test_the_untouched_tree_is_not_applied_and_pristine(
    cli, downstream: Path, tmp_path: Path
) -> None:
    target = tree_of(tmp_path / "target")
    test_file = target / "tests" / "subprocess_test.py"
    pristine = ("--pristine", "../pristine")
    run = cli("status", "--target", str(target), *pristine, cwd=downstream)
    assert (run.code, run.out.splitlines()[1:]) == (
        1,
        [
            "  not applied  remove-poll-test.patch",
            "    remove-poll-test.patch: tests/subprocess_test.py hunk #1 not applied",
            "not ok: 0 of 1 patches applied, 0 files drifted",
        ],
    )
    for force in ((), ("--force",)):
        run = cli("unapply", "--target", str(target), *pristine, *force, cwd=downstream)
        assert (run.code, run.out) == (
            0,
            f"unapply: the series is already pristine on directory {target}\nnothing was changed\n",
        )
        assert test_file.read_bytes() == PRISTINE


def test_apply_verify_unapply_give_gnu_patchs_bytes(cli, downstream: Path, tmp_path: Path) -> None:
    target = tree_of(tmp_path / "target")
    test_file = target / "tests" / "subprocess_test.py"
    gnu = tree_of(tmp_path / "gnu")
    subprocess.run(["patch", "-p1", "-s", "--fuzz", "0"], input=PATCH, cwd=gnu, check=True)
    patched = (gnu / "tests" / "subprocess_test.py").read_bytes()
    assert patched == PRISTINE.replace(REMOVED, b"")
    assert cli("apply", "--target", str(target), cwd=downstream).code == 0
    assert test_file.read_bytes() == patched
    pristine = ("--pristine", "../pristine")
    run = cli("verify", "--target", str(target), *pristine, cwd=downstream)
    assert (run.code, run.out.splitlines()[1:]) == (
        0,
        ["  applied  remove-poll-test.patch", "ok: 1 of 1 patches applied, 0 files drifted"],
    )
    assert cli("unapply", "--target", str(target), *pristine, cwd=downstream).code == 0
    assert test_file.read_bytes() == PRISTINE
