"""The path policy: refuse, exit 2, nothing written."""

from __future__ import annotations

import contextlib
import io
import os

import pytest
from engine_support import Outcome, make_downstream, run, tree_state

from patchkeeper.main import main

MODIFY_F = b"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"


def _everything(ds) -> dict:
    return {
        "target": tree_state(ds.target),
        "down": tree_state(ds.down),
        "root": tree_state(ds.root),
    }


def test_patching_a_symlink_inside_the_target_is_refused(tmp_path) -> None:
    ds = make_downstream(tmp_path, {"g": b"a\n"}, {"p.patch": MODIFY_F})
    os.symlink("g", ds.target / "f")
    before = _everything(ds)
    for command in ("apply", "status", "verify", "unapply"):
        outcome = run(ds, command)
        assert (outcome.code, outcome.out.splitlines()[0]) == (
            2,
            f"patchkeeper: error: {ds.patches}/p.patch:1: the patch path 'f' is a symbolic "
            "link in the target; patchkeeper patches regular files only (GNU patch: not a "
            f"regular file) at {ds.target}/f; nothing was written",
        ), command
    assert _everything(ds) == before


@pytest.mark.parametrize(
    ("quoted", "shown"),
    [
        ('"a\\nb"', "'a\\nb' holds the control character '\\n'"),
        ('"x\\033[31m"', "'x\\x1b[31m' holds the control character '\\x1b'"),
        (
            '"caf\\351"',
            '"caf\\351" holds bytes that are not valid utf-8 (the file system\'s encoding)',
        ),
        ('"tab\\there"', "'tab\\there' holds the control character '\\t'"),
    ],
    ids=["newline", "escape", "latin-1", "tab"],
)
def test_file_names_with_control_characters_or_bad_bytes(tmp_path, quoted, shown) -> None:
    name = quoted.strip('"')
    patch = (
        f"diff --git {quoted[0]}a/{name}{quoted[0]} {quoted[0]}b/{name}{quoted[0]}\n"
        "new file mode 100644\n--- /dev/null\n"
        f"+++ {quoted[0]}b/{name}{quoted[0]}\n@@ -0,0 +1 @@\n+x\n"
    ).encode()
    ds = make_downstream(tmp_path, {"f": b"a\n"}, {"p.patch": patch})
    before = _everything(ds)
    outcome = run(ds, "apply")
    assert (outcome.code, outcome.out.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {ds.patches}/p.patch:1: the patch path {shown}; nothing was written",
    )
    assert _everything(ds) == before


@pytest.mark.parametrize("path", [".patchkeeper/journal/manifest.json", ".patchkeeper/x"])
def test_paths_into_patchkeepers_own_state(tmp_path, path) -> None:
    patch = f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+x\n".encode()
    ds = make_downstream(tmp_path, {"f": b"a\n"}, {"p.patch": patch})
    before = _everything(ds)
    outcome = run(ds, "apply")
    assert (outcome.code, outcome.out.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {ds.patches}/p.patch:1: the patch path '{path}' lies in "
        f"patchkeeper's own state ({ds.target}/.patchkeeper) at {ds.target}/{path}; nothing "
        "was written",
    )
    assert _everything(ds) == before


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("../x.patch", "the series entry '../x.patch' leaves the series directory"),
        ("sub/../../x.patch", "the series entry 'sub/../../x.patch' leaves the series directory"),
        ("ABSOLUTE", "the series entry 'ABSOLUTE' leaves the series directory"),
        (
            "link.patch",
            "the series entry link.patch leads outside the series directory (a symlink)",
        ),
    ],
    ids=["dotdot", "inner-dotdot", "absolute", "symlink"],
)
def test_series_entry_leaving_the_series_directory(tmp_path, entry, message) -> None:
    ds = make_downstream(tmp_path, {"f": b"a\n"}, {"p.patch": MODIFY_F})
    outside = ds.down / "x.patch"
    outside.write_bytes(MODIFY_F)
    os.symlink(outside, ds.patches / "link.patch")
    entry = entry.replace("ABSOLUTE", str(outside))
    message = message.replace("ABSOLUTE", str(outside))
    (ds.patches / "series").write_text(f"p.patch\n{entry}\n")
    before = _everything(ds)
    for command in ("apply", "status", "verify", "unapply"):
        outcome = run(ds, command)
        assert (outcome.code, outcome.out.splitlines()[0]) == (
            2,
            f"patchkeeper: error: {ds.patches}/series:2: {message}",
        ), command
    assert _everything(ds) == before


def run_without_target(ds, *args: str) -> Outcome:
    """``patchkeeper -C down ARGS`` in-process, for the commands that take no --target."""
    out, err = io.StringIO(), io.StringIO()
    before = os.getcwd()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["-C", str(ds.down), *args])
        finally:
            os.chdir(before)
    return Outcome(code, out.getvalue() + err.getvalue())


@pytest.mark.parametrize("entry", ["series", "./series"])
def test_a_series_that_lists_itself_is_refused_at_its_line(tmp_path, entry) -> None:
    """``ls > patches/series`` lists the series file too: said at its line with what to do,
    not read as a patch holding no diff."""
    ds = make_downstream(
        tmp_path, {"f": b"a\n"}, {"p.patch": MODIFY_F}, series_lines=["p.patch", entry]
    )
    before = _everything(ds)
    for command in ("apply", "status", "verify", "unapply", "lint", "audit"):
        if command == "lint":
            outcome = run_without_target(ds, "lint")
        elif command == "audit":
            outcome = run_without_target(ds, "audit", "--to", str(ds.pristine))
        else:
            outcome = run(ds, command)
        assert (outcome.code, outcome.out.splitlines()[:2]) == (
            2,
            [
                f"patchkeeper: error: {ds.patches}/series:2: the series entry {entry!r} is the "
                "series file itself",
                "  hint: remove the line: the series file lists the patches and is not one of them",
            ],
        ), command
    assert _everything(ds) == before


def test_absolute_name_with_strip_1_lands_inside_the_target(tmp_path) -> None:
    """``+++ /tmp/x/new`` at -p1 is ``tmp/x/new`` inside the target, as GNU patch has it."""
    patch = b"--- /dev/null\n+++ /tmp/x/new\n@@ -0,0 +1 @@\n+x\n"
    ds = make_downstream(tmp_path, {"f": b"a\n"}, {"p.patch": patch})
    assert run(ds, "apply").code == 0
    assert (ds.target / "tmp/x/new").read_bytes() == b"x\n"
    assert run(ds, "verify").code == 0
    assert run(ds, "unapply").code == 0
    assert tree_state(ds.target) == tree_state(ds.pristine)


@pytest.mark.parametrize(
    ("file", "patch", "words"),
    [
        (
            b"a\r\nb\r\nc\r\n",
            b"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
            ("CRLF", "LF"),
        ),
        (
            b"a\nb\nc\n",
            b"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n",
            ("LF", "CRLF"),
        ),
    ],
    ids=["crlf-file-lf-patch", "lf-file-crlf-body"],
)
def test_line_ending_mismatch_is_named(tmp_path, file, patch, words) -> None:
    ds = make_downstream(tmp_path, {"f": file}, {"p.patch": patch})
    outcome = run(ds, "apply")
    assert outcome.code == 1
    assert outcome.out.splitlines()[3:] == [
        "      expected at line 1; closest match at line 1: 3 of 3 lines match",
        f"      different line endings: the file's lines end in {words[0]}, the patch's in "
        f"{words[1]}",
        "nothing was changed",
    ]
    assert (ds.target / "f").read_bytes() == file
