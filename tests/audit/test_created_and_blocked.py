"""Class 4: a patch that creates a file is never *target gone*; class 5: blocked means
blocked, also when lines the failed patch would have added make the later one look
upstreamed."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge, write_tree

# git and diff -u write a creation as --- /dev/null; some exporters write --- a/path with an
# empty source range
CREATE_DEVNULL = """Subject: add the Debian defaults
---
--- /dev/null
+++ b/pkg/debian_defaults.py
@@ -0,0 +1,2 @@
+CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
+VERIFY = True
"""

CREATE_EMPTY_RANGE = CREATE_DEVNULL.replace("--- /dev/null", "--- a/pkg/debian_defaults.py")


def test_a_created_file_is_clean_where_the_new_release_lacks_it(tmp_path: Path) -> None:
    for number, text in enumerate((CREATE_DEVNULL, CREATE_EMPTY_RANGE)):
        [verdict] = judge(tmp_path / str(number), {"pkg/__init__.py": ""}, [("d.patch", text)])
        assert (verdict.verdict, verdict.summary) == (
            "clean",
            "applies at fuzz 0, every hunk in place; to do: carry (it applies)",
        )


def test_a_created_file_the_new_release_has(tmp_path: Path) -> None:
    same = 'CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"\nVERIFY = True\n'
    [verdict] = judge(tmp_path, {"pkg/debian_defaults.py": same}, [("d.patch", CREATE_EMPTY_RANGE)])
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.hunks[0].how == "the file exists with the same content"
    [verdict] = judge(
        tmp_path / "other",
        {"pkg/debian_defaults.py": "VERIFY = False\n"},
        [("d.patch", CREATE_DEVNULL)],
    )
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
    assert verdict.hunks[0].evidence.note == (
        "the new release has a file of this name with other content"
    )


RETRY = """class Retry:
    def __init__(self, total=3):
        self.total = total
        self.backoff = 0
"""

# A adds a cap on the backoff; upstream rewrote __init__ (its lines around A's) so A conflicts
ADD_CAP = """Subject: cap the backoff
---
--- a/pkg/retry.py
+++ b/pkg/retry.py
@@ -1,4 +1,6 @@
 class Retry:
     def __init__(self, total=3):
         self.total = total
         self.backoff = 0
+        self.backoff_max = BACKOFF_MAX
+        self.backoff_jitter = 0.0
"""

# B, cut on top of A, drops A's jitter line again (a removal-only hunk)
DROP_JITTER = """Subject: no jitter
---
--- a/pkg/retry.py
+++ b/pkg/retry.py
@@ -3,4 +3,3 @@ class Retry:
         self.total = total
         self.backoff = 0
         self.backoff_max = BACKOFF_MAX
-        self.backoff_jitter = 0.0
"""


def test_a_patch_needing_a_failed_patchs_lines_is_blocked(tmp_path: Path) -> None:
    new = RETRY.replace("total=3", "total: int = 3").replace("backoff = 0", "backoff = 0.5")
    # B's removed line is naturally gone from the new release (A never applied): that is not
    # B upstream, B is blocked by A
    a, b = judge(tmp_path, {"pkg/retry.py": new}, [("a.patch", ADD_CAP), ("b.patch", DROP_JITTER)])
    assert (a.verdict, b.verdict, b.blocked_by, b.action) == (
        "conflict",
        "blocked",
        "a.patch",
        "port",
    )
    assert b.summary == (
        "pkg/retry.py #1 needs lines that the failing patch a.patch adds; to do: port (after "
        "a.patch)"
    )


def test_a_patch_whose_lines_upstream_has_is_not_blocked(tmp_path: Path) -> None:
    # upstream took A (reformatted), so B's context is there: B applies
    new = RETRY.replace("total=3", "total: int = 3") + "        self.backoff_max = BACKOFF_MAX\n"
    new += "        self.backoff_jitter = 0.0\n"
    a, b = judge(tmp_path, {"pkg/retry.py": new}, [("a.patch", ADD_CAP), ("b.patch", DROP_JITTER)])
    assert (a.verdict, b.verdict) == ("upstreamed", "clean")


# The shape of a two-part security fix (a Debian CVE-...-1 and -2): part 1 guards the debugger
# by asserting the host in ``__call__`` and trusts the server's host name in ``run_simple``;
# part 2 moves the guard into a method and drops part 1's two lines again.
SERVING = """def run_simple(hostname, port, application, use_debugger=False):
    if use_debugger:
        application = DebuggedApplication(application)
    s = prepare_socket(hostname, port)
    serve(s, application)
"""

DEBUG = """class DebuggedApplication:
    def __init__(self, app):
        self.app = app

    def pin_auth(self, request):
        return Response("ok")

    def __call__(self, environ, start_response):
        request = Request(environ)
        response = self.debug_application
        return response(environ, start_response)
"""

GUARD_PART_1 = """Subject: guard the debugger by host (part 1)
---
--- a/pkg/debug.py
+++ b/pkg/debug.py
@@ -7,5 +7,7 @@ class DebuggedApplication:
 
     def __call__(self, environ, start_response):
         request = Request(environ)
+        request.trusted_hosts = self.trusted_hosts
+        assert request.host  # will raise 400 error if not trusted
         response = self.debug_application
         return response(environ, start_response)
--- a/pkg/serving.py
+++ b/pkg/serving.py
@@ -1,5 +1,6 @@
 def run_simple(hostname, port, application, use_debugger=False):
     if use_debugger:
         application = DebuggedApplication(application)
+        application.trusted_hosts.append(hostname)
     s = prepare_socket(hostname, port)
     serve(s, application)
"""

GUARD_PART_2 = """Subject: guard the debugger by host (part 2)
---
--- a/pkg/debug.py
+++ b/pkg/debug.py
@@ -4,4 +4,6 @@ class DebuggedApplication:
 
     def pin_auth(self, request):
