"""Class 1 shown by tests: a security fix whose code upstream rewrote (the lines the patch
changes are gone from the file, most of the code around them too) while upstream has the
regression test the patch adds: *upstreamed*. Without that test in the new release, or with a
code hunk that still applies, the tests prove nothing."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

OLD_CODE = r"""import re

METHOD = re.compile(r"[A-Z]+")
VERSION = re.compile(r"HTTP/(\d).(\d)")
HEADER = re.compile(rb"[\x00-\x1F()<>@,;:]")


class Line:
    pass


class Parser:
    def parse_line(self, line):
        if not line:
            raise ValueError("empty")
        method, path, version = line.split(maxsplit=2)
        return method, path, version
"""

OLD_TESTS = """import pytest

from pkg.parser import Parser


def test_parse_line():
    assert Parser().parse_line("GET / HTTP/1.1") == ("GET", "/", "HTTP/1.1")


def test_empty_line():
    with pytest.raises(ValueError):
        Parser().parse_line("")
"""

FIX = r"""Subject: reject header bytes above 0x7F and a request line split on other white space
---
--- a/pkg/parser.py
+++ b/pkg/parser.py
@@ -2,7 +2,9 @@
 
 METHOD = re.compile(r"[A-Z]+")
 VERSION = re.compile(r"HTTP/(\d).(\d)")
-HEADER = re.compile(rb"[\x00-\x1F()<>@,;:]")
+HEADER = re.compile(
+    rb"[\x00-\x1F\x7F-\xFF()<>@,;:]"
+)
 
 
 class Line:
@@ -13,5 +15,5 @@
     def parse_line(self, line):
         if not line:
             raise ValueError("empty")
-        method, path, version = line.split(maxsplit=2)
+        method, path, version = line.split(" ", maxsplit=2)
         return method, path, version
--- a/tests/test_parser.py
+++ b/tests/test_parser.py
@@ -10,3 +10,9 @@
 def test_empty_line():
     with pytest.raises(ValueError):
         Parser().parse_line("")
+
+
+def test_bad_status_line_whitespace():
+    text = "GET\n/path\fHTTP/1.1"
+    with pytest.raises(ValueError):
+        Parser().parse_line(text)
"""

# upstream replaced the regular expressions by a token rule (the header check is gone) and
# split the request line on spaces only
NEW_CODE = r"""import re

TOKEN = re.compile(r"[0-9A-Za-z!#$%&'*+.^_`|~-]+")
VERSION = re.compile(r"HTTP/(\d)\.(\d)", re.ASCII)


class Line:
    pass


class Parser:
    def parse_line(self, line):
        if not line:
            raise ValueError("empty")
        method, path, version = line.split(" ", maxsplit=2)
        if not TOKEN.fullmatch(method):
            raise ValueError(method)
        return method, path, version
"""

NEW_TESTS = (
    OLD_TESTS
    + """

def test_bad_method():
    with pytest.raises(ValueError):
        Parser().parse_line("G(T / HTTP/1.1")


def test_bad_status_line_whitespace():
    text = "GET\\n/path\\fHTTP/1.1"
    with pytest.raises(ValueError):
        Parser().parse_line(text)
"""
)

OLD = {"pkg/parser.py": OLD_CODE, "tests/test_parser.py": OLD_TESTS}


def test_a_rewritten_fix_whose_tests_upstream_has_is_upstreamed(tmp_path: Path) -> None:
    new = {"pkg/parser.py": NEW_CODE, "tests/test_parser.py": NEW_TESTS}
    [verdict] = judge(tmp_path, new, [("CVE-fix.patch", FIX)], OLD)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.rule == "tests-upstream"
    assert verdict.summary == (
        "upstream has its tests (3 of 3 new test lines) and rewrote the code it changes: what "
        "pkg/parser.py #1 changes is gone from the new release; pkg/parser.py #2 there; 5 of 7 "
        "substantive added lines already upstream (strongest: tests/test_parser.py 4/4); "
        "to do: retire (upstream has it)"
    )


def test_without_its_tests_upstream_the_rewrite_proves_nothing(tmp_path: Path) -> None:
    # not retired; upstream has its hunk #2 by code the pin lacked and rewrote what hunk #1
    # changes, so a person decides (some-hunks-there)
    new = {"pkg/parser.py": NEW_CODE, "tests/test_parser.py": OLD_TESTS}
    [verdict] = judge(tmp_path, new, [("CVE-fix.patch", FIX)], OLD)
    assert (verdict.verdict, verdict.action, verdict.rule) == (
        "conflict",
        "look",
        "some-hunks-there",
    )


def test_a_code_hunk_whose_code_is_still_there_is_not_rewritten(tmp_path: Path) -> None:
    # upstream has the tests and the split, but the header expression the patch widens is
    # still the old one (a line was added above it: the hunk fails, its code is not gone)
    code = NEW_CODE.replace(
        'VERSION = re.compile(r"HTTP/(\\d)\\.(\\d)", re.ASCII)\n',
        'METHOD = re.compile(r"[A-Z]+")\nVERSION = re.compile(r"HTTP/(\\d).(\\d)")\n'
        'HEADER = re.compile(rb"[\\x00-\\x1F()<>@,;:]")\n',
    )
    assert 'HEADER = re.compile(rb"[\\x00-\\x1F()<>@,;:]")' in code
    new = {"pkg/parser.py": code, "tests/test_parser.py": NEW_TESTS}
    [verdict] = judge(tmp_path, new, [("CVE-fix.patch", FIX)], OLD)
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
