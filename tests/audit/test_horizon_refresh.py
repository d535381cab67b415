"""The upgrade horizon (``audit --to 'PROJECT>A'``) suggests the highest release no patch
keeps from being the next pin: a *conflict* that only needs a refresh (its hunks land with
their own lines unchanged, to do *carry*) does not keep it, as a patch that applies with an
offset does not; a conflict whose own lines upstream changed still does."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import SETTINGS_NEW, SETTINGS_OLD, WIDER_PATCH, write_files


def _downstream(root: Path) -> Path:
    """Releases 1.0 (the pin), 1.1 (a context line of the patch changed: a refresh carries
    it) and 1.2 (the line it changes changed too: a conflict), and a downstream on 1.0."""
    own_line_changed = SETTINGS_NEW.replace("    width = 80\n", "    width = 100\n")
    for version, settings in (
        ("1.0", SETTINGS_OLD),
        ("1.1", SETTINGS_NEW),
        ("1.2", own_line_changed),
    ):
        pkg_info = f"Metadata-Version: 2.1\nName: tinyset\nVersion: {version}\n"
        write_files(
            root / "rel" / f"tinyset-{version}",
            {"PKG-INFO": pkg_info, "pkg/settings.py": settings},
        )
    return write_files(
        root / "down",
        {
            "patchkeeper.toml": 'upstream = "tinyset"\npin = "1.0"\n'
            'series = "patches/series"\npristine = "../rel/tinyset-1.0"\n',
            "patches/series": "wider.patch\n",
            "patches/wider.patch": WIDER_PATCH,
        },
    )


def test_a_patch_that_only_needs_a_refresh_does_not_block_a_release(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    run = cli("audit", "--to", "tinyset>1.0", "--releases", "../rel", "--json", cwd=down)
    data = json.loads(run.out)
    rows = [
        (r["version"], [(v["verdict"], v["action"]) for v in r["verdicts"]])
        for r in data["releases"]
    ]
    assert (run.code, rows, data["next_pin"]) == (
        1,
        [("1.1", [("conflict", "carry")]), ("1.2", [("conflict", "port")])],
        "1.1",
    )
    run = cli("audit", "--to", "tinyset>1.0", "--releases", "../rel", cwd=down)
    assert run.out.splitlines()[-1] == (
        "next pin: 1.1 (highest release that needs no patch ported by hand)"
    )
