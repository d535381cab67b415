"""Class 5's converse: a patch that fails only because upstream carries a later patch's
rewrite of its lines is upstream (superseded), and the later patch, which needs its lines, is
judged as if it had applied: not *blocked* by a patch that is upstream after all."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

OLD = """import re


def parse(line):
    name, value = line.split(":", 1)
    return name, value
"""

FIRST = """Subject: validate header names
---
--- a/pkg/message.py
+++ b/pkg/message.py
@@ -1,6 +1,8 @@
 import re
 
+HEADER_RE = re.compile(r"[^!#$%&'*+.^_|~0-9a-zA-Z-]")
+
 
 def parse(line):
     name, value = line.split(":", 1)
     return name, value
"""

SECOND = """Subject: parse tokens as the RFC says
---
--- a/pkg/message.py
+++ b/pkg/message.py
@@ -1,8 +1,10 @@
 import re
 
-HEADER_RE = re.compile(r"[^!#$%&'*+.^_|~0-9a-zA-Z-]")
+TOKEN_RE = re.compile(r"[!#$%&'*+.^_|~0-9a-zA-Z-]+")
 
 
 def parse(line):
     name, value = line.split(":", 1)
+    if not TOKEN_RE.fullmatch(name):
+        raise InvalidHeaderName(name)
     return name, value
"""

NEW = """import re

TOKEN_RE = re.compile(r"[!#$%&'*+.^_|~0-9a-zA-Z-]+")


def parse(line):
    name, value = line.split(":", 1)
    if not TOKEN_RE.fullmatch(name):
        raise InvalidHeaderName(name)
    return name, value
"""


def test_a_patch_a_later_upstream_patch_rewrites_does_not_block_it(tmp_path: Path) -> None:
    first, second = judge(
        tmp_path,
        {"pkg/message.py": NEW},
        [("0001-header.patch", FIRST), ("0002-token.patch", SECOND)],
        {"pkg/message.py": OLD},
    )
    assert (first.verdict, first.action) == ("upstreamed", "retire")
    assert (first.rule, second.rule) == ("chain", "reverse-applies")
    assert first.summary.startswith(
        "superseded: the later patch 0002-token.patch rewrites every line its failing hunks "
        "add, and the new upstream carries it; "
    )
    assert (second.verdict, second.action, second.blocked_by) == ("upstreamed", "retire", None)
    # upstream wrote its own token check (not the later patch's): the first conflicts and
    # the second, which needs its line, is blocked by it
    other = NEW.replace("TOKEN_RE", "NAME_RE")
    first, second = judge(
        tmp_path / "b",
        {"pkg/message.py": other},
        [("0001-header.patch", FIRST), ("0002-token.patch", SECOND)],
        {"pkg/message.py": OLD},
    )
    assert (first.verdict, second.verdict, second.blocked_by) == (
        "conflict",
        "blocked",
        "0001-header.patch",
    )


# Two upstream commits for one fix, backported as two patches (Werkzeug's CVE-2024-34069):
# the first restricts the debugger to trusted hosts, the second moves the check into a
# method and drops the two lines the first added to pin_auth. Upstream wrote the page's
# script its own way, so two lines of the first patch are nowhere.
DEBUG_OLD = """class Debugger:
    def __init__(self, app, evalex=False):
        self.app = app
        self.evalex = evalex

    def pin_auth(self, request):
        exhausted = False
        return self.respond(exhausted)
"""

SERVING_OLD = """def run_simple(hostname, port, application, use_debugger=False):
    if use_debugger:
        application = Debugger(application)
    return serve(hostname, port, application)
"""

SCRIPT_OLD = """function pinAuth(pin, secret) {
  return fetch(`${document.location.pathname}?cmd=pinauth&pin=${pin}&s=${secret}`);
}
function printPin(secret) {
  return fetch(`${document.location.pathname}?cmd=printpin&s=${secret}`);
}
"""

RESTRICT = """Subject: restrict debugger trusted hosts
---
--- a/pkg/debug.py
+++ b/pkg/debug.py
@@ -1,8 +1,13 @@
 class Debugger:
     def __init__(self, app, evalex=False):
         self.app = app
         self.evalex = evalex
+        self.trusted_hosts = [".localhost", "127.0.0.1"]
+        self.pin_logging = app.config.get("pin_logging", True)
+        self.pin_attempts_allowed = app.config.get("pin_attempts", 10)
 
     def pin_auth(self, request):
         exhausted = False
+        request.trusted_hosts = self.trusted_hosts
+        assert request.host  # raises 400 if not trusted
         return self.respond(exhausted)
--- a/pkg/serving.py
+++ b/pkg/serving.py
@@ -1,4 +1,5 @@
 def run_simple(hostname, port, application, use_debugger=False):
     if use_debugger:
         application = Debugger(application)
+        application.trusted_hosts.append(hostname)
     return serve(hostname, port, application)
