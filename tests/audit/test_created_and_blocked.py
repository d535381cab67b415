"""Class 4: a patch that creates a file is never *target gone*; class 5: blocked means
blocked, also when lines the failed patch would have added make the later one look
upstreamed."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

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

# A adds a cap on the backoff; upstream rewrote __init__ so A conflicts
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
    new = RETRY.replace("total=3", "total: int = 3")
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
