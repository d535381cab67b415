"""A file the commands must read but cannot: the error names it and says what to do.

In the shape of a downstream whose ledger path is taken by a directory (an editor's or a
tool's folder of the same name): ``ledger --check`` and ``ledger`` exit 2, naming the path,
why it cannot be read and what to do, and write nothing. The downstream is written by the
test."""

from __future__ import annotations

from pathlib import Path

from helpers import write_files

PATCH = """Description: keep the greeting short
Origin: vendor
Forwarded: not-needed
Last-Update: 2026-01-01
---
--- a/hello.py
+++ b/hello.py
@@ -1 +1 @@
-print("hello, world")
+print("hi")
"""


def test_a_ledger_path_that_is_a_directory_says_what_to_do(tmp_path: Path, cli) -> None:
    down = write_files(
        tmp_path / "down",
        {
            "patchkeeper.toml": (
                'upstream = "hello"\npin = "1.0"\nseries = "patches/series"\n\n'
                '[headers]\nschema = "dep3"\n\n[ledger]\nfile = "PATCHES.md"\n'
            ),
            "patches/series": "short-greeting.patch\n",
            "patches/short-greeting.patch": PATCH,
        },
    )
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
                "  hint: make it a readable Markdown file (or remove it: 'patchkeeper ledger' "
                "writes it), or set file in [ledger] to another path",
            ],
        ), args
    assert sorted(p.relative_to(down) for p in down.rglob("*")) == before
