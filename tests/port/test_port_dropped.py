"""A patch whose conflict is resolved by hand to no change is *dropped*: nothing is left to
carry, which says nothing about upstream having it. The port proposes it for retirement as
that, never as "upstreamed in X": the series comment, the to-do and the Retired row say
*dropped* (as a Debian maintainer drops a test-skipping patch whose tests upstream rewrote),
and ``retire`` still finds the commented-out line."""

from __future__ import annotations

import json
import shutil
from typing import Any

from helpers import Example

PROPOSED = "proposed for retirement by 'patchkeeper port'"


def _port_dropping_both_conflicts(cli: Any, example: Example, *extra: str) -> dict[str, Any]:
    """Port in place to 1.1; resolve each conflict to the new pin's file as it is."""
    down = example.downstream
    work = down / ".patchkeeper-port" / "conflict"
    assert cli("port", "--to", str(example.new), "--in-place", *extra, cwd=down).code == 1
    for _ in range(2):
        shutil.copytree(work / "reference" / "new", work / "files", dirs_exist_ok=True)
        run = cli("port", "--continue", "--json", cwd=down)
    assert run.code == 0, run.out + run.err
    data: dict[str, Any] = json.loads(run.out)
    return data


def test_a_patch_resolved_to_no_change_is_proposed_as_dropped(cli: Any, example: Example) -> None:
    down = example.downstream
    data = _port_dropping_both_conflicts(cli, example)
    assert [(p["name"], p["verdict"]) for p in data["patches"]] == [
        ("retry-backoff-cap.patch", "upstreamed"),
        ("redirect-strip-proxy-auth.patch", "dropped"),
        ("headers-merge-order.patch", "merged"),
        ("client-describe-version.patch", "offset"),
        ("metrics-redirects.patch", "offset"),
        ("metrics-same-host.patch", "clean"),
        ("redirect-strip-api-key.patch", "dropped"),
    ]
    assert data["todo"][:2] == [
        "retire retry-backoff-cap.patch (upstreamed in 1.1: proposed for retirement): "
        "'patchkeeper retire NAME --at 1.1 --why TEXT'",
        "retire redirect-strip-proxy-auth.patch, redirect-strip-api-key.patch (dropped in 1.1: "
        "proposed for retirement): 'patchkeeper retire NAME --at 1.1 --why TEXT'",
    ]
    series = down / "patches" / "series"
    assert series.read_text().splitlines() == [
        "# applied in this order onto minihttp (paths relative to minihttp/)",
        f"# retry-backoff-cap.patch  # upstreamed in 1.1: {PROPOSED}",
        f"# redirect-strip-proxy-auth.patch  # dropped in 1.1: {PROPOSED}",
        "headers-merge-order.patch",
        "client-describe-version.patch",
        "metrics-redirects.patch",
        "metrics-same-host.patch",
        f"# redirect-strip-api-key.patch  # dropped in 1.1: {PROPOSED}",
    ]
    run = cli("retire", "redirect-strip-api-key", "--at", "1.1", "--why", "no change", cwd=down)
    assert (run.code, run.err) == (0, "")
    assert "redirect-strip-api-key" not in series.read_text()
    assert not (down / "patches" / "redirect-strip-api-key.patch").exists()


def test_port_retire_records_a_dropped_patch_as_dropped(cli: Any, example: Example) -> None:
    _port_dropping_both_conflicts(cli, example, "--retire")
    retired = (example.downstream / "PATCHES.md").read_text().split("<!-- retired:begin -->")[1]
    rows = [line for line in retired.splitlines() if line.startswith("| redirect-strip-")]
    assert [row.rsplit(" | ", 2)[1:] for row in rows] == [
        ["1.1", "dropped in 1.1: resolved by hand to no change: nothing left to carry |"],
        ["1.1", "dropped in 1.1: resolved by hand to no change: nothing left to carry |"],
    ]
