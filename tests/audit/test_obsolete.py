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
