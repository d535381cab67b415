"""A downstream whose configured ``pristine`` is a release kept beside others
(``pristine = "../upstream/minihttp-1.0"``, the example's) reads ``--to NAME==VERSION`` and a
range there, as ``--releases`` would, and never asks the package index: the project of that
name on an index may be another one. ``audit --to minihttp==9.9`` on the example fetched an
unrelated *minihttp*. Each test points pip at an index on disk that holds such an unrelated
*minihttp* (its 1.1 and 9.9), so a look-up there would show."""

from __future__ import annotations

import io
import tarfile

import pytest

from helpers import Example, LocalIndex, make_tar

#: The unrelated project's sdist: one file, none of the example's.
UNRELATED = [
    ("minihttp-{v}/PKG-INFO", b"Name: minihttp\nVersion: {v}\n"),
    ("minihttp-{v}/x.py", b""),
]


@pytest.fixture
def other_minihttp(local_index: LocalIndex) -> LocalIndex:
    """The index on disk, with an unrelated project named minihttp at 1.1 and 9.9."""
    for version in ("1.1", "9.9"):
        members = [
            (name.format(v=version), data.replace(b"{v}", version.encode()))
            for name, data in UNRELATED
        ]
        local_index.publish("minihttp", f"minihttp-{version}.tar.gz", make_tar(members))
    return local_index


def test_a_version_not_kept_there_is_refused_naming_where_it_looked(
    cli, example: Example, other_minihttp: LocalIndex
) -> None:
    run = cli("audit", "--to", "minihttp==9.9", cwd=example.downstream)
    releases = example.root / "upstream"
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {example.downstream / 'patchkeeper.toml'}:8: the new upstream "
        f"(--to) minihttp==9.9 is not among the releases in {releases}: 1.0, 1.1, 1.2 (the "
        "directory of the configured pristine, where this downstream keeps minihttp's "
        "releases; the package indexes were not asked)\n"
        "  hint: pass one of those (minihttp==1.2), or the release's directory or sdist file; "
        "a release from the package index goes there first: pip download --no-deps "
        f"--no-binary :all: minihttp==9.9 -d {releases}\n",
    )


def test_a_version_kept_there_is_read_there(
    cli, example: Example, other_minihttp: LocalIndex
) -> None:
    run = cli("audit", "--to", "minihttp==1.1", cwd=example.downstream)
    assert (run.code, run.out.splitlines()[1], run.out.splitlines()[-2]) == (
        1,
        f"against directory {example.new}",
        "7 patches: 1 clean, 2 offset, 1 upstreamed, 1 conflict, 1 target gone, 1 blocked",
    )


def test_a_range_is_read_there(cli, example: Example, other_minihttp: LocalIndex) -> None:
    run = cli("audit", "--to", "minihttp>=1.1", cwd=example.downstream)
    assert (run.code, run.out.splitlines()[1]) == (1, "releases in minihttp>=1.1: 1.1, 1.2")
    beyond = cli("audit", "--to", "minihttp>=9", cwd=example.downstream)
    assert (beyond.code, beyond.err) == (
        2,
        f"patchkeeper: error: no release of minihttp in {example.root / 'upstream'} matches "
        "minihttp>=9\n  hint: releases found: 1.0, 1.1, 1.2; widen the range\n",
    )


def test_a_pristine_alone_in_its_directory_leaves_the_index_to_answer(
    cli, example: Example, local_index: LocalIndex
) -> None:
    """A pristine with no other release beside it says nothing of where the releases are:
    ``--to NAME==VERSION`` is fetched from the index, as without a pristine."""
    alone = example.root / "alone"
    alone.mkdir()
    example.old.rename(alone / "minihttp-1.0")
    config = example.downstream / "patchkeeper.toml"
    config.write_text(
        config.read_text().replace("../upstream/minihttp-1.0", "../alone/minihttp-1.0")
    )
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(example.new, arcname="minihttp-1.1")
    local_index.publish("minihttp", "minihttp-1.1.tar.gz", buffer.getvalue())
    run = cli("audit", "--to", "minihttp==1.1", cwd=example.downstream)
    assert (run.code, run.out.splitlines()[1].split(", sha256")[0]) == (
        1,
        "against minihttp 1.1 (sdist minihttp-1.1.tar.gz",
    )
