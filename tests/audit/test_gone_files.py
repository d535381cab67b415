"""Classes 4 and 6: one gone file does not stop the audit. A file upstream deleted with the
content the patch removes is upstream for that file; a gone test file of a code patch is set
aside and the code judged; a removal whose key content upstream kept elsewhere (a tracking id
now set in a configuration file) is not upstream."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

LAYOUT = """{% extends "!layout.html" %}
{% block header %}
<div class="header">Project</div>
<div id="forkongithub"><a href="https://example.org/project">Fork me</a></div>
<script>track('create', 'UA-0000001-1', 'auto');</script>
{% endblock %}
"""

RIBBON = """Subject: drop the ribbon
---
--- a/doc/_templates/layout.html
+++ b/doc/_templates/layout.html
@@ -2,5 +2,4 @@
 {% block header %}
 <div class="header">Project</div>
-<div id="forkongithub"><a href="https://example.org/project">Fork me</a></div>
 <script>track('create', 'UA-0000001-1', 'auto');</script>
 {% endblock %}
"""

TRACKING = """Subject: drop the tracking
---
--- a/doc/_templates/layout.html
+++ b/doc/_templates/layout.html
@@ -3,4 +3,3 @@
 <div class="header">Project</div>
 <div id="forkongithub"><a href="https://example.org/project">Fork me</a></div>
-<script>track('create', 'UA-0000001-1', 'auto');</script>
 {% endblock %}
"""

CONF_OLD = 'project = "Project"\nhtml_theme = "alabaster"\n'
# the new release dropped the template; its configuration sets the tracking id instead
CONF_NEW = CONF_OLD + 'html_theme_options = {"analytics_id": "UA-0000001-1"}\n'


def test_a_removal_from_a_file_upstream_deleted_with_that_content_is_upstream(
    tmp_path: Path,
) -> None:
    old = {"doc/_templates/layout.html": LAYOUT, "doc/conf.py": CONF_OLD}
    new = {"doc/conf.py": CONF_NEW}
    ribbon, tracking = judge(tmp_path, new, [("ribbon.patch", RIBBON), ("ga.patch", TRACKING)], old)
    assert (ribbon.verdict, ribbon.action) == ("upstreamed", "retire")
    assert ribbon.summary == (
        "doc/_templates/layout.html is gone upstream with the content the patch removes; it "
        "adds no substantive lines; to do: retire (upstream has it)"
    )
    # the tracking id lives on in the new release's configuration: not upstream
    assert (tracking.verdict, tracking.action) == ("target gone", "look")
    assert (ribbon.rule, tracking.rule) == ("file-gone", "file-gone")


CODE_OLD = """def redirect(headers):
    headers.pop("Authorization", None)
    return headers
"""

CODE_NEW = """def redirect(headers):
    headers.pop("Authorization", None)
    headers.pop("Cookie", None)
    return headers
"""

TEST_OLD = """from pkg.redirect import redirect


def test_redirect():
    assert redirect({}) == {}
"""

FIX = """Subject: drop the cookie on redirect
---
--- a/pkg/redirect.py
+++ b/pkg/redirect.py
@@ -1,3 +1,4 @@
 def redirect(headers):
     headers.pop("Authorization", None)
+    headers.pop("Cookie", None)
     return headers
--- a/tests/test_redirect_legacy.py
+++ b/tests/test_redirect_legacy.py
@@ -3,3 +3,4 @@ from pkg.redirect import redirect
 
 def test_redirect():
     assert redirect({}) == {}
