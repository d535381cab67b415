"""A reference tree given as the directory an sdist was unpacked into (it holds only
``minihttp-1.0/``): ``audit``, ``port`` and ``verify`` weighed the series against an empty
tree (every file missing from the pin; ``port`` said the series does not apply to it).
They refuse it, naming the directory inside to give instead, and write nothing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import Example


def _wrapped(example: Example, name: str) -> Path:
    """``<root>/unpacked-NAME/NAME``: a copy of the example's upstream tree ``NAME``
    inside a directory of its own, as ``tar -xf NAME.tar.gz -C unpacked-NAME`` leaves it."""
    outer = example.root / f"unpacked-{name}"
    shutil.copytree(example.root / "upstream" / name, outer / name)
    return outer


def _status(root: Path) -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--ignored"],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture
def down(example: Example) -> Path:
    """The example downstream in a git repository, with ``directory = ""`` as a Debian
    series has it (patch paths from the sdist's root: with ``directory = "minihttp"`` the
    tree is refused earlier for lacking ``minihttp/``)."""
    root = example.downstream
    config = root / "patchkeeper.toml"
    config.write_text(config.read_text().replace('directory = "minihttp"', 'directory = ""'))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "i"],
        check=True,
    )
    return root


def test_audit_refuses_a_to_that_holds_the_unpacked_tree(cli, example: Example, down) -> None:
    outer = _wrapped(example, "minihttp-1.1")
    run = cli("audit", "--to", str(outer), cwd=down)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: the new upstream (--to) {outer} holds only the upstream tree "
        f"minihttp-1.1/\n  hint: pass --to {outer / 'minihttp-1.1'}\n"
    )


def test_port_refuses_a_pristine_that_holds_the_unpacked_tree(cli, example: Example, down) -> None:
    outer = _wrapped(example, "minihttp-1.0")
    config = down / "patchkeeper.toml"
    text = config.read_text().replace('"../upstream/minihttp-1.0"', f'"{outer}"')
    config.write_text(text)
    subprocess.run(["git", "-C", str(down), "commit", "-qam", "p"], check=True)
    run = cli("port", "--to", "../upstream/minihttp-1.1", cwd=down)
    assert (run.code, run.out) == (2, "")
    inner = outer / "minihttp-1.0"
    assert run.err == (
        f"patchkeeper: error: the old upstream {outer} holds only the upstream tree "
        f'minihttp-1.0/\n  hint: pass --from {inner}, or set pristine = "{inner}"\n'
    )
    assert _status(down) == ""
    audit = cli("audit", "--to", "../upstream/minihttp-1.1", cwd=down)
    assert audit.out.splitlines()[2] == (
        f"the old pin's tree could not be had (the pristine reference {outer} holds only the "
        "upstream tree minihttp-1.0/): lines it already had count as evidence too"
    )


def test_verify_refuses_a_pristine_that_holds_the_unpacked_tree(
    cli, example: Example, down
) -> None:
    outer = _wrapped(example, "minihttp-1.0")
    target = example.root / "target"
    shutil.copytree(example.old, target)
    run = cli("verify", "--target", str(target), "--pristine", str(outer), cwd=down)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: the pristine reference {outer} holds only the upstream tree "
        f"minihttp-1.0/\n  hint: pass --pristine {outer / 'minihttp-1.0'}\n"
    )


def test_a_tree_without_the_directory_names_its_role_and_the_tree_inside(
    cli, example: Example
) -> None:
    """With ``directory = "minihttp"`` such a tree lacks ``minihttp/``: the error called a
    pristine reference "the target" and did not say where the tree is."""
    down = example.downstream
    outer = _wrapped(example, "minihttp-1.0")
    target = example.root / "target"
    shutil.copytree(example.old, target)
    run = cli("verify", "--target", str(target), "--pristine", str(outer), cwd=down)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {outer}: the pristine reference (--pristine) has no minihttp/ "
        "directory, which patch paths are relative to\n"
        f"  hint: it holds only the upstream tree {outer / 'minihttp-1.0'}: give that directory\n"
    )
    run = cli("apply", "--target", str(outer), cwd=down)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {outer}: the target directory has no minihttp/ directory, which "
        "patch paths are relative to\n"
        f"  hint: it holds only the upstream tree {outer / 'minihttp-1.0'}: give that directory\n"
    )
