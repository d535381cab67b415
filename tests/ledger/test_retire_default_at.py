"""``retire`` without ``--at``: the configured pin, else the installed upstream's version, said
in the output; with neither, the error names the configuration and says to pass ``--at``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def _without_pin(downstream: Path, upstream: str = "pkg") -> None:
    config = downstream / "patchkeeper.toml"
    text = config.read_text().replace('pin = "1.0"\n', "")
    config.write_text(text.replace('upstream = "pkg"', f'upstream = "{upstream}"'))


def test_retire_defaults_at_to_the_pin(cli, downstream: Path) -> None:
    run = cli("-C", str(downstream), "retire", "extra-module.patch", "--why", "in 1.0")
    assert (run.code, run.err) == (0, "")
    assert run.out == (
        "retired extra-module at 1.0 (the configured pin; --at names another): removed "
        "patches/extra-module.patch; took it out of patches/series; recorded in PATCHES.md\n"
    )
    assert (
        (downstream / "PATCHES.md")
        .read_text()
        .endswith(
            "| extra-module | feature | adds pkg.extra | 1.0 | in 1.0 |\n<!-- retired:end -->\n"
        )
    )


def test_retire_given_at_says_nothing_more(cli, downstream: Path) -> None:
    run = cli("-C", str(downstream), "retire", "extra-module.patch", "--at", "1.1", "--why", "x")
    assert (run.code, run.err) == (0, "")
    assert run.out == (
        "retired extra-module at 1.1: removed patches/extra-module.patch; took it out of "
        "patches/series; recorded in PATCHES.md\n"
    )


def test_retire_without_pin_takes_the_installed_version(
    cli, downstream: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    info = site / "pkgup-3.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pkgup\nVersion: 3.1\n")
    monkeypatch.syspath_prepend(str(site))
    _without_pin(downstream, "pkgup")
    run = cli("-C", str(downstream), "retire", "extra-module.patch", "--why", "x", "--json")
    assert (run.code, run.err) == (0, "")
    data = json.loads(run.out)
    assert (data["at"], data["at_from"]) == ("3.1", "the installed pkgup")


def test_retire_without_pin_or_installed_upstream_says_to_pass_at(cli, downstream: Path) -> None:
    _without_pin(downstream, "pkg-nowhere-installed")
    series = (downstream / "patches" / "series").read_bytes()
    run = cli("-C", str(downstream), "retire", "extra-module.patch", "--why", "x")
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {downstream / 'patchkeeper.toml'}: retire needs the upstream "
        "version the patch retired at: --at is not given, and the configuration names no pin, "
        "and pkg-nowhere-installed is not installed here\n"
        "  hint: pass --at VERSION, the upstream release that carries the patch (e.g. --at "
        '1.1), or set pin = "VERSION" at the top of patchkeeper.toml (before any [table])\n'
    )
    assert (downstream / "patches" / "series").read_bytes() == series