+    assert redirect({"Cookie": "a"}) == {}
"""


def test_a_gone_test_file_is_set_aside_and_the_code_judged(tmp_path: Path) -> None:
    old = {"pkg/redirect.py": CODE_OLD, "tests/test_redirect_legacy.py": TEST_OLD}
    # upstream rewrote its tests in another module; the test the patch extends is still there
    rewritten = (
        "from pkg import redirect as r\n\n\ndef test_redirect():\n    assert r.redirect({})\n"
    )
    new = {"pkg/redirect.py": CODE_NEW, "tests/test_redirect.py": rewritten}
    [verdict] = judge(tmp_path, new, [("fix.patch", FIX)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.summary == (
        "tests/test_redirect_legacy.py is gone upstream (set aside: tests, the patch is code); "
        "the patch reverse-applies: the new upstream already has its post-image; 1 of 1 "
        "substantive added lines already upstream (strongest: pkg/redirect.py 1/1); to do: "
        "retire (upstream has it)"
    )
    # the code is not upstream: the gone test file keeps it target gone
    new["pkg/redirect.py"] = CODE_OLD
    [verdict] = judge(tmp_path / "b", new, [("fix.patch", FIX)], old)
    assert verdict.verdict == "target gone"


SKIP = """Subject: skip a test that needs the network
---
--- a/tests/test_redirect_legacy.py
+++ b/tests/test_redirect_legacy.py
@@ -2,4 +2,5 @@ from pkg.redirect import redirect
 
 
+@pytest.mark.skip("needs the network")
 def test_redirect():
     assert redirect({}) == {}
"""


def test_a_skip_of_a_test_upstream_removed_is_upstream(tmp_path: Path) -> None:
    old = {"pkg/redirect.py": CODE_OLD, "tests/test_redirect_legacy.py": TEST_OLD}
    new = {"pkg/redirect.py": CODE_OLD, "tests/test_other.py": "def test_other():\n    pass\n"}
    [verdict] = judge(tmp_path, new, [("skip.patch", SKIP)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.summary.startswith(
        "tests/test_redirect_legacy.py is gone upstream and so are the tests the patch changes "
        "there; "
    )
    # the test lives on in another module: the skip may still be needed
    new["tests/test_redirect.py"] = TEST_OLD
    [verdict] = judge(tmp_path / "b", new, [("skip.patch", SKIP)], old)
    assert verdict.verdict == "target gone"


SERVER_OLD = """def handle(request):
    status = request.status
    return respond(status)
"""

WITH_SERVER = (
    FIX.split("--- a/tests/")[0]
    + """--- a/pkg/server.py
+++ b/pkg/server.py
@@ -1,3 +1,5 @@
 def handle(request):
     status = request.status
+    if isinstance(status, bytes):
+        status = status.decode("latin-1")
     return respond(status)
"""
)


def test_a_code_file_gone_without_a_trace_is_set_aside_only_beside_upstream_code(
    tmp_path: Path,
) -> None:
    old = {"pkg/redirect.py": CODE_OLD, "pkg/server.py": SERVER_OLD}
    new = {"pkg/redirect.py": CODE_NEW}
    [verdict] = judge(tmp_path, new, [("fix.patch", WITH_SERVER)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.summary.startswith(
        "pkg/server.py is gone upstream and none of its lines the patch touches is anywhere; "
        "the patch reverse-applies"
    )
    # the same gone file beside code upstream lacks: target gone
    new["pkg/redirect.py"] = CODE_OLD
    [verdict] = judge(tmp_path / "b", new, [("fix.patch", WITH_SERVER)], old)
    assert verdict.verdict == "target gone"


CIPHER_OLD = """def update_into(self, data, buf):
    view = memoryview(buf)
    return self._update(data, view)
"""

CIPHER_FIX = """Subject: Don't allow update_into to mutate immutable objects (CVE-2031-0004)
---
--- a/pkg/backends/ciphers.py
+++ b/pkg/backends/ciphers.py
@@ -1,3 +1,5 @@
 def update_into(self, data, buf):
     view = memoryview(buf)
+    if view.readonly:
+        raise TypeError("buffer must be writable")
     return self._update(data, view)
--- a/tests/test_ciphers.py
+++ b/tests/test_ciphers.py
@@ -1,2 +1,6 @@
 def test_update_into():
     assert update_into(bytearray(16))
