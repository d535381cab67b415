"""Class 1 as a dropped dependency: a de-bundling patch swaps imports of a vendored module for
the system's; the new release no longer has the vendored module and its files no longer
name the module the patch imports instead: *upstreamed* (nothing is left to swap). A hunk
that only respells a line (Python 2's ``u`` prefix dropped) weighs nothing either way."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

from patchkeeper.audit.dropped_modules import Import, _statements, respelled_only
from patchkeeper.series.model import ADDED, REMOVED
from patchkeeper.series.parse import parse_patch

OLD_UTIL = """import socket

from .errors import ParseError
from .vendor import compat
from .vendor.compat import ensure_text


def host_of(url):
    if "/" not in url:
        raise ParseError(u"no host in %r" % url)
    return ensure_text(url).split("/")[2]
"""

DEBUNDLE = """Subject: Do not use the embedded copy of compat
Forwarded: not-needed
---
--- a/pkg/util.py
+++ b/pkg/util.py
@@ -2,5 +2,5 @@
 
 from .errors import ParseError
-from .vendor import compat
-from .vendor.compat import ensure_text
+import compat
+from compat import ensure_text
 
@@ -9,3 +9,3 @@ def host_of(url):
     if "/" not in url:
-        raise ParseError(u"no host in %r" % url)
+        raise ParseError("no host in %r" % url)
     return ensure_text(url).split("/")[2]
"""

# upstream dropped Python 2 and its vendored compat module
NEW_UTIL = """import logging
import socket

from .errors import ParseError


def host_of(url: str) -> str:
    if "/" not in url:
        raise ParseError(f"no host in {url!r}")
    return url.split("/")[2]
"""

COMMON = {"pkg/__init__.py": "", "pkg/errors.py": "class ParseError(ValueError):\n    pass\n"}
VENDOR = {
    "pkg/vendor/__init__.py": "",
    "pkg/vendor/compat.py": "def ensure_text(s):\n    return s\n",
}
OLD = {**COMMON, **VENDOR, "pkg/util.py": OLD_UTIL}


def test_imports_of_a_module_upstream_dropped_are_upstream(tmp_path: Path) -> None:
    new = {**COMMON, "pkg/util.py": NEW_UTIL}
    [verdict] = judge(tmp_path, new, [("debundle.patch", DEBUNDLE)], OLD)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.rule == "dropped-module"
    assert verdict.summary == (
        "upstream dropped the module its imports replace: pkg/vendor/compat.py is gone from "
        "the new release, and the files of pkg/util.py #1 no longer name compat; 0 of 3 "
        "substantive added lines already upstream (strongest: pkg/util.py 0/3); to do: retire "
        "(upstream has it)"
    )


def test_the_vendored_module_still_there_keeps_the_patch(tmp_path: Path) -> None:
    new = {**COMMON, **VENDOR, "pkg/util.py": NEW_UTIL}
    [verdict] = judge(tmp_path, new, [("debundle.patch", DEBUNDLE)], OLD)
    assert (verdict.verdict, verdict.action) == ("conflict", "port")


def test_a_file_that_still_names_the_module_keeps_the_patch(tmp_path: Path) -> None:
    # upstream moved compat into the package: the file still uses it
    util = NEW_UTIL.replace("from .errors", "from .compat import ensure_text\nfrom .errors")
    new = {**COMMON, "pkg/compat.py": VENDOR["pkg/vendor/compat.py"], "pkg/util.py": util}
    [verdict] = judge(tmp_path, new, [("debundle.patch", DEBUNDLE)], OLD)
    assert (verdict.verdict, verdict.action) == ("conflict", "port")


def test_import_statements_and_respellings() -> None:
    patch = parse_patch(DEBUNDLE.encode(), name="debundle.patch", path=Path("debundle.patch"))
    first, second = patch.files[0].hunks
    assert _statements(first, REMOVED) == [
        Import(1, "vendor", ("compat",)),
        Import(1, "vendor.compat", ("ensure_text",)),
    ]
    assert _statements(first, ADDED) == [
        Import(0, "compat", ()),
        Import(0, "compat", ("ensure_text",)),
    ]
    assert _statements(second, REMOVED) is None  # not an import
    assert (respelled_only(first), respelled_only(second)) == (False, True)


def test_a_parenthesized_import_is_one_statement() -> None:
    text = """--- a/pkg/util.py
+++ b/pkg/util.py
@@ -1,4 +1 @@
-from .vendor.compat import (
-    ensure_text,
-    ensure_bytes as to_bytes,
-)
+from compat import ensure_bytes as to_bytes, ensure_text
"""
    [hunk] = parse_patch(text.encode(), name="p", path=Path("p")).files[0].hunks
    assert _statements(hunk, REMOVED) == [
        Import(1, "vendor.compat", ("ensure_text", "ensure_bytes"))
    ]
    assert _statements(hunk, ADDED) == [Import(0, "compat", ("ensure_bytes", "ensure_text"))]


# a downstream test that builds on the project's test helpers, as they were at the pin
XSS_TEST = """Subject: test that the web UI escapes its input
---
--- /dev/null
+++ b/test/test_web_xss.py
@@ -0,0 +1,9 @@
+import re
+
+from test import _common
+from beetsplug import web
+
+
+class WebXSSTest(_common.LibTestCase):
+    def test_escaped(self):
+        assert re.search("&lt;", web.render("<"))
"""
XSS_OLD = {
    "beetsplug/web/__init__.py": "def render(text):\n    return text\n",
    "test/__init__.py": "",
    "test/_common.py": "class LibTestCase:\n    lib = None\n",
}
# the new release moved the test helpers into the package and dropped LibTestCase
XSS_NEW = {
    "beetsplug/web/__init__.py": "def render(text):\n    return escape(text)\n",
    "test/__init__.py": "",
    "beets/test/__init__.py": "",
    "beets/test/_common.py": "class TestCase:\n    pass\n",
}


def test_a_patch_importing_a_module_upstream_moved_away_is_ported(tmp_path: Path) -> None:
    # the patch applies (it creates its file), yet test/_common.py is gone from the new
    # release; beets/test/_common.py is another module, not found at any depth
    (verdict,) = judge(tmp_path, XSS_NEW, [("xss.patch", XSS_TEST)], old=XSS_OLD)
    reason = "it imports what the old pin has in test/_common.py, which the new release lacks"
    assert (verdict.verdict, verdict.action, verdict.imports_gone) == ("clean", "port", reason)
    assert verdict.rule == "imports-gone"
    assert verdict.summary == (
        f"applies at fuzz 0, every hunk in place; {reason}; to do: port (it imports a module "
        "the new release no longer has)"
    )


def test_a_patch_importing_modules_the_new_release_has_is_carried(tmp_path: Path) -> None:
    new = {**XSS_NEW, "test/_common.py": "class LibTestCase:\n    lib = 1\n"}
    (verdict,) = judge(tmp_path, new, [("xss.patch", XSS_TEST)], old=XSS_OLD)
    assert (verdict.verdict, verdict.action, verdict.imports_gone) == ("clean", "carry", "")
