"""``patchkeeper init`` on series a user really has that are not quite right: an entry whose
file is missing. Every such error names the series file and the line, and writes nothing."""

from __future__ import annotations

import json

from test_init_forms import quilt_tree

from helpers import Example


def test_a_series_entry_without_its_file_is_named_by_its_line(cli, example: Example) -> None:
    tree = quilt_tree(example)
    series = tree / "patches" / "series"
    series.write_text(series.read_text() + "# carried since 1.0\ngone-fix.patch\n")
    run = cli("init", "--directory", "minihttp", cwd=tree)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {series}:10: gone-fix.patch is listed in the series but cannot "
        "be read: No such file or directory\n"
        "  hint: restore the patch file, or take its line out of the series\n"
    )
    run = cli("init", "--directory", "minihttp", "--json", cwd=tree)
    assert json.loads(run.out)["error"] == {
        "message": "gone-fix.patch is listed in the series but cannot be read: "
        "No such file or directory",
        "file": str(series),
        "line": 10,
        "hint": "restore the patch file, or take its line out of the series",
    }
    assert not (tree / "patchkeeper.toml").exists() and not (tree / "PATCHES.md").exists()