--- a/pkg/shared/debugger.js
+++ b/pkg/shared/debugger.js
@@ -1,6 +1,6 @@
 function pinAuth(pin, secret) {
-  return fetch(`${document.location.pathname}?cmd=pinauth&pin=${pin}&s=${secret}`);
+  return fetch(`${document.location}?cmd=pinauth&pin=${pin}&s=${secret}`);
 }
 function printPin(secret) {
-  return fetch(`${document.location.pathname}?cmd=printpin&s=${secret}`);
+  return fetch(`${document.location}?cmd=printpin&s=${secret}`);
 }
"""

EVALEX_ONLY = """Subject: only require trusted host for evalex
---
--- a/pkg/debug.py
+++ b/pkg/debug.py
@@ -8,6 +8,9 @@ class Debugger:
 
     def pin_auth(self, request):
         exhausted = False
-        request.trusted_hosts = self.trusted_hosts
-        assert request.host  # raises 400 if not trusted
+        if not self.check_host_trust(request.environ):
+            return SecurityError()
         return self.respond(exhausted)
+
+    def check_host_trust(self, environ):
+        return host_is_trusted(environ.get("HTTP_HOST"), self.trusted_hosts)
"""

DEBUG_NEW = """class Debugger:
    def __init__(self, app, evalex=False, pin_security=True):
        self.app = app
        self.evalex = evalex
        self.trusted_hosts = [".localhost", "127.0.0.1"]
        self.pin_logging = app.config.get("pin_logging", True)
        self.pin_attempts_allowed = app.config.get("pin_attempts", 10)

    def pin_auth(self, request):
        exhausted = False
        if not self.check_host_trust(request.environ):
            return SecurityError()
        return self.respond(exhausted)

    def check_host_trust(self, environ):
        return host_is_trusted(environ.get("HTTP_HOST"), self.trusted_hosts)
"""

SERVING_NEW = SERVING_OLD.replace(
    "Debugger(application)\n",
    "Debugger(application)\n        application.trusted_hosts.append(hostname)\n",
)

SCRIPT_NEW = """function pinAuth(pin) {
  return fetch(makeDebugURL({cmd: "pinauth", pin: pin}));
}
function printPin() {
  return fetch(makeDebugURL({cmd: "printpin"}));
}
"""


def test_lines_a_later_upstreamed_patch_rewrites_are_left_out_of_the_share(
    tmp_path: Path,
) -> None:
    old = {"pkg/debug.py": DEBUG_OLD, "pkg/serving.py": SERVING_OLD}
    old["pkg/shared/debugger.js"] = SCRIPT_OLD
    new = {"pkg/debug.py": DEBUG_NEW, "pkg/serving.py": SERVING_NEW}
    new["pkg/shared/debugger.js"] = SCRIPT_NEW
    first, second = judge(
        tmp_path, new, [("restrict-1.patch", RESTRICT), ("restrict-2.patch", EVALEX_ONLY)], old
    )
    assert (second.verdict, second.action) == ("upstreamed", "retire")
    # counted alone, 4 of its 8 new lines are there (not more than half: a conflict); the
    # two that restrict-2.patch rewrites cannot be there as written, and left out, 4 of 6 are
    assert (first.verdict, first.action) == ("upstreamed", "retire")
    assert first.failures == ()
    assert [(s.path, s.counted) for s in first.shares] == [
        ("pkg/debug.py", (3, 3)),
        ("pkg/serving.py", (1, 1)),
        ("pkg/shared/debugger.js", (0, 2)),
    ]
    assert first.summary == (
        "upstream has it written differently: 4 of 6 substantive added lines are there "
        "(pkg/debug.py 3/3, pkg/serving.py 1/1, pkg/shared/debugger.js 0/2) (lines the old "
        "pin already had are not counted); not found, review before retiring: "
        "`return fetch(`${document.location}?cmd=pinauth&pin=${pin}&s=${secret}`);`; "
        "`return fetch(`${document.location}?cmd=printpin&s=${secret}`);`; 2 added lines "
        "left out: the later patch restrict-2.patch rewrites them, and the new upstream "
        "carries it; to do: retire (after reviewing the lines not found)"
    )


def test_lines_a_later_carried_patch_rewrites_still_count(tmp_path: Path) -> None:
    # upstream kept the first commit's pin_auth and never took the second: the second is
    # carried, so the first's two lines are simply not there, and it is no more upstream
    debug_new = DEBUG_NEW.replace(
        "        if not self.check_host_trust(request.environ):\n            return SecurityError()\n",
        "",
    ).split("\n    def check_host_trust", 1)[0]
    old = {"pkg/debug.py": DEBUG_OLD, "pkg/serving.py": SERVING_OLD}
    old["pkg/shared/debugger.js"] = SCRIPT_OLD
    new = {"pkg/debug.py": debug_new, "pkg/serving.py": SERVING_NEW}
    new["pkg/shared/debugger.js"] = SCRIPT_NEW
    first, second = judge(
        tmp_path, new, [("restrict-1.patch", RESTRICT), ("restrict-2.patch", EVALEX_ONLY)], old
    )
    assert first.verdict == "conflict"
    assert second.verdict == "blocked"
