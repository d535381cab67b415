"""Messages that say what is true: a missing ledger file, a skipped vendored-tree check, and
what ``import`` lacks."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest


def git(cwd: Path, *args: str, input: bytes | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True, check=True)
    return done.stdout.decode().strip()


def commit(repo: Path, message: str, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-F", "-", input=message.encode())


HEADERS = "Kind: fix\nWhat: {what}\nUpstream: none\nCut-against: 1.0\nRetires-when: stays\n"


@pytest.fixture
def downstream(tmp_path: Path, cli) -> Path:
    """An upstream checkout (tag v1.0, branch work with two ``[pk]`` topics) and a downstream
    whose series was exported from it; no ledger file was ever written."""
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    git(upstream, "init", "-q", "-b", "main")
    commit(upstream, "release 1.0", {"pkg/core.py": "def size():\n    return 4\n"})
    git(upstream, "tag", "v1.0")
    git(upstream, "checkout", "-q", "-b", "work")
    commit(
        upstream,
        "[pk] bigger\n\n" + HEADERS.format(what="size 8"),
        {"pkg/core.py": "def size():\n    return 8\n"},
    )
    commit(
        upstream,
        "[pk] extra\n\n" + HEADERS.format(what="adds pkg.extra"),
        {"pkg/extra.py": "X = 1\n"},
    )
    down = tmp_path / "down"
    (down / "patches").mkdir(parents=True)
    (down / "patchkeeper.toml").write_text(
        'upstream = "pkg"\npin = "1.0"\ndirectory = "pkg"\n\n'
        f'[git]\ntag = "pk"\ncheckout = "{upstream}"\n'
    )
    assert cli("export", "--range", "v1.0..work", cwd=down).code == 0
    return down


def test_check_branch_says_once_that_the_ledger_file_is_missing(cli, downstream: Path) -> None:
    run = cli("check-branch", "work", cwd=downstream)

    assert (run.code, run.out.splitlines()) == (
        1,
        [
            "work against the series on v1.0: 1 difference",
            "  ledger PATCHES.md: the ledger file does not exist: create it with the lines "
            "<!-- table:begin --> and <!-- table:end -->, then run 'patchkeeper ledger'",
        ],
    )
    (downstream / "PATCHES.md").write_text("<!-- table:begin -->\n<!-- table:end -->\n")
    assert cli("ledger", cwd=downstream).code == 0
    assert cli("check-branch", "work", cwd=downstream).code == 0


def test_check_branch_says_once_that_the_ledger_has_no_table(cli, downstream: Path) -> None:
    (downstream / "PATCHES.md").write_text("# our patches\n")

    run = cli("check-branch", "work", cwd=downstream)

    assert run.out.splitlines()[1:] == [
        "  ledger PATCHES.md: the ledger file has no table: add the lines "
        "<!-- table:begin --> and <!-- table:end --> where it goes, then run "
        "'patchkeeper ledger'",
    ]


def test_import_with_a_checkout_names_the_missing_tag(cli, downstream: Path) -> None:
    config = downstream / "patchkeeper.toml"
    text = config.read_text()
    config.write_text(text.replace('tag = "pk"\n', ""))
    checkout = text.split('checkout = "')[1].split('"')[0]

    run = cli("import", "--checkout", checkout, cwd=downstream)

    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {config}: import needs the topic tag\n"
        "  hint: set tag in [git], or pass --tag\n",  # as patchkeeper.toml spells the table
    )


def test_import_without_either_names_both(cli, downstream: Path) -> None:
    config = downstream / "patchkeeper.toml"
    config.write_text('upstream = "pkg"\npin = "1.0"\ndirectory = "pkg"\n')

    run = cli("import", cwd=downstream)

    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {config}: import needs the topic tag and an upstream checkout\n"
        "  hint: set tag and checkout in [git], or pass --tag and "
        "--checkout\n",
    )


def test_lint_says_the_vendored_tree_was_not_compared(cli, downstream: Path) -> None:
    (downstream / "third_party" / "kernels").mkdir(parents=True)
    (downstream / "third_party" / "kernels" / "k.cu").write_text("// kernel\n")
    (downstream / "third_party" / "kernels" / "PIN").write_text("0" * 40 + "\n")
    config = downstream / "patchkeeper.toml"
    fields = (
        'fields = { Kind = "own", What = "kernels", Upstream = "none", '
        'Cut-against = "1.0", Retires-when = "stays" }'
    )
    config.write_text(
        config.read_text().replace(f'checkout = "{downstream.parent / "upstream"}"\n', "")
        + f'\n[entries.vendored.kernels]\ndirectory = "third_party/kernels"\n{fields}\n'
    )

    text = cli("lint", cwd=downstream)
    github = cli("lint", "--format", "github", cwd=downstream)

    note = (
        "vendored tree 'kernels' was not compared with its pinned commit: no checkout "
        "(pass --foreign-checkout kernels=PATH, or set checkout in [entries.vendored.kernels])"
    )
    assert (text.code, text.out.splitlines()) == (
        0,
        [f"skipped: {note}", "no problems in 2 patches and 1 entry"],
    )
    assert github.out.splitlines()[0] == f"::notice::skipped: {note}"


@pytest.mark.parametrize("command", ["status", "verify", "unapply"])
def test_a_missing_pristine_directory_is_named_as_the_pristine_reference(
    cli, example, command: str
) -> None:
    """Not "the target directory does not exist" (user report: ``status --pristine /nope``)."""
    target = example.target()
    run = cli(command, "--target", str(target), "--pristine", "/nope", cwd=example.downstream)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        "patchkeeper: error: /nope: the pristine reference (--pristine) does not exist\n"
        "  hint: / holds no nope: check the path, or give the upstream tree's directory (an "
        "unpacked sdist or wheel, a checkout)\n"
    )


def test_a_hint_names_the_table_as_the_pyproject_spells_it(cli, downstream: Path) -> None:
    """The same hint with the configuration in ``[tool.patchkeeper]`` of a pyproject.toml."""
    config = downstream / "patchkeeper.toml"
    config.unlink()
    pyproject = downstream / "pyproject.toml"
    pyproject.write_text('[tool.patchkeeper]\nupstream = "pkg"\npin = "1.0"\ndirectory = "pkg"\n')

    run = cli("import", cwd=downstream)

    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {pyproject}: import needs the topic tag and an upstream "
        "checkout\n"
        "  hint: set tag and checkout in [tool.patchkeeper.git], or pass --tag and "
        "--checkout\n",
    )


def test_a_top_level_key_is_named_at_the_top_of_patchkeeper_toml(cli, downstream: Path) -> None:
    config = downstream / "patchkeeper.toml"
    config.write_text(config.read_text().replace('pin = "1.0"\n', ""))

    run = cli("check-branch", cwd=downstream)

    assert run.code == 2
    assert run.err.splitlines()[-1] == (
        '  hint: set pin = "VERSION" at the top of patchkeeper.toml (before any [table])'
    )
