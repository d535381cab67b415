"""The record of a one-patch series (a Debian package carrying one patch) counts in the
singular: "1 series patch", "1 patch against ...", never "1 series patches"."""

from __future__ import annotations

from pathlib import Path

from recordhelpers import enable_evidence, write_decisions

from helpers import Example
from patchkeeper.render.terminal import plural


def test_plural_takes_the_ending_english_gives_the_last_word() -> None:
    assert [
        plural(1, "series patch"),
        plural(2, "series patch"),
        plural(0, "runtime entry"),
        plural(1, "runtime entry"),
        plural(3, "key"),
        plural(2, "box"),
        plural(2, "file"),
    ] == [
        "1 series patch",
        "2 series patches",
        "0 runtime entries",
        "1 runtime entry",
        "3 keys",
        "2 boxes",
        "2 files",
    ]


def test_the_record_of_one_patch_says_1_patch(cli, example: Example, private_cache: Path) -> None:
    root = example.downstream
    (root / "patches" / "series").write_text("client-describe-version.patch\n")
    enable_evidence(root / "patchkeeper.toml")
    assert cli("audit", "--to", "../upstream/minihttp-1.1", cwd=root).code == 0
    write_decisions(root, {"client-describe-version.patch": ("carry", "stays")})
    run = cli("report", cwd=root)
    assert (run.code, run.out) == (
        0,
        f"wrote {root}/AUDIT.md (1 series patch, 0 runtime entries, 1 decided)\n",
    )
    rows = [
        line
        for line in (root / "AUDIT.md").read_text().splitlines()
        if line.startswith("| `patchkeeper audit")
    ]
    assert rows == [
        "| `patchkeeper audit --to ../upstream/minihttp-1.1` | patchkeeper | 0 | 1 patch "
        f"against `directory {example.new}`: 1 offset | - |"
    ]
    for patch in (root / "patches").glob("*.patch"):
        if patch.name != "client-describe-version.patch":
            patch.unlink()
    run = cli("lint", "--markdown", "../lint.md", cwd=root)
    assert run.code == 0
    assert (example.root / "lint.md").read_text() == "lint: no problems in 1 patch.\n"
