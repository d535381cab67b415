"""A hunk that takes a line out of the block around it (an import out of its ``try:`` /
``except ImportError:`` fallback) is upstream when the file has the line and the block is
gone from around it: the added line is one the old pin had, so only the removal shows the
change. The same test holds in the file the content moved to: a module that became a
package's ``__init__.py`` with the fix already in it is upstream (retire), not a port."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

MODULE_OLD = '''"""Pretty-print tabular data."""

from collections import namedtuple
import re

try:
    import wcwidth  # optional wide-character (CJK) support
except ImportError:
    wcwidth = None

try:
    from html import escape as htmlescape
except ImportError:
    from cgi import escape as htmlescape


__all__ = ["tabulate", "tabulate_formats"]
__version__ = "0.8.10"


def _html_row(cells):
    return "".join("<td>%s</td>" % htmlescape(cell) for cell in cells)
'''

# the new release: the module is a package's __init__.py, the import at the top without
# its fallback, the optional wcwidth import still in its try block
PACKAGE_NEW = '''"""Pretty-print tabular data."""

from collections import namedtuple
from html import escape as htmlescape
import re

try:
    import wcwidth  # optional wide-character (CJK) support
except ImportError:
    wcwidth = None


__all__ = ["tabulate", "tabulate_formats"]
__version__ = "0.9.0"


def _html_row(cells):
    return "".join("<td>%s</td>" % htmlescape(cell) for cell in cells)
'''

DROP_FALLBACK = """Subject: Drop the cgi fallback for htmlescape
---
--- a/tabulate.py
+++ b/tabulate.py
@@ -8,10 +8,7 @@ try:
 except ImportError:
     wcwidth = None
 
-try:
-    from html import escape as htmlescape
-except ImportError:
-    from cgi import escape as htmlescape
+from html import escape as htmlescape
 
 
 __all__ = ["tabulate", "tabulate_formats"]
"""


def test_a_fallback_upstream_dropped_in_the_file_the_module_moved_to_is_upstream(
    tmp_path: Path,
) -> None:
    old = {"tabulate.py": MODULE_OLD}
    new = {"tabulate/__init__.py": PACKAGE_NEW}
    [verdict] = judge(tmp_path, new, [("0001-drop-cgi.patch", DROP_FALLBACK)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert [(h.path, h.status, h.line, h.how) for h in verdict.hunks] == [
        (
            "tabulate/__init__.py",
            "present",
            4,
            "added lines found, the removed lines gone from around them",
        )
    ]
    assert verdict.summary == (
        "tabulate.py moved to tabulate/__init__.py; every hunk's post-image is there "
        "(tabulate/__init__.py #1); 1 of 1 substantive added lines already upstream "
        "(strongest: tabulate/__init__.py 1/1); to do: retire (upstream has it)"
    )


def test_the_same_fix_in_a_file_that_did_not_move_is_upstream(tmp_path: Path) -> None:
    old = {"tabulate.py": MODULE_OLD}
    new = {"tabulate.py": PACKAGE_NEW}
    [verdict] = judge(tmp_path, new, [("0001-drop-cgi.patch", DROP_FALLBACK)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.summary == (
        "every hunk's post-image is there (tabulate.py #1); 1 of 1 substantive added lines "
        "already upstream (strongest: tabulate.py 1/1); to do: retire (upstream has it)"
    )


def test_a_fallback_still_in_the_moved_file_is_to_look_at(tmp_path: Path) -> None:
    # the new place has the import at the top and keeps the cgi fallback in a helper:
    # nothing the patch removes is gone, the fix is not shown (a person decides)
    kept = PACKAGE_NEW + (
        "\n\ndef _legacy_escape():\n    from cgi import escape as htmlescape\n\n"
        "    return htmlescape\n"
    )
    old = {"tabulate.py": MODULE_OLD}
    new = {"tabulate/__init__.py": kept}
    [verdict] = judge(tmp_path, new, [("0001-drop-cgi.patch", DROP_FALLBACK)], old)
    assert (verdict.verdict, verdict.action) == ("target gone", "look")
    assert verdict.rule == "moved-lines-there"
    # the counts name the lines that tell one file from another: not `try:` nor the imports
    assert verdict.summary == (
        "tabulate.py no longer exists; likely moved to tabulate/__init__.py (same content: "
        "4 of 4 context lines found there); tabulate/__init__.py already has every line it "
        "adds, but what it removes is not shown gone there; to do: look (its new place has "
        "what it adds; decide whether the fix is there)"
    )


def test_a_fallback_right_around_the_line_is_to_look_at(tmp_path: Path) -> None:
    # the new place dropped the cgi import but still catches the ImportError right after
    # the line: the block the patch takes the line out of is still there
    kept = PACKAGE_NEW.replace(
        "from html import escape as htmlescape\nimport re\n",
        "import re\n\ntry:\n    from html import escape as htmlescape\n"
        "except ImportError:\n    htmlescape = None\n",
    )
    old = {"tabulate.py": MODULE_OLD}
    new = {"tabulate/__init__.py": kept}
    [verdict] = judge(tmp_path, new, [("0001-drop-cgi.patch", DROP_FALLBACK)], old)
    assert (verdict.verdict, verdict.action) == ("target gone", "look")
    assert verdict.summary == (
        "tabulate.py no longer exists; likely moved to tabulate/__init__.py (same content: "
        "4 of 4 context lines found there); tabulate/__init__.py already has every line it "
        "adds, but what it removes is not shown gone there; to do: look (its new place has "
        "what it adds; decide whether the fix is there)"
    )


BUILD_OLD = """daemondir = $(DAEMON_DIR)

daemon_PROGRAMS = run-daemon check-daemon-helper

run_daemon_CFLAGS = $(CFLAGS_HARDENED_EXE)
"""

DROP_HELPER = """Subject: Shipping the test helper is not useful
---
--- a/daemons/Makefile.am
+++ b/daemons/Makefile.am
@@ -1,5 +1,5 @@
 daemondir = $(DAEMON_DIR)
 
-daemon_PROGRAMS = run-daemon check-daemon-helper
+daemon_PROGRAMS = run-daemon
 
 run_daemon_CFLAGS = $(CFLAGS_HARDENED_EXE)
"""


def test_a_removed_line_only_split_over_two_lines_is_not_taken_out(tmp_path: Path) -> None:
    # the new release wrote the list over two lines: the removed line is no longer one
    # line of the file, but the helper it names is still there
    new_text = BUILD_OLD.replace(
        "run-daemon check-daemon-helper", "run-daemon \\\n\t\t  check-daemon-helper"
    )
    old = {"daemons/Makefile.am": BUILD_OLD}
    new = {"daemons/Makefile.am": new_text}
    [verdict] = judge(tmp_path, new, [("no-helper.patch", DROP_HELPER)], old)
    assert [(h.path, h.status) for h in verdict.hunks] == [("daemons/Makefile.am", "fails")]
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
