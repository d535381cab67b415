"""The fuzz test: mutated patches, series files and configuration
files through apply/status/verify/unapply/audit never give exit 3 or an exit outside 0/1/2,
never take over 10 s, and a failed command changes nothing (see ``fuzzing.py``; the long run
is ``benchmarks/fuzz_engine.py``)."""

from __future__ import annotations

import pytest
from engine_support import make_downstream
from fuzzing import Hang, fuzz, run_command


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_mutated_inputs_never_break_the_rules(tmp_path, seed) -> None:
    report = fuzz(tmp_path, 150, seed=seed)
    assert report.problems == []
    assert report.inputs == 150
    assert set(report.exits) <= {0, 1, 2}


def test_a_hunk_header_far_past_the_end_does_not_hang(tmp_path) -> None:
    """Found by the fuzzer: a hunk that applied at an offset of minus ~2**31 made the next
    hunk's search walk every offset in between."""
    lines = "".join(f"L{n}\n" for n in range(30))
    patch = (
        b"--- a/f\n+++ b/f\n"
        b"@@ -12147483648,4 +13,5 @@\n L12\n L13\n+new\n L14\n L15\n"
        b"@@ -23,3 +24,3 @@\n L22\n-L23\n+L23!\n L24\n"
    )
    ds = make_downstream(tmp_path, {"f": lines.encode()}, {"p.patch": patch})
    try:
        code, out = run_command(ds.down, "apply", ds.target)
    except Hang:
        pytest.fail("apply did not answer within 10 s")
    assert code == 0, out
    assert out.splitlines()[1:] == ["  offset: p.patch f hunk #1 at line 13 (-12147483635 lines)"]
    assert (ds.target / "f").read_text().splitlines()[12:17] == ["L12", "L13", "new", "L14", "L15"]
    assert (ds.target / "f").read_text().splitlines()[24] == "L23!"
