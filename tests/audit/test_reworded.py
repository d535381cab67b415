"""A wording fix upstream made its own way over the same words: *look*, not *port*."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

HEADER_OLD = """struct Options {
  int downgrade;\t\t/* allow to downgrade an installed package */
  int rename;\t\t/* allow to change the name of an installed package */
  int verbose;
};
"""

GUIDE_OLD = """Options
=======

The solver can be told what it may do.

Newer versions also allow to keep the keys in a directory of their own.

See the manual for more.
"""

# Debian's wording fix: "allow to X" is "allow one to X"
WORDING = """Subject: Fix various typos
---
--- a/include/options.h
+++ b/include/options.h
@@ -1,5 +1,5 @@
 struct Options {
-  int downgrade;\t\t/* allow to downgrade an installed package */
-  int rename;\t\t/* allow to change the name of an installed package */
+  int downgrade;\t\t/* allow one to downgrade an installed package */
+  int rename;\t\t/* allow one to change the name of an installed package */
   int verbose;
 };
--- a/doc/guide.txt
+++ b/doc/guide.txt
@@ -3,6 +3,6 @@ Options

 The solver can be told what it may do.

-Newer versions also allow to keep the keys in a directory of their own.
+Newer versions also allow one to keep the keys in a directory of their own.

 See the manual for more.
"""

# upstream fixed the same words otherwise: "allow X-ing"
HEADER_NEW = """struct Options {
  int downgrade;\t\t/* allow downgrading an installed package */
  int rename;\t\t/* allow changing the name of an installed package */
  int verbose;
  int quiet;
};
"""

GUIDE_NEW = """Options
=======

The solver can be told what it may do.

Newer versions also allow keeping the keys in a directory of their own.

See the manual for more.
"""


def test_words_upstream_reworded_where_the_patch_fixes_them_are_a_look(tmp_path: Path) -> None:
    old = {"include/options.h": HEADER_OLD, "doc/guide.txt": GUIDE_OLD}
    new = {"include/options.h": HEADER_NEW, "doc/guide.txt": GUIDE_NEW}
    [verdict] = judge(tmp_path, new, [("typos.patch", WORDING)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "look")
    assert verdict.rule == "reworded-at-place"
    assert verdict.rewritten == (
        "upstream reworded at their place the words include/options.h #1, doc/guide.txt #1 "
        "change, in prose: `int downgrade;\t\t/* allow to downgrade an installed package */` "
        "is now `int downgrade;\t\t/* allow downgrading an installed package */`"
    )
    assert verdict.summary.endswith(
        f"; {verdict.rewritten}; to do: look (upstream changed the same lines; decide "
        "whether its change has the fix)"
    )


def test_other_words_of_the_line_reworded_are_a_port(tmp_path: Path) -> None:
    # upstream changed the end of the sentence, not the words the patch fixes
    guide = GUIDE_OLD.replace("a directory of their own", "their own directory")
    old = {"doc/guide.txt": GUIDE_OLD}
    new = {"doc/guide.txt": guide}
    patch = (
        "Subject: Fix a typo\n---\n--- a/doc/guide.txt\n"
        + WORDING.split("--- a/doc/guide.txt\n")[1]
    )
    [verdict] = judge(tmp_path, new, [("typo.patch", patch)], old)
    assert (verdict.verdict, verdict.action, verdict.rewritten) == ("conflict", "port", "")


def test_a_change_to_code_beside_the_comment_is_a_port(tmp_path: Path) -> None:
    # the patch renames the field: code, not prose, whatever upstream did to the comment
    rename = WORDING.split("--- a/doc/guide.txt")[0].replace(
        "+  int downgrade;\t\t/* allow one to", "+  int allow_downgrade;\t\t/* allow to"
    )
    rename = rename.replace(
        "+  int rename;\t\t/* allow one to", "+  int allow_rename;\t\t/* allow to"
    )
    old = {"include/options.h": HEADER_OLD}
    new = {"include/options.h": HEADER_NEW}
    [verdict] = judge(tmp_path, new, [("rename.patch", rename)], old)
    assert (verdict.verdict, verdict.action, verdict.rewritten) == ("conflict", "port", "")


def test_a_substituted_address_upstream_changed_is_a_port(tmp_path: Path) -> None:
    # a URL the patch points elsewhere is no wording fix: the substitution is still to port
    guide_old = GUIDE_OLD.replace(
        "See the manual for more.", "See https://example.org/v1/manual for more."
    )
    guide_new = GUIDE_OLD.replace(
        "See the manual for more.", "See https://example.org/v2/manual for more."
    )
    patch = (
        "Subject: Point to the local manual\n---\n--- a/doc/guide.txt\n+++ b/doc/guide.txt\n"
        "@@ -6,3 +6,3 @@ Newer versions also allow to keep the keys in a directory of their own.\n"
        " \n"
        "-See https://example.org/v1/manual for more.\n"
        "+See file:///usr/share/doc/example/manual for more.\n"
    )
    [verdict] = judge(
        tmp_path,
        {"doc/guide.txt": guide_new},
        [("local.patch", patch)],
        {"doc/guide.txt": guide_old},
    )
    assert (verdict.verdict, verdict.action, verdict.rewritten) == ("conflict", "port", "")
