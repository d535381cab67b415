"""A fix whose conditions upstream wrote into the loop before the one the patch changes: the
patch's context is untouched, so it still applies at fuzz 0, and applying it would put the
same block of conditions into the file a second time. The audit calls it *upstreamed*; a
block the old pin already had, or one of fewer than three substantive lines, proves
nothing and the patch is carried."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

OLD = """static void free_list(struct item *cur)
{
    while (1) {
        while ((cur->first != NULL) &&
               (cur->kind != ITEM_LINK)) {
            cur = cur->first;
        }
        next = cur->next;
        if ((cur->kind != ITEM_TEXT) &&
            (cur->kind != ITEM_LINK) &&
            (cur->data != cur->inline_data)) {
            release(cur->data);
        }
        cur = next;
    }
}
"""

# upstream stops the descent at nested lists first: the same conditions, one loop earlier
NEW = OLD.replace(
    """        while ((cur->first != NULL) &&
""",
    """        while ((cur->first != NULL) &&
               (cur->kind != ITEM_LIST) &&
#ifdef WITH_TABLES
               (cur->kind != ITEM_TABLE) &&
#endif
               (cur->kind != ITEM_GROUP) &&
""",
)

FIX = """--- a/src/list.c
+++ b/src/list.c
@@ -9,5 +9,10 @@ static void free_list(struct item *cur)
         if ((cur->kind != ITEM_TEXT) &&
             (cur->kind != ITEM_LINK) &&
+            (cur->kind != ITEM_LIST) &&
+#ifdef WITH_TABLES
+            (cur->kind != ITEM_TABLE) &&
+#endif
+            (cur->kind != ITEM_GROUP) &&
             (cur->data != cur->inline_data)) {
             release(cur->data);
         }
"""

SHORT = """--- a/src/list.c
+++ b/src/list.c
@@ -9,5 +9,6 @@ static void free_list(struct item *cur)
         if ((cur->kind != ITEM_TEXT) &&
             (cur->kind != ITEM_LINK) &&
+            (cur->kind != ITEM_LIST) &&
             (cur->data != cur->inline_data)) {
             release(cur->data);
         }
"""


def test_patch_whose_block_upstream_wrote_elsewhere_is_upstreamed(tmp_path: Path) -> None:
    [verdict] = judge(
        tmp_path, {"src/list.c": NEW}, [("free-nested.patch", FIX)], {"src/list.c": OLD}
    )
    assert (verdict.verdict, verdict.action, verdict.rule) == (
        "upstreamed",
        "retire",
        "added-elsewhere",
    )
    assert verdict.summary == (
        "the new release already has the lines it inserts, whole, elsewhere in the file "
        "(src/list.c #1 at line 5; the old pin's file has them fewer times): applied, the "
        "patch would add them a second time; 4 of 4 substantive added lines already upstream "
        "(strongest: src/list.c 4/4); to do: retire (upstream has it)"
    )


def test_block_the_old_pin_already_had_proves_nothing(tmp_path: Path) -> None:
    # the pin had the conditions in the first loop already: the patch copies them on purpose
    [verdict] = judge(
        tmp_path, {"src/list.c": NEW}, [("free-nested.patch", FIX)], {"src/list.c": NEW}
    )
    assert (verdict.verdict, verdict.action, verdict.rule) == ("offset", "carry", "applies")


def test_one_line_found_elsewhere_is_too_common_to_tell(tmp_path: Path) -> None:
    [verdict] = judge(
        tmp_path, {"src/list.c": NEW}, [("free-list.patch", SHORT)], {"src/list.c": OLD}
    )
    assert (verdict.verdict, verdict.action, verdict.rule) == ("offset", "carry", "applies")


def test_without_the_old_pin_nothing_is_proved(tmp_path: Path) -> None:
    [verdict] = judge(tmp_path, {"src/list.c": NEW}, [("free-nested.patch", FIX)])
    assert (verdict.verdict, verdict.action, verdict.rule) == ("offset", "carry", "applies")
