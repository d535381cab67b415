"""A tree option's value that is neither an existing directory nor a requirement of the
upstream: a relative path read from the wrong directory (``-C DIR`` reads relative paths from
DIR, as ``git -C`` does) or a bare release (``--to 1.1``). It is said to be neither, with the
directory looked for and the requirement that names the release; never "names the project
1.1"; nothing is fetched and nothing written."""

from __future__ import annotations

import pytest

from helpers import Example, tree_bytes


@pytest.mark.parametrize(
    ("args", "option", "spec", "release"),
    [
        (("audit", "--to", "1.1"), "--to", "1.1", "minihttp==1.1"),
        (("audit", "--to", "minihttp-1.1"), "--to", "minihttp-1.1", "minihttp==1.1"),
        (("port", "--to", "MiniHTTP_1.2"), "--to", "MiniHTTP_1.2", "minihttp==1.2"),
        (("verify", "--target", "../upstream/minihttp-1.0", "--pristine", "minihttp-1.0"),
         "--pristine", "minihttp-1.0", "minihttp==1.0"),
        (("runtime", "audit", "--plugin", ".", "--package", "p", "--from", "1.0", "--to",
          "../upstream/minihttp-1.1"), "--from", "1.0", "minihttp==1.0"),
    ],
)  # fmt: skip
def test_a_bare_release_names_its_requirement(
    cli, example: Example, args: tuple[str, ...], option: str, spec: str, release: str,
    tmp_path, monkeypatch,
) -> None:  # fmt: skip
    """Run from the upstream directory with ``-C ../downstream``: ``minihttp-1.1`` is there,
    but not where the relative path is read from."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(cache))
    before = tree_bytes(example.root)
    run = cli("-C", "../downstream", *args, cwd=example.root / "upstream")
    assert run.code == 2
    assert not cache.exists()
    assert run.err == (
        f"patchkeeper: error: {option} {spec}: no directory {example.downstream / spec}, and as "
        "a requirement it names no release of minihttp\n"
        f"  hint: for the release, pass {option} {release}; for a tree, pass its directory\n"
    )
    assert run.out == ""
    assert tree_bytes(example.root) == before


def test_a_bare_word_of_another_name_says_what_to_pass(cli, example: Example) -> None:
    run = cli("audit", "--to", "flask", cwd=example.downstream)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: --to flask: no directory {example.downstream / 'flask'}, and as a "
        "requirement it names no release of minihttp\n"
        "  hint: pass an upstream tree's directory, or a requirement of minihttp (--to "
        "minihttp==VERSION)\n",
    )


def test_a_configured_bare_release_names_its_requirement(cli, example: Example) -> None:
    config = example.downstream / "patchkeeper.toml"
    text = config.read_text().replace('pristine = "../upstream/minihttp-1.0"', "")
    config.write_text(text + 'pristine = "minihttp-1.0"\n')
    run = cli("verify", "--target", str(example.old), cwd=example.downstream)
    assert (run.code, run.err) == (
        2,
        'patchkeeper: error: pristine = "minihttp-1.0": no such directory, and as a requirement '
        "it names no release of minihttp\n"
        '  hint: for the release, pass pristine = "minihttp==1.0"; for a tree, pass its '
        "directory\n",
    )


@pytest.mark.parametrize("command", ["audit", "port"])
def test_a_relative_path_with_a_slash_is_a_missing_directory(
    cli, example: Example, command: str
) -> None:
    """``upstream/minihttp-1.1`` read from the downstream (``-C downstream``) does not exist:
    it is reported as that directory, not as a malformed requirement ("Expected semicolon")."""
    run = cli("-C", "downstream", command, "--to", "upstream/minihttp-1.1", cwd=example.root)
    assert (run.code, run.err) == (
        2,
        "patchkeeper: error: upstream/minihttp-1.1: the new upstream (--to) does not exist\n"
        f"  hint: relative paths start at {example.downstream} (-C DIR's, when given), and "
        f"there is no directory {example.downstream / 'upstream' / 'minihttp-1.1'}\n",
    )
    assert not (example.downstream / ".patchkeeper-port").exists()


def test_a_missing_relative_target_says_where_it_was_looked_for(cli, example: Example) -> None:
    """The port's to-do says ``patchkeeper -C DIR apply --target COPY``; a COPY typed relative
    to where the user is was read from DIR, and the error named only the path as typed."""
    copy = example.target("copy")
    run = cli("-C", "downstream/patches", "apply", "--target", "copy", cwd=example.root)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        "patchkeeper: error: copy: the target directory does not exist\n"
        f"  hint: relative paths start at {example.downstream / 'patches'} (-C DIR's, when "
        f"given), and there is no directory {example.downstream / 'patches' / 'copy'}\n",
    )
    run = cli("-C", "downstream/patches", "apply", "--target", str(copy), cwd=example.root)
    assert (run.code, run.err) == (0, "")


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("port", "--to", "minihttp"), "--to"),
        (("verify", "--target", "../upstream/minihttp-1.0", "--pristine", "minihttp"),
         "--pristine"),
    ],
)  # fmt: skip
def test_the_upstreams_bare_name_is_neither_too(
    cli, example: Example, args: tuple[str, ...], option: str
) -> None:
    """``--to minihttp`` (a directory typed from elsewhere, or a release without its
    version) was refused as "minihttp has no version, not one version"."""
    run = cli(*args, cwd=example.downstream)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {option} minihttp: no directory {example.downstream / 'minihttp'}, "
        "and as a requirement it names no release of minihttp\n"
        f"  hint: pass an upstream tree's directory, or a requirement of minihttp ({option} "
        "minihttp==VERSION)\n",
    )


@pytest.mark.parametrize(
    ("args", "spec", "role"),
    [
        (("audit", "--to", "minihttp-1.1.tar.gz"), "minihttp-1.1.tar.gz", "the new upstream (--to)"),
        (("port", "--to", "minihttp-1.1-py3-none-any.whl"), "minihttp-1.1-py3-none-any.whl",
         "the new upstream (--to)"),
        (("verify", "--target", "../upstream/minihttp-1.0", "--pristine", "minihttp-1.0.zip"),
         "minihttp-1.0.zip", "the pristine reference (--pristine)"),
    ],
)  # fmt: skip
def test_a_missing_release_file_is_a_missing_file(
    cli, example: Example, args: tuple[str, ...], spec: str, role: str, tmp_path, monkeypatch
) -> None:
    """An sdist's or wheel's file name typed in the wrong directory (what ``pip download``
    left in another folder) was looked up on the package indexes as a project of that
    name ("no project named 'minihttp-1.1.tar.gz'"): it is a path, said missing where it was
    looked for, and nothing is fetched."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(cache))
    before = tree_bytes(example.root)
    run = cli(*args, cwd=example.downstream)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {spec}: {role} does not exist\n"
        f"  hint: relative paths start at {example.downstream} (-C DIR's, when given), and "
        f"there is no file {example.downstream / spec}\n",
    )
    # nothing fetched: at most the parsed series is kept
    kept = sorted(p.name for p in cache.iterdir()) if cache.exists() else []
    assert kept in ([], ["series"])
    assert tree_bytes(example.root) == before
