"""A path given for a tree that is there but is no directory (a named pipe, a device, a file
where the configuration names a pristine tree) was said not to exist: "the target directory
does not exist", with a hint that there is no such path, sent a user looking for a path they
could list. The error now says what is there; "does not exist" only when nothing is."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import Example, tree_bytes

HINT = "  hint: give the upstream tree's directory (an unpacked sdist or wheel, a checkout)\n"


def test_a_named_pipe_or_a_device_for_a_tree_is_named_as_what_it_is(cli, example: Example) -> None:
    example.target()
    pipe = example.root / "pipe"
    os.mkfifo(pipe)
    before = tree_bytes(example.root)
    run = cli("verify", "--target", "../pipe", cwd=example.downstream)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: ../pipe: the target directory is a named pipe, not a directory\n"
        f"{HINT}",
    )
    run = cli("audit", "--to", str(pipe), cwd=example.downstream)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {pipe}: the new upstream (--to) is a named pipe, not a "
        f"directory\n{HINT}",
    )
    run = cli("status", "--target", "../target", "--pristine", "/dev/null", cwd=example.downstream)
    assert (run.code, run.err) == (
        2,
        "patchkeeper: error: /dev/null: the pristine reference (--pristine) is a device, not a "
        f"directory\n{HINT}",
    )
    run = cli("audit", "--to", "minihttp>=1.0", "--releases", "../pipe", cwd=example.downstream)
    assert (run.code, run.err) == (
        2,
        "patchkeeper: error: ../pipe: the releases directory is a named pipe, not a directory\n"
        "  hint: pass --releases a directory holding NAME-VERSION subdirectories, or the sdist "
        "or wheel files of the releases\n",
    )
    assert tree_bytes(example.root) == before
    missing = cli("verify", "--target", "../nothing", cwd=example.downstream)
    assert missing.err.startswith(
        "patchkeeper: error: ../nothing: the target directory does not exist\n"
    )


def test_a_configured_pristine_that_is_a_file_is_named_as_a_file(cli, example: Example) -> None:
    target = example.target()
    (example.downstream / "minihttp-1.0.tar.gz").write_bytes(b"not unpacked\n")
    config = example.downstream / "patchkeeper.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace('"../upstream/minihttp-1.0"', '"./minihttp-1.0.tar.gz"'),
        encoding="utf-8",
    )
    assert 'pristine = "./minihttp-1.0.tar.gz"' in config.read_text(encoding="utf-8")
    run = cli("verify", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {example.downstream / 'minihttp-1.0.tar.gz'}: the pristine "
        f"reference (pristine = './minihttp-1.0.tar.gz' in {config}) is a regular file, not a "
        f"directory\n{HINT}",
    )
    config.write_text(
        text.replace('"../upstream/minihttp-1.0"', '"minihttp-1.0.tar.gz"'),
        encoding="utf-8",
    )
    run = cli("verify", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {example.downstream / 'minihttp-1.0.tar.gz'}: the pristine "
        f"reference (pristine = 'minihttp-1.0.tar.gz' in {config}) is a regular file, not a "
        f"directory\n{HINT}",
    )


def test_a_named_pipe_named_like_a_project_is_not_fetched(
    cli, example: Example, private_cache: Path
) -> None:
    """``--to pipe``, ``pipe`` a named pipe in the downstream: the project check took it for a
    path (it is there) while the tree lookup, seeing no directory, fetched the project
    ``pipe`` from the package index, and audited (or ported) the series against it."""
    os.mkfifo(example.downstream / "pipe")
    before = tree_bytes(example.root)
    for command in ("audit", "port", "upgrade"):
        run = cli(command, "--to", "pipe", cwd=example.downstream)
        assert (run.code, run.out, run.err) == (
            2,
            "",
            f"patchkeeper: error: pipe: the new upstream (--to) is a named pipe, not a "
            f"directory\n{HINT}",
        ), command
    assert tree_bytes(example.root) == before
    # nothing fetched: the cache holds only the parsed series
    assert sorted(entry.name for entry in private_cache.iterdir()) == ["series"]


def test_a_file_where_an_output_or_checkout_directory_is_wanted_is_named(
    cli, example: Example
) -> None:
    """``--markdown FILE/x.md`` said "No such file or directory" and ``lint
    --foreign-checkout FILE`` "no such directory", of a file the user can list."""
    notes = example.root / "notes.txt"
    notes.write_text("a file\n", encoding="utf-8")
    before = tree_bytes(example.root)
    report = notes / "x.md"
    run = cli(
        "audit",
        "--to",
        "../upstream/minihttp-1.1",
        "--markdown",
        str(report),
        cwd=example.downstream,
    )
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {report}: cannot write the Markdown report: Not a directory\n"
        "  hint: pass --markdown a file in a directory that exists and can be written\n",
    )
    run = cli("lint", "--foreign-checkout", str(notes), cwd=example.downstream)
    assert run.code == 2
    assert run.err.endswith(
        f"Error: Invalid value for '--foreign-checkout': {notes}: a regular file, not a "
        "directory; give the checkout the foreign diffs and vendored trees are compared with\n"
    )
    assert tree_bytes(example.root) == before


def test_a_missing_absolute_target_names_the_nearest_directory(cli, example: Example) -> None:
    """An absolute path with a typo in one part: the hint names the deepest directory of it
    that exists, where the typo starts."""
    missing = example.root / "upstrem" / "minihttp-1.0"
    before = tree_bytes(example.root)
    run = cli("verify", "--target", str(missing), cwd=example.downstream)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {missing}: the target directory does not exist\n"
        f"  hint: the nearest directory that exists is {example.root}: check the path\n",
    )
    assert tree_bytes(example.root) == before


def test_a_missing_path_right_under_the_root_names_its_first_part(cli, example: Example) -> None:
    """An absolute path of which only the file system's root exists: the hint says which
    part of it the root lacks, the part to check, and what to give instead."""
    example.target()
    top = Path("/patchkeeper-no-such-tree")
    assert not os.path.lexists(top)
    run = cli("verify", "--target", str(top), cwd=example.downstream)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {top}: the target directory does not exist\n"
        "  hint: / holds no patchkeeper-no-such-tree: check the path, or give the upstream "
        "tree's directory (an unpacked sdist or wheel, a checkout)\n",
    )
    run = cli("audit", "--to", f"{top}/minihttp-1.1", cwd=example.downstream)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {top}/minihttp-1.1: the new upstream (--to) does not exist\n"
        "  hint: / holds no patchkeeper-no-such-tree: check the path, or give the upstream "
        "tree's directory (an unpacked sdist or wheel, a checkout)\n",
    )
