"""Class 7 with class 2: the changelog names the fix and the code the patch changes is gone
from the new release (upstream rewrote it): *upstreamed* (obsolete). The same rewrite
without the mention is a conflict: a rewrite alone does not say the fix is in."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

OLD = """static int
copy_modes(Transform *self, const char *mode_in, const char *mode_out)
{
    strcpy(self->mode_in, mode_in);
    strcpy(self->mode_out, mode_out);
    return 0;
}
"""

FIX = """Subject: Use strncpy to avoid a buffer overflow (CVE-2031-0003)
---
--- a/src/transform.c
+++ b/src/transform.c
@@ -2,6 +2,6 @@ static int
 copy_modes(Transform *self, const char *mode_in, const char *mode_out)
 {
-    strcpy(self->mode_in, mode_in);
-    strcpy(self->mode_out, mode_out);
+    strncpy(self->mode_in, mode_in, 8);
+    strncpy(self->mode_out, mode_out, 8);
     return 0;
 }
"""

# upstream replaced the mode strings by an enum: the copied strings are gone
NEW = """static int
copy_modes(Transform *self, ModeID mode_in, ModeID mode_out)
{
    self->mode_in = mode_in;
    self->mode_out = mode_out;
    return 0;
}
"""

CHANGES_OLD = "Changes\n=======\n\n2.0.0\n-----\n\n- Dropped Python 3.8.\n"
CHANGES_NEW = (
    "Changes\n=======\n\n2.1.0\n-----\n\n- CVE-2031-0003: Use strncpy.\n\n"
    + (CHANGES_OLD.split("=======\n\n", 1)[1])
)


def test_a_named_fix_whose_code_upstream_rewrote_is_obsolete(tmp_path: Path) -> None:
    old = {"src/transform.c": OLD, "CHANGES.rst": CHANGES_OLD}
    new = {"src/transform.c": NEW, "CHANGES.rst": CHANGES_NEW}
    [verdict] = judge(tmp_path, new, [("CVE-2031-0003.patch", FIX)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.rule == "obsolete"
    assert verdict.summary == (
        "upstream rewrote the code the patch changes: the lines src/transform.c #1 remove are "
        "gone from the new release; the new release's changelog names CVE-2031-0003: "
        "CHANGES.rst line 7: '- CVE-2031-0003: Use strncpy.'; 0 of 2 substantive added lines "
        "already upstream (strongest: src/transform.c 0/2); to do: retire (upstream has it)"
    )
    # without the mention: the rewrite alone says nothing about the fix
    new["CHANGES.rst"] = CHANGES_OLD
    [verdict] = judge(tmp_path / "b", new, [("CVE-2031-0003.patch", FIX)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
    # the removed lines still there: the fix is not in, whatever the changelog says
    new = {"src/transform.c": OLD.replace("return 0;", "return 1;"), "CHANGES.rst": CHANGES_NEW}
    [verdict] = judge(tmp_path / "c", new, [("CVE-2031-0003.patch", FIX)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "look")


OLD_INSTALL = """from pkg.version import Version

import os


def installed_version(dist):
    return dist.parsed_version


def compatible(req, dist):
    version = dist.parsed_version
    return req.specifier.contains(version)


def needs_upgrade(dist, candidate):
    return dist.parsed_version != candidate.version
"""

OLD_RESOLVE = "import os\n\nfrom pkg.install import needs_upgrade\n"

REPARSE = """Subject: Re-parse versions from strings
Bug: https://tracker.example/pkg/issues/4321
---
--- a/pkg/install.py
+++ b/pkg/install.py
@@ -1,3 +1,3 @@
-from pkg.version import Version
+from pkg.version import Version, parse as parse_version
 
 import os
@@ -6,2 +6,2 @@
 def installed_version(dist):
-    return dist.parsed_version
+    return parse_version(dist.version)
@@ -10,3 +10,3 @@
 def compatible(req, dist):
-    version = dist.parsed_version
+    version = parse_version(dist.version)
     return req.specifier.contains(version)
@@ -15,2 +15,2 @@
 def needs_upgrade(dist, candidate):
-    return dist.parsed_version != candidate.version
+    return parse_version(dist.version) != candidate.version
--- a/pkg/resolve.py
+++ b/pkg/resolve.py
@@ -1,3 +1,4 @@
 import os
+from pkg.version import parse as parse_version
 
 from pkg.install import needs_upgrade
"""

# upstream's distributions give parsed versions: every parsed_version use is gone, the
# import line the patch rewrote stays (with other imports around it), and the import the
# patch adds to resolve.py has nothing to be judged by
NEW_INSTALL = """from pkg.version import Version

import logging


def installed_version(dist):
    return dist.version


def compatible(req, dist):
    return req.specifier.contains(dist.version, prereleases=True)


def needs_upgrade(dist, candidate):
    return dist.version != candidate.version
"""

NEW_RESOLVE = "import os\nimport sys\n\nfrom pkg.install import needs_upgrade\n"
# the item names the issue in words of its own, not the patch's subject (a listed subject
# is evidence of its own: tests/audit/test_changelog_subject.py)
REPARSE_NOTES = CHANGES_OLD.replace(
    "2.0.0\n", "2.1.0\n-----\n\n- Parse versions again from strings (#4321).\n\n2.0.0\n", 1
)


def test_a_named_fix_whose_code_is_mostly_gone_is_obsolete(tmp_path: Path) -> None:
    old = {"pkg/install.py": OLD_INSTALL, "pkg/resolve.py": OLD_RESOLVE, "CHANGES.rst": CHANGES_OLD}
    new = {
        "pkg/install.py": NEW_INSTALL,
        "pkg/resolve.py": NEW_RESOLVE,
        "CHANGES.rst": REPARSE_NOTES,
    }
    [verdict] = judge(tmp_path, new, [("reparse.patch", REPARSE)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.summary.startswith(
        "upstream rewrote the code the patch changes: 3 of the 4 lines pkg/install.py #1, "
        "pkg/install.py #2, pkg/install.py #3, pkg/install.py #4 remove are gone from the new "
        "release; the new release's changelog names 4321: CHANGES.rst line 7: "
        "'- Parse versions again from strings (#4321).';"
    )
    # without the changelog's word, code that is gone proves nothing
    new["CHANGES.rst"] = CHANGES_OLD
    [verdict] = judge(tmp_path / "b", new, [("reparse.patch", REPARSE)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "port")


def test_a_named_fix_whose_code_is_mostly_still_there_is_not_obsolete(tmp_path: Path) -> None:
    # two of the four lines the patch replaces are still in the new release
    new_install = NEW_INSTALL.replace(
        "    return dist.version\n\n\ndef compatible",
        "    return dist.parsed_version\n\n\ndef compatible",
    )
    old = {"pkg/install.py": OLD_INSTALL, "pkg/resolve.py": OLD_RESOLVE, "CHANGES.rst": CHANGES_OLD}
    new = {
        "pkg/install.py": new_install,
        "pkg/resolve.py": NEW_RESOLVE,
        "CHANGES.rst": REPARSE_NOTES,
    }
    [verdict] = judge(tmp_path, new, [("reparse.patch", REPARSE)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "look")
