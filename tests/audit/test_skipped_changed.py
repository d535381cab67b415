"""A tests-only patch that skips tests upstream since rewrote: *look*, not *port*.

Whether the skip is still needed (the test may now pass) is for a person to find out. The
shapes of a logging library's flaky rotation test skipped by a marker, and of a C++ checker's
tests compiled out on 32-bit platforms."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

ROTATION_OLD = """\
import pytest



def test_rotation_at_midnight(tmpdir):
    assert tmpdir.join("test.log").read() == "Third\\n"


@pytest.mark.parametrize("delay", [False, True])
def test_rotation_reopening(tmpdir, delay):
    filepath = str(tmpdir / "test.log")
    assert filepath
"""

SKIP_FLAKY = """Subject: skip a flaky test
---
--- a/tests/test_rotation.py
+++ b/tests/test_rotation.py
@@ -6,6 +6,7 @@ def test_rotation_at_midnight(tmpdir):
     assert tmpdir.join("test.log").read() == "Third\\n"


+@pytest.mark.skip(reason="Test seems flaky, skip")
 @pytest.mark.parametrize("delay", [False, True])
 def test_rotation_reopening(tmpdir, delay):
     filepath = str(tmpdir / "test.log")
"""

# upstream rewrote the test the patch skips (another fixture, a directory of its own)
ROTATION_NEW = """\
import pytest



def test_rotation_at_midnight(tmp_path):
    assert (tmp_path / "test.log").read_text() == "Third\\n"


@pytest.mark.parametrize("delay", [True, False])
def test_rotation_reopening(tmp_path, delay):
    with tempfile.TemporaryDirectory(dir=str(tmp_path)) as test_dir:
        assert test_dir
"""

POINTERS_OLD = """\
    void functionpar() {
        check("int foo(int *p)\\n"
              "{\\n"
              "    int a = p;\\n"
              "}");
        ASSERT_EQUALS("[test.cpp:3]: (portability) Assigning a pointer.\\n", errout.str());

        check("int f(const char *p) {\\n"
              "    return 6 + p[2] * 256;\\n"
              "}");
    }
