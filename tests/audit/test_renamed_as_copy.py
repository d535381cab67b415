"""A rename written as a deletion and a creation (``diff`` without rename detection, as
Debian's ``Test: Ignore test_failure.py file`` patch of twisted renames a test module so
that it is not collected): the created file's lines are the deleted file's, and upstream
keeping that file is no evidence that it took the patch.

Before: *upstreamed* ("every tests file has at least 75% of its substantive added lines
there ... (in pkg/test_failure.py)"), a carried patch proposed for retirement."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

TESTS = "".join(
    f"def test_case_{n}(self):\n    self.assertEqual(frame_{n}(), {n} * EXPECTED_{n})\n\n"
    for n in range(8)
)
PIN = {"pkg/test_failure.py": '"""Tests of pkg.failure."""\n\n' + TESTS}
# upstream changed the module's first line: the deletion hunk fails at fuzz 0
NEW = {"pkg/test_failure.py": '"""Tests of pkg.failure, with frames."""\n\n' + TESTS}


def _rename_patch() -> str:
    old_lines = PIN["pkg/test_failure.py"].splitlines()
    added = "".join(f"+{line}\n" for line in old_lines)
    removed = "".join(f"-{line}\n" for line in old_lines)
    count = len(old_lines)
    return (
        "Subject: Test: ignore test_failure.py\n---\n"
        "--- /dev/null\n+++ b/pkg/ignore_test_failure.py\n"
        f"@@ -0,0 +1,{count} @@\n{added}"
        "--- a/pkg/test_failure.py\n+++ /dev/null\n"
        f"@@ -1,{count} +0,0 @@\n{removed}"
    )


def test_a_rename_as_deletion_and_creation_is_not_upstreamed(tmp_path: Path) -> None:
    [verdict] = judge(tmp_path, NEW, [("ignore-test.patch", _rename_patch())], old=PIN)
    assert verdict.verdict == "conflict"
    assert verdict.action == "port"
    assert verdict.summary == (
        "pkg/test_failure.py #1 fails at fuzz 0 (closest: pkg/test_failure.py line 1, 25 of 26 "
        "lines match); 16 of 16 substantive added lines already upstream (strongest: "
        "pkg/ignore_test_failure.py 16/16, found in pkg/test_failure.py); "
        "to do: port (rework the failing hunks)"
    )
