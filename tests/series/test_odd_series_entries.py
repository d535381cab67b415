"""A series whose file or entries are of the wrong kind: a series path that is a directory,
an entry that names a directory. Every command that reads the series says which it is, on
which line, and what to do; ``lint`` says it too."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from helpers import EXAMPLE_SERIES, Example, tree_bytes
from patchkeeper.system.names import unquoted_name


def test_an_entry_that_is_a_directory(cli, example: Example) -> None:
    down = example.downstream
    (down / "patches" / "extra.patch").mkdir()
    series = down / "patches" / "series"
    series.write_text(series.read_text() + "extra.patch\n")
    message = f"{series}:9: the series lists extra.patch, which is a directory, not a patch file"
    hint = f"put the patch file at {down / 'patches' / 'extra.patch'} in its place, or fix the line"
    run = cli("apply", "--target", str(example.target()), cwd=down)
    assert (run.code, run.out) == (2, "")
    assert run.err == f"patchkeeper: error: {message}\n  hint: {hint}\n"
    # the audit judges the rest of the series and gives the entry a verdict of its own
    run = cli("audit", "--to", "../upstream/minihttp-1.1", "--json", cwd=down)
    assert run.code == 2
    (extra,) = [v for v in json.loads(run.out)["verdicts"] if v["name"] == "extra.patch"]
    assert (extra["verdict"], extra["action"], extra["unreadable"]) == (
        "unreadable",
        "look",
        message,
    )
    assert extra["summary"].startswith(f"{message} ({hint}); ")
    run = cli("lint", cwd=down)
    assert run.code == 1
    assert run.out.splitlines()[0] == (
        "patches/series:9: PK201 extra.patch is a directory: "
        "put the patch file at extra.patch in its place, or fix the line"
    )


def test_a_series_path_that_is_a_directory(cli, example: Example) -> None:
    down = example.downstream
    series = down / "patches" / "series"
    series.unlink()
    series.mkdir()
    # decide, report and upgrade took the directory for "no series": report wrote a record of
    # 0 series patches, and upgrade and decide said there was no series file
    before = tree_bytes(down)
    commands = (
        ("apply", "--target", str(example.target())),
        ("lint",),
        ("decide",),
        ("report",),
        ("report", "--check"),
        ("upgrade", "--to", str(example.new)),
    )
    for command in commands:
        run = cli(*command, cwd=down)
        assert (run.code, run.out) == (2, ""), command
        assert tree_bytes(down) == before, command
        assert run.err == (
            f"patchkeeper: error: {series}: the series file is a directory\n"
            "  hint: point 'series' at the top of patchkeeper.toml (before any [table]) to the "
            "file that lists the patches, one a line\n"
        )
    shutil.rmtree(example.root / "target")


def test_a_series_path_that_is_the_patches_directory(cli, example: Example) -> None:
    """``series = "debian/patches"``: the directory, not the series file in it, is named."""
    down = example.downstream
    config = down / "patchkeeper.toml"
    text = config.read_text()
    assert 'series = "patches/series"\n' in text
    config.write_text(text.replace('series = "patches/series"\n', 'series = "patches"\n'))
    run = cli("lint", cwd=down)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {down / 'patches'}: the series file is a directory\n"
        "  hint: point 'series' at the top of patchkeeper.toml (before any [table]) to the "
        f"series file in it, {down / 'patches' / 'series'}\n"
    )


def test_an_entry_that_is_a_named_pipe_or_a_dangling_link(cli, example: Example) -> None:
    # A pipe is never opened (reading one would wait for a writer forever), and neither it
    # nor a link to a missing file is called missing: the user can list both.
    down = example.downstream
    patches = down / "patches"
    os.mkfifo(patches / "pipe.patch")
    (patches / "link.patch").symlink_to("gone.patch")
    series = patches / "series"
    series.write_text(series.read_text() + "pipe.patch\nlink.patch\n")
    run = cli("apply", "--target", str(example.target()), cwd=down)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {series}:9: the series lists pipe.patch, which is a named pipe, "
        "not a patch file\n"
        f"  hint: put the patch file at {patches / 'pipe.patch'} in its place, or fix the line\n"
    )
    run = cli("lint", cwd=down)
    assert run.code == 1
    assert run.out.splitlines()[:2] == [
        "patches/series:9: PK201 pipe.patch is a named pipe: "
        "put the patch file at pipe.patch in its place, or fix the line",
        "patches/series:10: PK201 link.patch is a symbolic link to a missing file (gone.patch): "
        "put the patch file at link.patch in its place, or fix the line",
    ]


def test_a_name_that_is_not_utf8_is_shown_one_way_everywhere(cli, example: Example) -> None:
    # A Latin-1 file name (the byte 0xe9) is shown as git shows it, "caf\351.patch", in the
    # error, in lint's and the audit's text, in Markdown and in the JSON, which maps back to the bytes.
    down = example.downstream
    patches = down / "patches"
    latin1 = os.fsdecode(b"caf\xe9.patch")
    try:
        (patches / latin1).write_bytes((patches / EXAMPLE_SERIES[0]).read_bytes())
    except (OSError, UnicodeEncodeError) as exc:  # a file system that takes only UTF-8
        pytest.skip(f"this file system refuses the name b'caf\\xe9.patch': {exc}")
    shown = '"caf\\351.patch"'
    series = patches / "series"
    listed = series.read_bytes()
    series.write_bytes(listed + b"caf\xe9.patch\nmiss\xe9.patch\n")
    target = example.target()
    run = cli("apply", "--target", str(target), cwd=down)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f'patchkeeper: error: {series}:10: the series lists "miss\\351.patch", which does '
        "not exist\n"
        f'  hint: restore "{patches}/miss\\351.patch" or remove the line from the series\n',
    )
    run = cli("lint", cwd=down)
    assert run.out.splitlines()[0] == (
        'patches/series:10: PK201 "miss\\351.patch" does not exist: '
        'restore "miss\\351.patch" or remove the line from the series'
    )
    run = cli("lint", "--json", cwd=down)
    (finding,) = [f for f in json.loads(run.out)["findings"] if f["code"] == "PK201"]
    assert finding["message"] == '"miss\\351.patch" does not exist'
    series.write_bytes(listed + b"caf\xe9.patch\n")
    run = cli("apply", "--target", str(target), cwd=down)
    assert run.out.splitlines()[0] == f"{shown} does not apply to directory {target}"
    run = cli("audit", "--to", "../upstream/minihttp-1.1", cwd=down)
    assert run.out.splitlines()[-1] == (
        f"to retire (already upstream): {EXAMPLE_SERIES[0]}, {shown}"
    )
    (row,) = [line for line in run.out.splitlines() if line.startswith(f"  {shown} ")]
    assert row.split()[1] == "upstreamed"
    report = example.root / "audit.md"
    cli("audit", "--to", "../upstream/minihttp-1.1", "--markdown", str(report), cwd=down)
    assert report.read_text().splitlines()[-1] == f"- `{shown}`"
    run = cli("audit", "--to", "../upstream/minihttp-1.1", "--json", cwd=down)
    names = [verdict["name"] for verdict in json.loads(run.out)["verdicts"]]
    assert names[-1] == shown
    assert os.fsencode(unquoted_name(names[-1])) == b"caf\xe9.patch"
    run = cli("retire", latin1, "--at", "1.1", "--why", "upstream has it", cwd=down)
    assert (run.code, run.out) == (
        0,
        'retired "caf\\351" at 1.1: removed "patches/caf\\351.patch"; took it out of '
        "patches/series; recorded in PATCHES.md\n",
    )


def test_a_hash_inside_a_name_is_part_of_it(cli, example: Example) -> None:
    """dpkg-source takes ``#`` as a comment only at the start of a line or after white
    space, and quilt reads a line's first word: ``fix-#12.patch`` is the name."""
    down = example.downstream
    patches = down / "patches"
    (patches / "metrics-same-host.patch").rename(patches / "metrics-same-host-#12.patch")
    series = patches / "series"
    series.write_text(
        series.read_text().replace(
            "\nmetrics-same-host.patch\n", "\nmetrics-same-host-#12.patch  # issue #12\n"
        )
    )
    run = cli("apply", "--target", str(example.target()), "--json", cwd=down)
    assert run.code == 0, run.err
    assert json.loads(run.out)["patches"] == [
        *EXAMPLE_SERIES[:5],
        "metrics-same-host-#12.patch",
        EXAMPLE_SERIES[6],
    ]
    run = cli("lint", cwd=down)
    assert (run.code, run.out) == (0, "no problems in 7 patches\n")