+
+
+def test_update_into_immutable():
+    assert update_into_raises(bytes(16))
"""


def test_a_code_file_gone_without_a_trace_with_the_fix_named_is_obsolete(tmp_path: Path) -> None:
    # upstream rewrote the backend in another language; its changelog names the fix
    old = {
        "pkg/backends/ciphers.py": CIPHER_OLD,
        "tests/test_ciphers.py": "def test_update_into():\n    assert update_into(bytearray(16))\n",
        "CHANGELOG.rst": "Changelog\n=========\n\n1.0\n---\n\n- First.\n",
    }
    new = {
        "src/rust/cipher.rs": "fn update_into() {}\n",
        "tests/test_ciphers.py": "def test_update_into():\n    assert update_into(bytearray(16))\n",
        "CHANGELOG.rst": old["CHANGELOG.rst"].replace(
            "1.0\n",
            "1.1\n---\n\n- Fixed CVE-2031-0004: update_into and immutable buffers.\n\n1.0\n",
        ),
    }
    [verdict] = judge(tmp_path, new, [("CVE-2031-0004.patch", CIPHER_FIX)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.summary.startswith(
        "pkg/backends/ciphers.py is gone upstream and none of its lines the patch touches is "
        "anywhere; the new release's changelog names CVE-2031-0004: CHANGELOG.rst line 7: "
    )
    # the same without the changelog's word: target gone
    new["CHANGELOG.rst"] = old["CHANGELOG.rst"]
    [verdict] = judge(tmp_path / "b", new, [("CVE-2031-0004.patch", CIPHER_FIX)], old)
    assert verdict.verdict == "target gone"


# The shape of Debian's urllib3 "do not use the embedded six" patch at 2.x: a test file moved
# (same content under a new name) while the code file it also changes is gone without a trace
RETRY_TESTS = """import pytest

from pkg.util.retry import Retry


def test_retry_default():
    retry = Retry()
    assert retry.total == 10
    assert retry.connect is None
"""

HANDLERS_OLD = """import json
import logging

from pkg.packages.six.moves.http_client import responses

log = logging.getLogger(__name__)
"""

GONE_AND_MOVED = """Subject: do not use the embedded six
---
--- a/tests/test_retry_deprecated.py
+++ b/tests/test_retry_deprecated.py
@@ -1,6 +1,7 @@
 import pytest
 
 from pkg.util.retry import Retry
+from six.moves import range
 
 
 def test_retry_default():
--- a/dummyserver/handlers.py
+++ b/dummyserver/handlers.py
@@ -1,6 +1,6 @@
 import json
 import logging
 
-from pkg.packages.six.moves.http_client import responses
+from six.moves.http_client import responses
 
 log = logging.getLogger(__name__)
"""


def test_a_code_file_gone_without_a_trace_is_to_look_at_even_when_a_test_file_moved(
    tmp_path: Path,
) -> None:
    old = {"tests/test_retry_deprecated.py": RETRY_TESTS, "dummyserver/handlers.py": HANDLERS_OLD}
    new = {"tests/test_retry.py": RETRY_TESTS, "pkg/connection.py": "import socket\n"}
    [verdict] = judge(tmp_path, new, [("01_six.patch", GONE_AND_MOVED)], old)
    assert [(m.path, m.likely) for m in verdict.moved] == [
        ("tests/test_retry_deprecated.py", "tests/test_retry.py"),
        ("dummyserver/handlers.py", None),
    ]
    # the evidence is that the code's content is nowhere: nothing to port onto
    assert (verdict.verdict, verdict.action) == ("target gone", "look")
    assert verdict.summary == (
        "dummyserver/handlers.py no longer exists; its content was not found elsewhere; to do: "
        "look (its file is gone and its content was not found)"
    )
    # with the code file moved too, there is a place to port it to
    new["pkg/testing/handlers.py"] = HANDLERS_OLD + "\n\ndef handler():\n    pass\n"
    [verdict] = judge(tmp_path / "b", new, [("01_six.patch", GONE_AND_MOVED)], old)
    assert (verdict.verdict, verdict.action) == ("target gone", "port")
    assert verdict.summary.startswith("tests/test_retry_deprecated.py no longer exists; likely ")


ROTATION_TEST = """import os

