"""Classes of real upgrades the mined corpus showed, each in the shape of its case with text
of our own: a patch blocked only for context, a removal whose lines upstream rewrote in
place, an import added among imports upstream reordered, code split out into another file,
and a one-line addition upstream made at one place of a file that repeats its construct."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

# ------------------------------------------------------------------ removal rewritten in place

README_OLD = """# Tallyho

[![Build](https://pipelines.example.org/tallyho/badge.svg?branch=stable-1)](https://pipelines.example.org/tallyho)
[![Coverage](https://coverage.example.org/tallyho/badge.svg?branch=stable-1)](https://coverage.example.org/tallyho)

Tallyho counts things.
"""

NO_BADGES = """Subject: no remote badges in the documentation
---
--- a/README.md
+++ b/README.md
@@ -1,6 +1,3 @@
 # Tallyho
 
-[![Build](https://pipelines.example.org/tallyho/badge.svg?branch=stable-1)](https://pipelines.example.org/tallyho)
-[![Coverage](https://coverage.example.org/tallyho/badge.svg?branch=stable-1)](https://coverage.example.org/tallyho)
-
 Tallyho counts things.
"""


# the manual repeats the title and the first sentence, never had the badges
MANUAL = "# Tallyho\n\nTallyho counts things.\n\n## Counting\n\nCall count().\n"


def test_a_removal_whose_lines_upstream_rewrote_in_place_is_not_upstream(tmp_path: Path) -> None:
    # the badges now name another branch: the lines are still there, changed; the manual,
    # which holds the hunk's context without the badges, is not where the removal went
    new = README_OLD.replace("stable-1", "main")
    (verdict,) = judge(
        tmp_path,
        {"README.md": new, "MANUAL.md": MANUAL},
        [("no-badges.patch", NO_BADGES)],
        old={"README.md": README_OLD, "MANUAL.md": MANUAL},
    )
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
    assert (verdict.hunks[0].status, verdict.hunks[0].moved_to) == ("fails", None)


def test_a_removal_upstream_made_is_still_upstream(tmp_path: Path) -> None:
    # upstream dropped the badges (and reworded the sentence): nothing they name is left
    new = "# Tallyho\n\nTallyho counts things, fast.\n"
    (verdict,) = judge(
        tmp_path,
        {"README.md": new},
        [("no-badges.patch", NO_BADGES)],
        old={"README.md": README_OLD},
    )
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
