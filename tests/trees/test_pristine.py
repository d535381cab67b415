"""The pristine reference of a directory target: --pristine, the configured one, the pin."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import Example


def without_configured_pristine(example: Example) -> None:
    config = example.downstream / "patchkeeper.toml"
    lines = config.read_text().splitlines()
    config.write_text("\n".join(line for line in lines if not line.startswith("pristine")) + "\n")


@pytest.fixture
def pin_unfetchable(
    example: Example, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, private_cache: Path
) -> None:
    """The example downstream without a configured pristine, and pip told to use only an
    empty index at ``tmp_path/index``: the pin cannot be fetched; the cache is private."""
    without_configured_pristine(example)
    index = tmp_path / "index"
    index.mkdir()
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("PIP_INDEX_URL", index.as_uri())
    monkeypatch.setenv("PIP_FIND_LINKS", "")
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", "")


def test_configured_pristine_directory_is_the_default(cli, example: Example) -> None:
    target = example.target()
    assert cli("apply", "--target", str(target), cwd=example.downstream).code == 0
    run = cli("verify", "--target", str(target), cwd=example.downstream)
    assert run.code == 0
    assert run.out.splitlines()[0] == (
        f"verify: directory {target} against directory {example.old}"
    )


@pytest.mark.usefixtures("pin_unfetchable")
def test_status_goes_on_when_the_pin_cannot_be_fetched(cli, example: Example) -> None:
    target = example.target()
    run = cli("status", "--target", str(target), cwd=example.downstream)
    assert run.code == 1
    lines = run.out.splitlines()
    assert lines[-1] == (
        "not ok: 0 of 7 patches applied; drift not checked (no pristine reference: pass --pristine)"
    )
    assert lines[-2] == (
        f"  pristine: {example.downstream / 'patchkeeper.toml'}: the pristine reference "
        "minihttp==1.0 (upstream==pin) cannot be fetched: no project named 'minihttp' on the "
        "package indexes"
    )
    # verify needs the reference: the fetch error is the answer
    run = cli("verify", "--target", str(target), cwd=example.downstream)
    assert run.code == 2
    assert "no project named 'minihttp' on the package indexes" in run.err
    assert "hint: pass --pristine DIR|REQUIREMENT" in run.err


def test_verify_sees_changes_to_files_the_series_does_not_touch(cli, example: Example) -> None:
    target = example.target()
    assert cli("apply", "--target", str(target), cwd=example.downstream).code == 0
    (target / "minihttp" / "__init__.py").write_text("changed = True\n")
    (target / "minihttp" / "extra.py").write_text("extra = 1\n")
    run = cli("verify", "--target", str(target), cwd=example.downstream)
    assert run.code == 1
    lines = run.out.splitlines()
    assert lines[-3].startswith(
        "  changed outside the series: __init__.py differs from pristine (sha256 "
    )
    assert lines[-2].startswith("  changed outside the series: extra.py exists (sha256 ")
    assert lines[-2].endswith(") but pristine has no such file")
    assert lines[-1] == "not ok: 7 of 7 patches applied, 2 files drifted"
    (target / "minihttp" / "extra.py").unlink()
    (target / "minihttp" / "__init__.py").write_bytes(
        (example.old / "minihttp" / "__init__.py").read_bytes()
    )
    assert cli("verify", "--target", str(target), cwd=example.downstream).code == 0


@pytest.mark.usefixtures("pin_unfetchable")
def test_a_tree_that_cannot_be_fetched_is_named_by_its_role(cli, example: Example) -> None:
    """A fetch error says which tree was being fetched: for ``port`` with no ``--from``, the
    configured pin the user never typed, with the options that give it another way."""
    missing = "no project named 'minihttp' on the package indexes"
    run = cli("port", "--to", str(example.new), cwd=example.downstream)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {example.downstream / 'patchkeeper.toml'}: the old upstream "
        f"minihttp==1.0 (upstream==pin) cannot be fetched: {missing}\n"
        '  hint: pass --from DIR|REQUIREMENT, or set pristine = "DIR" in the configuration\n'
    )
    assert not (example.downstream / ".patchkeeper-port").exists()
    run = cli("audit", "--to", "minihttp==1.1", cwd=example.downstream)
    assert run.code == 2
    assert run.err.splitlines()[0] == (
        f"patchkeeper: error: the new upstream (--to) minihttp==1.1 cannot be fetched: {missing}"
    )
    run = cli(
        "verify",
        "--target",
        str(example.target()),
        "--pristine",
        "minihttp==1.0",
        cwd=example.downstream,
    )
    assert run.code == 2
    assert run.err.splitlines()[0] == (
        "patchkeeper: error: the pristine reference (--pristine) minihttp==1.0 cannot be "
        f"fetched: {missing}"
    )


def test_a_git_worktree_and_a_clone_of_one_commit_are_the_same_tree(
    cli, example: Example, tmp_path
) -> None:
    """The pristine reference's package directory a ``git worktree`` of the pin's tag (its
    ``.git`` is a file), the target's the repository itself with the series applied (its
    ``.git`` a directory): VCS data is no part of either tree, so nothing drifted (it was
    "changed outside the series: .git is added")."""

    def git(where: Path, *args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=where, check=True, capture_output=True,
        )  # fmt: skip

    target, pin = tmp_path / "clone", tmp_path / "pin tree"
    shutil.copytree(example.old, target)
    pin.mkdir()
    shutil.copy(example.old / "pyproject.toml", pin)
    repo = target / "minihttp"  # the configured directory: patch paths are relative to it
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "minihttp 1.0")
    git(repo, "tag", "v1.0")
    git(repo, "worktree", "add", "-q", str(pin / "minihttp"), "v1.0")
    assert (pin / "minihttp" / ".git").is_file() and (repo / ".git").is_dir()
    assert cli("apply", "--target", str(target), cwd=example.downstream).code == 0
    run = cli("verify", "--target", str(target), "--pristine", str(pin), cwd=example.downstream)
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        "ok: 7 of 7 patches applied, 0 files drifted",
    )


def test_a_checkout_that_is_the_downstream_too(cli, tmp_path) -> None:
    """A git branch on an upstream tag (``patchkeeper init --tag``) is the downstream and
    the patched tree at once: its configuration, series, patches and ledger are no upstream
    files, so they are not drift (they were "changed outside the series"); an upstream file
    changed by hand still is."""
    pristine = tmp_path / "demo-1.0"
    (pristine / "demo").mkdir(parents=True)
    (pristine / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "1.0"\n')
    (pristine / "demo" / "core.py").write_text("A = 1\nB = 2\nC = 3\nD = 4\n")
    checkout = tmp_path / "checkout"
    shutil.copytree(pristine, checkout)
    (checkout / "patches").mkdir()
    (checkout / "patches" / "series").write_text("b.patch\n")
    (checkout / "patches" / "b.patch").write_text(
        "Subject: B is 20\n\n--- a/demo/core.py\n+++ b/demo/core.py\n"
        "@@ -1,4 +1,4 @@\n A = 1\n-B = 2\n+B = 20\n C = 3\n D = 4\n"
    )
    (checkout / "patchkeeper.toml").write_text(
        'upstream = "demo"\npin = "1.0"\nseries = "patches/series"\n\n[headers]\nschema = "dep3"\n'
    )
    (checkout / "PATCHES.md").write_text("# Patches\n")
    assert cli("apply", "--target", ".", cwd=checkout).code == 0
    run = cli("verify", "--target", ".", "--pristine", str(pristine), cwd=checkout)
    assert (run.code, run.out.splitlines()[1:]) == (
        0,
        ["  applied  b.patch", "ok: 1 of 1 patches applied, 0 files drifted"],
    )
    (checkout / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "1.1"\n')
    run = cli("verify", "--target", ".", "--pristine", str(pristine), cwd=checkout)
    assert run.code == 1
    assert [line.split(" (")[0] for line in run.out.splitlines()[2:]] == [
        "  changed outside the series: pyproject.toml differs from pristine",
        "not ok: 1 of 1 patches applied, 1 file drifted",
    ]


def test_apply_on_a_directory_reads_no_pristine_reference(cli, example: Example) -> None:
    """``apply`` on a directory needs only the series to apply at fuzz 0, so it reads no
    pristine reference (docs/commands/series.md): a file changed outside the series is
    patched as it stands, and ``verify``, which reads the configured ``pristine``, names it."""
    target = example.target()
    retry = target / "minihttp" / "retry.py"
    retry.write_bytes(b"# a local edit\n" + retry.read_bytes())
    run = cli("apply", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[0] == f"applied 7 patches on directory {target}: 4 files changed"
    run = cli("verify", "--target", str(target), cwd=example.downstream)
    assert run.code == 1
    assert run.out.splitlines()[-2].startswith(
        "  drift: retry.py differs from pristine once the series is undone (sha256 "
    )
    assert run.out.splitlines()[-1] == "not ok: 7 of 7 patches applied, 1 file drifted"


@pytest.mark.usefixtures("pin_unfetchable")
def test_apply_on_a_directory_needs_no_pin_to_be_fetched(cli, example: Example) -> None:
    """No pristine configured and the pin not to be had: ``apply`` on a directory still
    applies (it would otherwise download the pin on every run), and writes no warning."""
    target = example.target()
    run = cli("apply", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.err) == (0, "")
    assert run.out == f"applied 7 patches on directory {target}: 4 files changed\n"
