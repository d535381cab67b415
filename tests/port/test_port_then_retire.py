"""The to-do of an in-place port says to retire each upstreamed patch with ``patchkeeper
retire``; the port has commented the patch's series line out by then, and ``retire`` takes
that line as the patch's: it removes the line and the file and records the Retired row."""

from __future__ import annotations

from typing import Any

from port_support import port_to_the_end

from helpers import Example


def test_retire_as_the_in_place_port_says(cli: Any, example: Example) -> None:
    down = example.downstream
    data = port_to_the_end(cli, example, "--in-place")
    advice = (
        "retire retry-backoff-cap.patch (upstreamed in 1.1: proposed for retirement): "
        "'patchkeeper retire NAME --at 1.1 --why TEXT'"
    )  # the port moved the pin: no second port retires it, and none is advised
    assert advice in data["todo"]
    series = down / "patches" / "series"
    assert series.read_text().splitlines()[1] == (
        "# retry-backoff-cap.patch  # upstreamed in 1.1: proposed for retirement by "
        "'patchkeeper port'"
    )
    run = cli("retire", "retry-backoff-cap.patch", "--at", "1.1", "--why", "in 1.1", cwd=down)
    assert (run.code, run.err) == (0, "")
    assert run.out == (
        "retired retry-backoff-cap at 1.1: removed patches/retry-backoff-cap.patch; took it "
        "out of patches/series; recorded in PATCHES.md\n"
    )
    assert "retry-backoff-cap" not in series.read_text()
    assert not (down / "patches" / "retry-backoff-cap.patch").exists()
    ledger = (down / "PATCHES.md").read_text()
    assert "| retry-backoff-cap | backport |" in ledger
    assert cli("ledger", "--check", cwd=down).code == 0
    assert cli("lint", cwd=down).code == 0
    # a comment that is no port's proposal is not a patch to retire
    run = cli("retire", "nothing-here", "--at", "1.1", "--why", "x", cwd=down)
    assert (run.code, run.out) == (2, "")
    assert run.err.startswith(f"patchkeeper: error: {series}: nothing-here is not in the series\n")
