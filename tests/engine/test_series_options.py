"""The words after a patch name in a series file, as quilt reads them (a new user's report:
``fix.patch -p 1`` was refused). quilt passes those words to GNU patch as they are
(``patch_args`` in quilt's ``patchfns``), and patch reads ``-p1`` and ``-p 1`` alike; ``-R``
makes quilt apply the patch reversed, which patchkeeper refuses with a message saying so."""

from __future__ import annotations

import json

import pytest
from engine_support import make_downstream, run, tree_state

#: A patch written with ``-p0`` names (no ``a/``/``b/`` prefix), and one with ``-p1`` names.
P0 = b"--- f\n+++ f\n@@ -1 +1 @@\n-a\n+b\n"
P1 = b"--- a/g\n+++ b/g\n@@ -1 +1 @@\n-c\n+d\n"


@pytest.mark.parametrize(
    "lines",
    [
        ["zero.patch -p 0", "one.patch -p 1"],
        ["zero.patch -p0", "one.patch -p1"],
        ["zero.patch\t-p\t0   # made with diff -u", "one.patch"],
    ],
)
def test_a_strip_level_with_or_without_a_space(tmp_path, lines: list[str]) -> None:
    ds = make_downstream(
        tmp_path, {"f": b"a\n", "g": b"c\n"}, {"zero.patch": P0, "one.patch": P1},
        series_lines=lines,
    )  # fmt: skip
    outcome = run(ds, "apply")
    assert (outcome.code, outcome.out) == (
        0,
        f"applied 2 patches on directory {ds.target}: 2 files changed\n",
    )
    assert (ds.target / "f").read_bytes() == b"b\n"
    assert (ds.target / "g").read_bytes() == b"d\n"
    assert run(ds, "verify").code == 0


@pytest.mark.parametrize(
    ("line", "message", "hint"),
    [
        (
            "one.patch -R",
            "option '-R' after one.patch: quilt applies this patch reversed (patch -R), which "
            "patchkeeper does not do",
            "write the patch forwards (quilt push it, then quilt refresh rewrites it and drops "
            "the -R), and remove -R from the series line",
        ),
        (
            "one.patch -p",
            "option '-p' after one.patch needs a strip level, but is followed by nothing",
            "a series line is a patch name, optionally followed by -pN (or -p N)",
        ),
        (
            "one.patch -p -R",
            "option '-p' after one.patch needs a strip level, but is followed by '-R'",
            "a series line is a patch name, optionally followed by -pN (or -p N)",
        ),
        (
            "one.patch --strip=1",
            "unknown option '--strip=1' after one.patch",
            "a series line is a patch name, optionally followed by -pN (or -p N)",
        ),
    ],
)
def test_an_option_quilt_passes_to_patch_but_patchkeeper_refuses(
    tmp_path, line: str, message: str, hint: str
) -> None:
    ds = make_downstream(tmp_path, {"g": b"c\n"}, {"one.patch": P1}, series_lines=[line])
    before = tree_state(ds.target)
    outcome = run(ds, "apply")
    assert (outcome.code, outcome.out) == (
        2,
        f"patchkeeper: error: {ds.patches}/series:1: {message}\n  hint: {hint}\n",
    )
    assert tree_state(ds.target) == before


OPTIONS_HINT = "a series line is a patch name, optionally followed by -pN (or -p N)"


@pytest.mark.parametrize(
    ("line", "message", "hint"),
    [
        (b"one.patch -p\xe9", 'unknown option "-p\\351" after one.patch', OPTIONS_HINT),
        (b"caf\xe9.patch -x", "unknown option '-x' after \"caf\\351.patch\"", OPTIONS_HINT),
        (
            b"one.patch -p \xe9",
            "option '-p' after one.patch needs a strip level, but is followed by \"\\351\"",
            OPTIONS_HINT,
        ),
        (
            b"caf\xe9.patch -R",
            "option '-R' after \"caf\\351.patch\": quilt applies this patch reversed (patch "
            "-R), which patchkeeper does not do",
            "write the patch forwards (quilt push it, then quilt refresh rewrites it and drops "
            "the -R), and remove -R from the series line",
        ),
    ],
)
def test_a_refused_option_shows_bytes_that_are_not_utf8_as_names_are_shown(
    tmp_path, line: bytes, message: str, hint: str
) -> None:
    """A series file written in Latin-1 (``caf\xe9.patch -x``): the refused option and the
    patch name are shown in git's quoted form, as every other message shows a name that is not
    UTF-8, in the text and in ``--json``; they were shown as lone surrogates
    (``'-p\\udce9'``), which say nothing of the byte and cannot be written as UTF-8."""
    ds = make_downstream(tmp_path, {"g": b"c\n"}, {"one.patch": P1})
    (ds.patches / "caf\udce9.patch").write_bytes(P1)
    (ds.patches / "series").write_bytes(line + b"\n")
    before = tree_state(ds.target)
    outcome = run(ds, "apply")
    assert (outcome.code, outcome.out) == (
        2,
        f"patchkeeper: error: {ds.patches}/series:1: {message}\n  hint: {hint}\n",
    )
    assert tree_state(ds.target) == before
    outcome = run(ds, "apply", "--json")
    envelope, _ = json.JSONDecoder().raw_decode(outcome.out)
    assert (outcome.code, envelope["error"]["message"]) == (2, message)


def test_a_patch_named_with_a_space(tmp_path) -> None:
    """A patch saved under its subject (``0002 narrow padding (é).patch``) and listed so: the
    line was split at its spaces and refused as ``unknown option 'narrow' after 0002``,
    which named no file. The file beside the series is named, and a name without spaces."""
    name = "0002 narrow padding (é).patch"
    ds = make_downstream(tmp_path, {"g": b"c\n"}, {name: P1}, series_lines=[name])
    before = tree_state(ds.target)
    outcome = run(ds, "apply")
    assert (outcome.code, outcome.out) == (
        2,
        f"patchkeeper: error: {ds.patches}/series:1: {name} has a space in its name: a series "
        "line is a patch name and its options, split at spaces, as quilt reads it\n"
        "  hint: rename the patch file without spaces (say 0002-narrow-padding-(é).patch) and "
        "write that name on this line\n",
    )
    assert tree_state(ds.target) == before


def test_an_unknown_option_is_still_one_when_no_file_has_the_whole_line_as_its_name(
    tmp_path,
) -> None:
    ds = make_downstream(tmp_path, {"g": b"c\n"}, {"one.patch": P1}, series_lines=["one.patch x"])
    assert run(ds, "apply").out == (
        f"patchkeeper: error: {ds.patches}/series:1: unknown option 'x' after one.patch\n"
        "  hint: a series line is a patch name, optionally followed by -pN (or -p N)\n"
    )