+        if not host_is_trusted(request.host, self.trusted_hosts):
+            return SecurityError()
         return Response("ok")
 
@@ -8,6 +10,4 @@ class DebuggedApplication:
     def __call__(self, environ, start_response):
         request = Request(environ)
-        request.trusted_hosts = self.trusted_hosts
-        assert request.host  # will raise 400 error if not trusted
         response = self.debug_application
         return response(environ, start_response)
"""


def test_a_removal_that_reverse_applies_only_without_a_failed_patchs_lines_is_blocked(
    tmp_path: Path,
) -> None:
    # the new release rewrote run_simple (part 1 conflicts) and has none of the fix: part 2's
    # removal-only hunk reverse-applies because part 1's lines never got in; that is no
    # evidence of part 2 upstream, part 2 waits for part 1
    new = SERVING.replace("    s = prepare_socket(hostname, port)\n", "    fd = None\n")
    files = {"pkg/serving.py": new, "pkg/debug.py": DEBUG}
    old = {"pkg/serving.py": SERVING, "pkg/debug.py": DEBUG}
    one, two = judge(
        tmp_path, files, [("1.patch", GUARD_PART_1), ("2.patch", GUARD_PART_2)], old=old
    )
    assert (one.verdict, two.verdict, two.blocked_by, two.action) == (
        "conflict",
        "blocked",
        "1.patch",
        "port",
    )
    assert [(h.path, h.index, h.status, h.how) for h in two.hunks] == [
        ("pkg/debug.py", 1, "applies", ""),
        ("pkg/debug.py", 2, "present", "reverse-applies"),
    ]
    assert two.summary == (
        "pkg/debug.py #2 needs lines that the failing patch 1.patch adds; to do: port (after "
        "1.patch)"
    )


def test_a_removal_upstream_made_after_taking_the_failed_patch_is_not_blocked(
    tmp_path: Path,
) -> None:
    # the new release took part 1's guard in debug.py (so its lines are there for part 2 to
    # remove; part 1 is partly there): part 2 applies
    new_serving = SERVING.replace("    s = prepare_socket(hostname, port)\n", "    fd = None\n")
    guarded = DEBUG.replace(
        "        request = Request(environ)\n",
        "        request = Request(environ)\n"
        "        request.trusted_hosts = self.trusted_hosts\n"
        "        assert request.host  # will raise 400 error if not trusted\n",
    )
    files = {"pkg/serving.py": new_serving, "pkg/debug.py": guarded}
    old = {"pkg/serving.py": SERVING, "pkg/debug.py": DEBUG}
    one, two = judge(
        tmp_path, files, [("1.patch", GUARD_PART_1), ("2.patch", GUARD_PART_2)], old=old
    )
    assert (one.verdict, two.verdict, two.action) == ("partially upstreamed", "clean", "carry")


POOL = """class Pool:
    def __init__(self, size=10):
        self.size = size
        self.block = False
"""

# A (the shape of Debian's incomplete_markup_declaration.diff) adds lines to two files; B
# (fixes_for_new_python.diff, cut on top of A) changes A's lines in both
CAP_BOTH = ADD_CAP + (
    """--- a/pkg/pool.py
+++ b/pkg/pool.py
@@ -1,4 +1,5 @@
 class Pool:
     def __init__(self, size=10):
         self.size = size
         self.block = False
+        self.maxsize = MAXSIZE
"""
)
CHANGE_BOTH = """Subject: jitter and size for the new Python
---
--- a/pkg/pool.py
+++ b/pkg/pool.py
@@ -2,4 +2,4 @@ class Pool:
     def __init__(self, size=10):
         self.size = size
         self.block = False
-        self.maxsize = MAXSIZE
+        self.maxsize = MAXSIZE or 1
--- a/pkg/retry.py
+++ b/pkg/retry.py
@@ -3,4 +3,4 @@ class Retry:
         self.total = total
         self.backoff = 0
         self.backoff_max = BACKOFF_MAX
-        self.backoff_jitter = 0.0
+        self.backoff_jitter = 0.1
"""


def test_a_blocked_patchs_failing_hunks_are_shown_under_their_files(tmp_path: Path, cli) -> None:
    # The terminal's detail of a blocked patch listed "hunk #1" of one file and "hunk #1" of
    # another one after the other, with no file named.
    old = write_tree(tmp_path / "old", {"pkg/retry.py": RETRY, "pkg/pool.py": POOL})
    new = write_tree(
        tmp_path / "new",
        {
            "pkg/retry.py": RETRY.replace("total=3", "total: int = 3").replace(
                "backoff = 0", "backoff = 0.5"
            ),
            "pkg/pool.py": POOL.replace("size=10", "size: int = 10").replace(
                "block = False", "block = True"
            ),
        },
    )
    down = write_tree(
        tmp_path / "down",
        {
            "patchkeeper.toml": f'upstream = "pkg"\npin = "1.0"\nseries = "patches/series"\n'
            f'strip = 1\npristine = "{old}"\n',
            "patches/series": "a.patch\nb.patch\n",
            "patches/a.patch": CAP_BOTH,
            "patches/b.patch": CHANGE_BOTH,
        },
    )
    run = cli("audit", "--to", str(new), cwd=down)
    assert run.code == 1, run.err
    detail = run.out.split("  b.patch (blocked):\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line for line in detail if not line.startswith("        ")] == [
        "    pkg/pool.py:",
        "      hunk #1 @@ -2,4 +2,4 @@ class Pool:  (patch line 5)",
        "    pkg/retry.py:",
        "      hunk #1 @@ -3,4 +3,4 @@ class Retry:  (patch line 13)",
    ]
