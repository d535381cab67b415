"""A patch on a file only an earlier patch of the series creates, when that earlier patch is
upstream without the file: the port names the earlier patch, not "in neither tree" (the
series applies at its pin, or the port could not have started)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import ON_DATA, WITH_DATA, write_files
from helpers import REDIRECT_CODE as CODE
from helpers import REDIRECT_FIXED as FIXED


def test_the_port_names_the_earlier_patch_that_creates_the_file(cli: Any, tmp_path: Path) -> None:
    for folder, code, version in (("old", CODE, "1.0"), ("new", FIXED, "2.0")):
        info = f"Metadata-Version: 2.1\nName: minihttp\nVersion: {version}\n"
        write_files(tmp_path / folder, {"pkg/redirect.py": code, "PKG-INFO": info})
    down = write_files(
        tmp_path / "down",
        {
            "patchkeeper.toml": 'upstream = "minihttp"\npin = "1.0"\npristine = "../old"\n',
            "patches/series": "fix.patch\nmore.patch\n",
            "patches/fix.patch": WITH_DATA,
            "patches/more.patch": ON_DATA,
        },
    )
    run = cli("port", "--to", "../new", "--json", cwd=down)
    assert run.code == 1
    patches = json.loads(run.out)["patches"]
    assert [(p["name"], p["verdict"]) for p in patches] == [
        ("fix.patch", "upstreamed"),
        ("more.patch", "target gone"),
    ]
    assert patches[1]["summary"] == (
        "git's three-way merge stopped at tests/data/redirect.txt (gone); fuzz 0: "
        "tests/data/redirect.txt is created only by the earlier patch fix.patch, taken as "
        "upstream without that file; to do: look (upstream took the earlier patch without the "
        "file this one changes: decide whether this one is still needed)"
    )
