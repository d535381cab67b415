"""Never a traceback: inputs that crashed with exit 3 are exit 2
with a message naming the file and the line."""

from __future__ import annotations

import pytest
from engine_support import Downstream, make_downstream, run, tree_state

PATCH = b"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
COMMANDS = ("apply", "status", "verify", "unapply")


def downstream(tmp_path) -> Downstream:
    return make_downstream(tmp_path, {"f": b"a\n"}, {"p.patch": PATCH})


@pytest.mark.parametrize("command", COMMANDS)
def test_configuration_not_utf8(tmp_path, command) -> None:
    ds = downstream(tmp_path)
    (ds.down / "patchkeeper.toml").write_bytes(b'strip = 1\nupstream = "\xff"\n')
    outcome = run(ds, command)
    assert (outcome.code, outcome.out) == (
        2,
        f"patchkeeper: error: {ds.down}/patchkeeper.toml:2: not UTF-8: byte 0xff cannot be "
        "decoded (TOML files are UTF-8)\n  hint: save the file as UTF-8\n",
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_nul_in_a_configuration_string(tmp_path, command) -> None:
    ds = downstream(tmp_path)
    (ds.down / "patchkeeper.toml").write_text('strip = 1\nseries = "patches/series\\u0000"\n')
    outcome = run(ds, command)
    assert (outcome.code, outcome.out) == (
        2,
        f"patchkeeper: error: {ds.down}/patchkeeper.toml:2: the value of 'series' holds the "
        "control character '\\x00'\n  hint: remove it; no configuration string may hold "
        "control characters\n",
    )


def test_nul_in_a_nested_list(tmp_path) -> None:
    ds = downstream(tmp_path)
    with (ds.down / "patchkeeper.toml").open("a") as handle:
        handle.write('[entries.vendored.v]\ndirectory = "v"\nexclude = ["a", "b\\u0001"]\n')
    outcome = run(ds, "apply")
    assert outcome.code == 2
    assert outcome.out.splitlines()[0] == (
        f"patchkeeper: error: {ds.down}/patchkeeper.toml:6: the value of "
        "'entries.vendored.v.exclude[1]' holds the control character '\\x01'"
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_hunk_header_with_a_huge_number(tmp_path, command) -> None:
    ds = downstream(tmp_path)
    huge = b"9" * 5000
    (ds.patches / "p.patch").write_bytes(b"--- a/f\n+++ b/f\n@@ -1," + huge + b" +1,3 @@\n-a\n")
    before = tree_state(ds.target)
    outcome = run(ds, command)
    assert (outcome.code, outcome.out) == (
        2,
        f"patchkeeper: error: {ds.patches}/p.patch:3: a hunk header holds a number of 5000 "
        "digits (at most 12 are taken)\n  hint: the header is corrupt; regenerate the patch\n",
    )
    assert tree_state(ds.target) == before


def test_huge_strip_option_in_the_series(tmp_path) -> None:
    ds = downstream(tmp_path)
    (ds.patches / "series").write_text("p.patch -p" + "1" * 5000 + "\n")
    outcome = run(ds, "apply")
    assert outcome.code == 2
    assert outcome.out.startswith(f"patchkeeper: error: {ds.patches}/series:1: unknown option")


@pytest.mark.parametrize("command", COMMANDS)
def test_series_entry_longer_than_the_file_system_allows(tmp_path, command) -> None:
    ds = downstream(tmp_path)
    name = "x" * 300 + ".patch"
    (ds.patches / "series").write_text(f"# a comment\n{name}\n")
    outcome = run(ds, command)
    assert (outcome.code, outcome.out) == (
        2,
        f"patchkeeper: error: {ds.patches}/series:2: the series lists {name}, which cannot be "
        "read: File name too long\n  hint: rename the patch file, or fix the line\n",
    )


@pytest.mark.parametrize("command", ["lint", "ledger"])
def test_series_entry_too_long_in_the_paperwork_commands(tmp_path, command) -> None:
    ds = downstream(tmp_path)
    name = "x" * 300 + ".patch"
    (ds.patches / "series").write_text(f"p.patch\n{name}\n")
    import contextlib
    import io
    import os

    from patchkeeper.main import main

    out = io.StringIO()
    before = os.getcwd()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            code = main(["-C", str(ds.down), command])
        finally:
            os.chdir(before)
    text = out.getvalue()
    if command == "lint":  # a finding, the lint's own exit
        assert (code, f"{name} cannot be read: File name too long" in text) == (1, True), text
    else:
        assert (code, text.splitlines()[0]) == (
            2,
            f"patchkeeper: error: {ds.patches}/series:2: the series lists {name}, which cannot "
            "be read: File name too long",
        )


def every_entry(root) -> dict[str, bytes | str]:
    """Every entry under ``root``, the state directory too: file bytes, or ``"dir"``."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes() if path.is_file() else "dir"
        for path in sorted(root.rglob("*"))
    }


#: What each command says of a series whose second patch is empty, on the target ``apply``
#: patched ({target}: the target's label, {pristine}: the pristine tree's).
EMPTY_SAID = {
    "apply": "apply: the series is already applied on {target}\nnothing was changed\n",
    "status": (
        "status: {target} against {pristine}\n  applied  p.patch\n  empty    empty.patch\n"
        "    empty.patch: no diff (zero bytes, or only a header): a no-op\n"
        "ok: 1 of 1 patches applied, 1 empty patch (no-ops), 0 files drifted\n"
    ),
    "unapply": (
        "unapplied 2 patches on {target}: 1 file changed\n"
        "  empty: empty.patch: no diff (zero bytes, or only a header): a no-op\n"
    ),
}
EMPTY_SAID["verify"] = EMPTY_SAID["status"].replace("status: ", "verify: ")


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    "data",
    [b"", b"Description: nothing yet\nAuthor: A <a@b>\n---\n"],
    ids=["0-bytes", "header-only"],
)
def test_a_patch_without_hunks_is_an_empty_patch_of_the_series(tmp_path, command, data) -> None:
    """GNU patch takes 0 bytes silently and calls a header without a diff "only garbage";
    quilt applies either as an empty patch ("appears to be empty; applied"): in a series it
    is a no-op, named as empty, and only the other patches write."""
    ds = downstream(tmp_path)
    assert run(ds, "apply").code == 0
    (ds.patches / "empty.patch").write_bytes(data)
    (ds.patches / "series").write_text("p.patch\nempty.patch\n")
    before = every_entry(ds.target)
    outcome = run(ds, command)
    said = EMPTY_SAID[command].format(
        target=f"directory {ds.target.resolve()}", pristine=f"directory {ds.pristine.resolve()}"
    )
    assert (outcome.code, outcome.out) == (0, said)
    if command == "unapply":
        assert (ds.target / "f").read_bytes() == b"a\n"
    else:
        assert every_entry(ds.target) == before
