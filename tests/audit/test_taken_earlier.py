"""The upgrade horizon remembers a patch upstream took: a backport *upstreamed* at one
release whose lines a later release rewrote again is *upstreamed* there too, with both pieces
of evidence, never a conflict (the shape of vLLM 0.28.0's unconditional ``wait_stream`` in
``kv_offload/cpu/gpu_worker.py``, whose comment 0.29.0 rewrote; here the stream it waits
on is renamed too, so that the later release alone does not show the backport). A patch of
our own that conflicts stays a conflict, and a patch that applies again (upstream reverted)
carries."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge_horizon
from stream_worker import BACKPORT, MID, NEW, OLD, OWN

from patchkeeper.audit.horizon import ReleaseVerdicts


def horizon(tmp_path: Path, releases: list[tuple[str, str]]) -> list[ReleaseVerdicts]:
    """The series judged at each (version, text of pkg/worker.py), oldest first."""
    return judge_horizon(
        tmp_path,
        "pkg/worker.py",
        OLD,
        [("wait-stream.patch", BACKPORT), ("retries.patch", OWN)],
        releases,
    )


def test_backport_rewritten_after_upstream_took_it_stays_upstreamed(tmp_path: Path) -> None:
    mid, new = horizon(tmp_path, [("1.1", MID), ("1.2", NEW)])
    assert [(v.verdict, v.action) for v in mid.verdicts] == [
        ("upstreamed", "retire"),
        ("clean", "carry"),
    ]
    assert [(v.verdict, v.action) for v in new.verdicts] == [
        ("upstreamed", "retire"),
        ("conflict", "port"),
    ]
    assert [v.rule for v in new.verdicts] == ["taken-earlier", "hunks-fail"]
    assert new.verdicts[0].summary == (
        "upstream took it in 1.1 and has rewritten its lines since: pkg/worker.py #1 fails at "
        "fuzz 0 (closest: pkg/worker.py line 2, 6 of 9 lines match); 0 of 1 substantive added "
        "lines already upstream (strongest: pkg/worker.py 0/1); since the pin, 4 of the 10 "
        "lines of `transfer_async` (pkg/worker.py #1) changed, 5 of the hunk's 7 lines left "
        "there; to do: retire (after checking that upstream's changes since keep its fix)"
    )


def test_backport_upstream_reverted_carries_again(tmp_path: Path) -> None:
    mid, new, again = horizon(tmp_path, [("1.1", MID), ("1.2", OLD), ("1.3", NEW)])
    assert [v.verdict for v in mid.verdicts] == ["upstreamed", "clean"]
    # 1.2 reverted the fix: the backport applies again, and 1.3 rewrote lines it never took
    assert [v.verdict for v in new.verdicts] == ["clean", "clean"]
    assert [v.verdict for v in again.verdicts] == ["conflict", "conflict"]
