"""A file the commands must read but cannot: the error names it and says what to do.

In the shape of a downstream whose ledger path is taken by a directory (an editor's or a
tool's folder of the same name): ``ledger --check`` and ``ledger`` exit 2, naming the path,
why it cannot be read and what to do, and write nothing. The downstream is written by the
test."""

from __future__ import annotations

from pathlib import Path

from helpers import HELLO_PATCH, write_files


def _downstream(tmp_path: Path) -> Path:
    """A DEP-3 downstream of one patch whose ledger is ``PATCHES.md`` (not written)."""
    return write_files(
        tmp_path / "down",
        {
            "patchkeeper.toml": (
                'upstream = "hello"\npin = "1.0"\nseries = "patches/series"\n\n'
                '[headers]\nschema = "dep3"\n\n[ledger]\nfile = "PATCHES.md"\n'
            ),
            "patches/series": "short-greeting.patch\n",
            "patches/short-greeting.patch": HELLO_PATCH,
        },
    )


def test_a_ledger_path_that_is_a_directory_says_what_to_do(tmp_path: Path, cli) -> None:
    down = _downstream(tmp_path)
    (down / "PATCHES.md").mkdir()
    before = sorted(p.relative_to(down) for p in down.rglob("*"))
    for args in (("ledger", "--check"), ("ledger",)):
        run = cli(*args, cwd=down)
        assert (run.code, run.out, run.err.splitlines()) == (
            2,
            "",
            [
                f"patchkeeper: error: {down}/PATCHES.md: cannot read the ledger file: Is a "
                "directory",
                "  hint: make it a readable Markdown file with the lines <!-- table:begin --> "
                "and <!-- table:end --> ('patchkeeper ledger' writes the table between them, "
                "never the file), or set file in [ledger] to another path",
            ],
        ), args
    assert sorted(p.relative_to(down) for p in down.rglob("*")) == before


def test_the_ledger_hint_is_what_ledger_then_does(tmp_path: Path, cli) -> None:
    """Following the hint for a ledger path taken by a directory works: a file with the two
    markers is what ``ledger`` fills; a path with nothing there is an error naming the
    markers, not a file ``ledger`` makes."""
    down = _downstream(tmp_path)
    run = cli("ledger", cwd=down)
    assert (run.code, run.out, run.err.splitlines()) == (
        2,
        "",
        [
            f"patchkeeper: error: {down}/PATCHES.md: the ledger file does not exist",
            "  hint: create it with the lines <!-- table:begin --> and <!-- table:end -->, or "
            "set [ledger] file",
        ],
    )
    assert not (down / "PATCHES.md").exists()
    (down / "PATCHES.md").write_text("# Patches\n\n<!-- table:begin -->\n<!-- table:end -->\n")
    run = cli("ledger", cwd=down)
    assert (run.code, run.out, run.err) == (0, "PATCHES.md: wrote the ledger (1 row)\n", "")
    assert cli("ledger", "--check", cwd=down).code == 0