"""

ONLY_64BIT = """Subject: disable tests not working on 32bit platforms
---
--- a/test/test64bit.cpp
+++ b/test/test64bit.cpp
@@ -1,10 +1,12 @@
     void functionpar() {
+#if __SIZEOF_POINTER__ >= 8
         check("int foo(int *p)\\n"
               "{\\n"
               "    int a = p;\\n"
               "}");
         ASSERT_EQUALS("[test.cpp:3]: (portability) Assigning a pointer.\\n", errout.str());
+#endif

         check("int f(const char *p) {\\n"
               "    return 6 + p[2] * 256;\\n"
               "}");
"""

# upstream checks the output its own way now, and on a platform the settings name
POINTERS_NEW = POINTERS_OLD.replace("errout.str()", "errout_str()").replace(
    "    void functionpar() {\n", "    void functionpar() {\n        platform(Platform::Unix64);\n"
)


def test_a_skip_of_a_test_upstream_rewrote_is_a_look(tmp_path: Path) -> None:
    new = {"tests/test_rotation.py": ROTATION_NEW}
    old = {"tests/test_rotation.py": ROTATION_OLD}
    [verdict] = judge(tmp_path, new, [("skip.patch", SKIP_FLAKY)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "look")
    assert verdict.rule == "tests-changed"
    assert verdict.rewritten == (
        "upstream changed the tests that tests/test_rotation.py #1 skips: "
        '`@pytest.mark.parametrize("delay", [False, True])` is no longer in '
        "tests/test_rotation.py"
    )
    assert verdict.summary.endswith(
        f"; {verdict.rewritten}; to do: look (upstream changed the tests it skips; decide "
        "whether they still fail)"
    )


def test_tests_compiled_out_that_upstream_rewrote_are_a_look(tmp_path: Path) -> None:
    new = {"test/test64bit.cpp": POINTERS_NEW}
    old = {"test/test64bit.cpp": POINTERS_OLD}
    [verdict] = judge(tmp_path, new, [("only-64bit.patch", ONLY_64BIT)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "look")
    assert verdict.rewritten.startswith(
        "upstream changed the tests that test/test64bit.cpp #1 skips: "
    )


def test_a_skip_that_also_changes_the_test_is_a_port(tmp_path: Path) -> None:
    # the patch does more than skip: it rewrites the test's body, which is to port
    patch = SKIP_FLAKY.replace(
        '     filepath = str(tmpdir / "test.log")\n',
        '-    filepath = str(tmpdir / "test.log")\n+    filepath = str(tmpdir / "other.log")\n',
    )
    new = {"tests/test_rotation.py": ROTATION_NEW}
    old = {"tests/test_rotation.py": ROTATION_OLD}
    [verdict] = judge(tmp_path, new, [("skip.patch", patch)], old)
    assert (verdict.verdict, verdict.action, verdict.rewritten) == ("conflict", "port", "")


def test_a_skip_in_a_code_patch_is_a_port(tmp_path: Path) -> None:
    # the skip comes with a change to the code: the patch is judged on its code
    code_old = "def rotate(path):\n    return path\n\n\ndef keep(path):\n    return path\n"
    code_new = code_old.replace(
        "    return path\n\n\ndef keep", "    return str(path)\n\n\ndef keep"
    )
    fix = (
        "Subject: rotate by name\n---\n--- a/pkg/rotate.py\n+++ b/pkg/rotate.py\n"
        "@@ -1,3 +1,3 @@\n def rotate(path):\n-    return path\n+    return path.name\n \n"
    )
    both = fix + SKIP_FLAKY.split("---\n", 1)[1]
    new = {"tests/test_rotation.py": ROTATION_NEW, "pkg/rotate.py": code_new}
    old = {"tests/test_rotation.py": ROTATION_OLD, "pkg/rotate.py": code_old}
    [verdict] = judge(tmp_path, new, [("both.patch", both)], old)
    assert verdict.action == "port"
    assert not verdict.rewritten.startswith("upstream changed the tests")


def test_a_skip_of_which_another_still_lands_is_a_port(tmp_path: Path) -> None:
    # the other test it skips is as it was: the patch is still needed, ported with it
    other = "import pytest\n\n\ndef test_network():\n    assert connect()\n"
    skip_other = (
        "--- a/tests/test_other.py\n+++ b/tests/test_other.py\n@@ -2,4 +2,5 @@\n \n \n"
        '+@pytest.mark.skip(reason="no network")\n def test_network():\n     assert connect()\n'
    )
    new = {"tests/test_rotation.py": ROTATION_NEW, "tests/test_other.py": other}
    old = {"tests/test_rotation.py": ROTATION_OLD, "tests/test_other.py": other}
    [verdict] = judge(tmp_path, new, [("skip.patch", SKIP_FLAKY + skip_other)], old)
    assert (verdict.verdict, verdict.action, verdict.rewritten) == ("conflict", "port", "")


RETURNS_OLD = """\
    void returnIssues() {
        check("void* foo(int i) {\\n"
              "    return i;\\n"
              "}");
        check("void* foo(int* i) {\\n"
              "    return i;\\n"
              "}");
        check("void* foo(long i) {\\n"
              "    return i;\\n"
              "}");
        ASSERT_EQUALS("[test.cpp:2]: (portability) Returning an integer.\\n", errout.str());

        check("int foo(char* c) {\\n"
              "    return c;\\n"
              "}");
    }
"""

# the #if before the test and its #endif after it, in two hunks
RETURNS_64BIT = """Subject: disable tests not working on 32bit platforms
---
--- a/test/test64bit.cpp
+++ b/test/test64bit.cpp
@@ -1,4 +1,5 @@
     void returnIssues() {
+#if __SIZEOF_POINTER__ >= 8
         check("void* foo(int i) {\\n"
               "    return i;\\n"
               "}");
@@ -9,6 +10,7 @@
               "    return i;\\n"
               "}");
         ASSERT_EQUALS("[test.cpp:2]: (portability) Returning an integer.\\n", errout.str());
+#endif
 
         check("int foo(char* c) {\\n"
               "    return c;\\n"
"""


def test_half_a_skip_that_lands_without_its_end_is_no_skip_that_lands(tmp_path: Path) -> None:
    # upstream rewrote how the test checks its output: the #endif's hunk fails, the #if's
    # still applies, but alone it compiles nothing out
    new = {"test/test64bit.cpp": RETURNS_OLD.replace("errout.str()", "errout_str()")}
    old = {"test/test64bit.cpp": RETURNS_OLD}
    [verdict] = judge(tmp_path, new, [("only-64bit.patch", RETURNS_64BIT)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == ("conflict", "look", "tests-changed")
    assert verdict.rewritten == (
        "upstream changed the tests that test/test64bit.cpp #2 skips: `ASSERT_EQUALS("
        '"[test.cpp:2]: (portability) Returning an integer.\\n", errout.str());` is no longer '
        "in test/test64bit.cpp"
    )


def test_a_whole_skip_that_still_lands_keeps_it_a_port(tmp_path: Path) -> None:
    # a second skip, #if and #endif in one hunk, lands on a test upstream left alone: the
    # patch is still needed there
    other = '    void other() {\n        check("x");\n        check("y");\n    }\n'
    skip_other = (
        "--- a/test/testother.cpp\n+++ b/test/testother.cpp\n@@ -1,4 +1,6 @@\n"
        '     void other() {\n+#if __SIZEOF_POINTER__ >= 8\n         check("x");\n'
        '+#endif\n         check("y");\n     }\n'
    )
    new = {
        "test/test64bit.cpp": RETURNS_OLD.replace("errout.str()", "errout_str()"),
        "test/testother.cpp": other,
    }
    old = {"test/test64bit.cpp": RETURNS_OLD, "test/testother.cpp": other}
    [verdict] = judge(tmp_path, new, [("only-64bit.patch", RETURNS_64BIT + skip_other)], old)
    assert (verdict.verdict, verdict.action, verdict.rewritten) == ("conflict", "port", "")
