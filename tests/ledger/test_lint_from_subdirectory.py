"""``lint`` run from a directory below the downstream root names each file from there, as
``git`` and ``ruff`` do (a new user in ``patches/`` read ``patches/extra.patch: PK202``, a
path that does not exist from where they were); ``--json`` and GitHub annotations keep the
root-relative paths."""

from __future__ import annotations

import json

from helpers import Example


def test_text_paths_from_the_current_directory(cli, example: Example) -> None:
    down = example.downstream
    (down / "patches" / "extra.patch").write_text("--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n")
    finding = "patches/extra.patch: PK202 not listed in patches/series"
    assert finding in cli("lint", cwd=down).out.splitlines()
    assert (
        "extra.patch: PK202 not listed in series"
        in cli("lint", cwd=down / "patches").out.splitlines()
    )
    assert finding in cli("-C", str(down), "lint", cwd=example.root).out.splitlines()
    data = json.loads(cli("lint", "--json", cwd=down / "patches").out)
    assert {"code": "PK202", "path": "patches/extra.patch", "line": None,
            "message": "not listed in patches/series", "hint": ""} in data["findings"]  # fmt: skip
    assert "cwd" not in data


def test_pk202_names_the_series_file_from_the_current_directory(cli, example: Example) -> None:
    """PK202 names the series file in its message: from a subdirectory it is named from
    there, as the patch file is (it read ``extra.patch: PK202 not listed in
    patches/series``, the one name relative to the current directory, the other to the
    root); ``--json`` and GitHub annotations keep root-relative names in both."""
    down = example.downstream
    (down / "patches" / "extra.patch").write_text("--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n")
    (down / "patches" / "sub").mkdir()
    (down / "docs").mkdir()
    expected = {
        down: "patches/extra.patch: PK202 not listed in patches/series",
        down / "patches": "extra.patch: PK202 not listed in series",
        down / "patches" / "sub": "../extra.patch: PK202 not listed in ../series",
        down / "docs": "../patches/extra.patch: PK202 not listed in ../patches/series",
    }
    for cwd, line in expected.items():
        out = cli("lint", cwd=cwd).out.splitlines()
        assert [text for text in out if "PK202" in text] == [line]
    github = cli("lint", "--format", "github", cwd=down / "patches").out.splitlines()
    assert [text for text in github if "PK202" in text] == [
        "::error file=patches/extra.patch,title=PK202::not listed in patches/series"
    ]
