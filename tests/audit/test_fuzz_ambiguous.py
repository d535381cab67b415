"""A hunk placed with context left out (fuzz) is refreshed only where that shorter context
fits at one place: where it fits at several, fuzz would pick the one nearest the old line
number, which may be another test with the same decorator, and the refreshed patch would
change code its author never meant to."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

PIN = """import pytest


@pytest.mark.network
def test_a():
    fetch("a")


@pytest.mark.network
def test_b():
    fetch("b")
"""

# upstream wrote a test of its own with the same decorator where test_b was, and test_b
# now takes a fixture: with two context lines left out at each end only the decorator is
# left of the hunk's context, and the place nearest the old line is test_c's
NEW = """import pytest


@pytest.mark.network
def test_a():
    fetch("a")


@pytest.mark.network
def test_c():
    fetch("c")


@pytest.mark.network
def test_b(resolver):
    fetch("b", resolver)
"""

RERUN = """Subject: rerun test_b, its resolver times out
---
--- a/tests/test_fetch.py
+++ b/tests/test_fetch.py
@@ -7,5 +7,6 @@
 
 
+@pytest.mark.flaky(reruns=2)
 @pytest.mark.network
 def test_b():
     fetch("b")
"""


def test_fuzz_that_fits_several_places_is_no_refresh(tmp_path: Path) -> None:
    (rerun,) = judge(tmp_path, {"tests/test_fetch.py": NEW}, [("rerun.patch", RERUN)])
    assert (rerun.verdict, rerun.action, rerun.refresh) == ("conflict", "port", "")


def test_fuzz_that_fits_one_place_is_a_refresh(tmp_path: Path) -> None:
    new = NEW.replace("@pytest.mark.network\ndef test_c", "@pytest.mark.slow\ndef test_c")
    new = new.replace("@pytest.mark.network\ndef test_a", "@pytest.mark.slow\ndef test_a")
    (rerun,) = judge(tmp_path, {"tests/test_fetch.py": new}, [("rerun.patch", RERUN)])
    assert (rerun.verdict, rerun.action) == ("conflict", "carry")
    assert rerun.refresh == (
        "its 1 hunk (1 file) lands with its + and - lines unchanged (at fuzz 2)"
    )