import pytest


def test_rotation_reopening(tmp_path):
    sink = tmp_path / "file.log"
    assert not sink.exists()
"""

SKIP_ROTATION = """Description: skip a rotation test that fails on filesystems without birth times
--- a/tests/test_sink_rotation.py
+++ b/tests/test_sink_rotation.py
@@ -4,6 +4,7 @@ import pytest
 
 
+@pytest.mark.skipif(os.name != "nt", reason="needs birth times")
 def test_rotation_reopening(tmp_path):
     sink = tmp_path / "file.log"
     assert not sink.exists()
"""

SINK = "def rotate(path):\n    return path\n"


def test_a_test_file_gone_with_its_whole_directory_is_to_look_at(tmp_path: Path) -> None:
    # the new release's sdist ships no tests at all: that the test is nowhere is no sign
    # that upstream removed it, and the skip may still be needed where the tests live
    old = {"pkg/sink.py": SINK, "tests/test_sink_rotation.py": ROTATION_TEST}
    [verdict] = judge(tmp_path, {"pkg/sink.py": SINK}, [("skip.patch", SKIP_ROTATION)], old)
    assert (verdict.verdict, verdict.action) == ("target gone", "look")
    assert verdict.summary == (
        "tests/test_sink_rotation.py no longer exists; its content was not found elsewhere "
        "(the new release has no tests/ at all); to do: look (its file is gone and its content "
        "was not found)"
    )
    # the same with the tests inside the package: pkg/ is there, pkg/tests/ is not
    inside = {"pkg/sink.py": SINK, "pkg/tests/test_sink_rotation.py": ROTATION_TEST}
    patch = SKIP_ROTATION.replace(" b/tests/", " b/pkg/tests/").replace(
        " a/tests/", " a/pkg/tests/"
    )
    [verdict] = judge(tmp_path / "b", {"pkg/sink.py": SINK}, [("skip.patch", patch)], inside)
    assert (verdict.verdict, verdict.action) == ("target gone", "look")
    assert verdict.summary == (
        "pkg/tests/test_sink_rotation.py no longer exists; its content was not found "
        "elsewhere (the new release has no pkg/tests/ at all); to do: look (its file is gone and "
        "its content was not found)"
    )
    # tests still shipped where the file was, without the test the patch skips: upstream
    # removed it, nothing is left to skip
    other = {"pkg/sink.py": SINK, "tests/test_other.py": "def test_other():\n    pass\n"}
    [verdict] = judge(tmp_path / "c", other, [("skip.patch", SKIP_ROTATION)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")


DROP_ROTATION = """Description: drop a rotation test that fails on filesystems without birth times
--- a/tests/test_sink_rotation.py
+++ b/tests/test_sink_rotation.py
@@ -4,6 +4,3 @@ import pytest
 
 
-def test_rotation_reopening(tmp_path):
-    sink = tmp_path / "file.log"
-    assert not sink.exists()
"""


def test_a_removal_from_a_file_gone_with_its_whole_directory_is_to_look_at(
    tmp_path: Path,
) -> None:
    # nothing is near a file whose top directory the release left out: that its removed
    # lines are nowhere near says nothing about upstream
    old = {"pkg/sink.py": SINK, "tests/test_sink_rotation.py": ROTATION_TEST}
    [verdict] = judge(tmp_path, {"pkg/sink.py": SINK}, [("drop.patch", DROP_ROTATION)], old)
    assert (verdict.verdict, verdict.action) == ("target gone", "look")
    assert verdict.summary == (
        "tests/test_sink_rotation.py no longer exists; its content was not found elsewhere "
        "(the new release has no tests/ at all); to do: look (its file is gone and its content "
        "was not found)"
    )
