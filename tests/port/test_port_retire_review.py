"""``port --in-place --retire`` acts only on plain *retire* verdicts: an upstreamed patch whose
audit says *look* (upstream has its line at one place, its context fits another) stays, its
series line commented out as proposed, and the to-do names it for review."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import API_NEW, API_OLD, SKIP_CODEC, git

PLAIN = (
    "Subject: capitalise b\n---\n--- a/pkg/x.py\n+++ b/pkg/x.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
)


def _release(root: Path, version: str, api: str, code: str) -> None:
    (root / "docs").mkdir(parents=True)
    (root / "pkg").mkdir()
    (root / "PKG-INFO").write_text(f"Metadata-Version: 2.1\nName: pkg\nVersion: {version}\n")
    (root / "docs" / "api.rst").write_text(api)
    (root / "pkg" / "x.py").write_text(code)


def test_port_retire_keeps_a_patch_to_look_at(cli: Any, tmp_path: Path) -> None:
    down = tmp_path / "down"
    patches = down / "patches"
    patches.mkdir(parents=True)
    (patches / "plain.patch").write_text(PLAIN)
    (patches / "skip.patch").write_text(SKIP_CODEC)
    (patches / "series").write_text("plain.patch\nskip.patch\n")
    (down / "patchkeeper.toml").write_text(
        'upstream = "pkg"\npin = "1.0"\nseries = "patches/series"\npristine = "up"\n'
        '[headers]\nschema = "dep3"\n'
    )
    (down / "PATCHES.md").write_text("# Patches\n\n<!-- table:begin -->\n<!-- table:end -->\n")
    _release(down / "up", "1.0", API_OLD, "a\nb\nc\n")
    _release(down / "up2", "2.0", API_NEW, "a\nB\nc\n")
    assert cli("ledger", cwd=down).code == 0
    git(down, "init", "-q")
    git(down, "add", "-A")
    git(down, "commit", "-qm", "series")

    run = cli("port", "--to", "up2", "--in-place", "--retire", "--json", cwd=down)
    assert (run.code, run.err) == (0, "")
    data = json.loads(run.out)
    assert [(p["name"], p["verdict"], p["audit"]["action"]) for p in data["patches"]] == [
        ("plain.patch", "upstreamed", "retire"),
        ("skip.patch", "upstreamed", "look"),
    ]
    assert data["retired"] == ["plain.patch"]
    assert data["todo"][0] == (
        "review skip.patch before retiring it: its audit says look (upstream has it at one "
        "place; decide whether the other needs it), and its series line is commented out; "
        "then 'patchkeeper retire skip.patch --at 2.0 --why TEXT', or put the line back"
    )
    assert (patches / "series").read_text() == (
        "# skip.patch  # upstreamed in 2.0: proposed for retirement by 'patchkeeper port'\n"
    )
    assert sorted(p.name for p in patches.iterdir()) == ["series", "skip.patch"]
    retired = (down / "PATCHES.md").read_text().split("<!-- retired:begin -->")[1]
    assert [line for line in retired.splitlines() if line.startswith("| ")][1:] == [
        "| plain | capitalise b |  |  |  |  | 2.0 | upstreamed in 2.0: the patch reverse-applies: "
        "the new upstream already has its post-image |"
    ]

    # once reviewed, the to-do's command retires it
    done = cli("retire", "skip.patch", "--at", "2.0", "--why", "reviewed", cwd=down)
    assert (done.code, done.err) == (0, "")
    assert sorted(p.name for p in patches.iterdir()) == ["series"]
