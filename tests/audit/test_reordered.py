"""Class 1 with the pin: a fix that only moves lines the old pin has (no line of it is new, so
none can be found upstream as new) is judged by upstream's tests for it: every test hunk
there and every new test line upstream: *upstreamed*; most of them there (three lines at
least) while hunks fail: *partially upstreamed*, to look at; the tests missing: a conflict."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

OLD = """def save(session, response):
    if not session:
        return
    if session.accessed:
        response.vary.add("Cookie")
    response.set_cookie(session.name)
"""

FIX = """--- a/pkg/sessions.py
+++ b/pkg/sessions.py
@@ -1,6 +1,6 @@
 def save(session, response):
+    if session.accessed:
+        response.vary.add("Cookie")
     if not session:
         return
-    if session.accessed:
-        response.vary.add("Cookie")
     response.set_cookie(session.name)
--- a/tests/test_sessions.py
+++ b/tests/test_sessions.py
@@ -1,2 +1,7 @@
 def test_save():
     assert save
+
+
+def test_vary_on_empty_session():
+    response = save_empty_session()
+    assert response.vary == {"Cookie"}
"""

# upstream wrote the move its own way (a helper), with the patch's test
NEW = """def save(session, response):
    _add_vary(session, response)
    if not session:
        return
    response.set_cookie(session.name)
"""

TESTS_OLD = "def test_save():\n    assert save\n"
TESTS_NEW = TESTS_OLD + (
    "\n\ndef test_vary_on_empty_session():\n    response = save_empty_session()\n"
    '    assert response.vary == {"Cookie"}\n'
)


def test_a_reordering_fix_is_judged_by_upstreams_tests(tmp_path: Path) -> None:
    old = {"pkg/sessions.py": OLD, "tests/test_sessions.py": TESTS_OLD}
    new = {"pkg/sessions.py": NEW, "tests/test_sessions.py": TESTS_NEW}
    [verdict] = judge(tmp_path, new, [("vary.patch", FIX)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.rule == "tests-upstream"
    assert verdict.summary.startswith(
        "its code only moves lines the old pin has and upstream has its tests: every test hunk "
        "is there (tests/test_sessions.py #1), 3 of 3 new test lines; "
    )
    # without upstream's test the moved lines prove nothing
    new["tests/test_sessions.py"] = TESTS_OLD + "\n\ndef test_other():\n    assert True\n"
    [verdict] = judge(tmp_path / "b", new, [("vary.patch", FIX)], old)
    assert verdict.verdict == "conflict"


LONGER_FIX = (
    FIX + "+    response = save_accessed_session()\n+    assert response.cookies == {}\n"
).replace("@@ -1,2 +1,7 @@", "@@ -1,2 +1,9 @@")

# upstream's version of the test, written a little differently, beside a test they changed
TESTS_REWRITTEN = (
    "def test_save():\n    assert save is not None\n"
    "\n\ndef test_vary_on_empty_session():\n    response = save_empty_session()\n"
    '    assert response.vary == {"Cookie"}\n    response = save_accessed_session()\n'
    "    assert not response.cookies\n"
)


def test_a_reordering_fix_with_most_of_its_tests_upstream_is_to_look_at(
    tmp_path: Path,
) -> None:
    # most new test lines are upstream, one is not and the test hunk fails: part of the fix
    # is upstream, a person decides what is left
    old = {"pkg/sessions.py": OLD, "tests/test_sessions.py": TESTS_OLD}
    new = {"pkg/sessions.py": NEW, "tests/test_sessions.py": TESTS_REWRITTEN}
    [verdict] = judge(tmp_path, new, [("vary.patch", LONGER_FIX)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == (
        "partially upstreamed",
        "look",
        "tests-mostly-upstream",
    )
    assert verdict.summary == (
        "its code only moves lines the old pin has and upstream has most of its tests: 4 of 5 "
        "new test lines (not found: `assert response.cookies == {}`); pkg/sessions.py #1, "
        "tests/test_sessions.py #1 fail at fuzz 0; to do: look (most of it is upstream, "
        "written differently; decide what is left)"
    )
    # fewer than three of them upstream prove nothing
    fewer = TESTS_REWRITTEN.replace("save_accessed_session", "save_new_session").replace(
        "save_empty_session", "save_none"
    )
    new["tests/test_sessions.py"] = fewer
    [verdict] = judge(tmp_path / "b", new, [("vary.patch", LONGER_FIX)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
