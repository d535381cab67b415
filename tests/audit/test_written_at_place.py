"""A hunk that only inserts lines fails where upstream wrote, between the same two sides of
context, lines holding every line it inserts (a brace, a counter and another comment of its
own): upstream likely made the same change at the same place, so the patch is not a conflict
to port; what upstream wrote around the lines may do more, so it is *partially upstreamed*
and a person decides (*look*). The shape of a network daemon's cookie check in C."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_support import judge

OLD = """\
bool nts_unpack_cookie(uint8_t *cookie, int cookielen)
{
\tstruct key *key;
\tint i;

\tif (NULL == cookie_ctx)
\t\treturn false;\t/* We aren't initialized yet. */

\t/* We may get garbage from the net */
\tif (cookielen > MAX_COOKIELEN)
\t\treturn false;

\tfor (i = 0; i < n_keys; i++) {
\t\tkey = &keys[i];
\t}
\treturn true;
}
"""
UPSTREAM_CHECK = """\
\tif (0 == n_keys) {
\t\tcounters.cookie_not_server++;
\t\treturn false;  /* We are not a server. */
\t}

"""
# upstream wrote its own check where the patch inserts one
NEW = OLD.replace(
    "\t/* We may get garbage from the net */\n",
    UPSTREAM_CHECK + "\t/* We may get garbage from the net */\n",
)
CHECK = """Subject: fix a crash on cookies when no key is loaded
---
--- a/src/cookie.c
+++ b/src/cookie.c
@@ -6,6 +6,9 @@ bool nts_unpack_cookie(uint8_t *cookie, int cookielen)
 \tif (NULL == cookie_ctx)
 \t\treturn false;\t/* We aren't initialized yet. */
 
+\tif (0 == n_keys)
+\t\treturn false;\t/* No cookies: we are not a server. */
+
 \t/* We may get garbage from the net */
 \tif (cookielen > MAX_COOKIELEN)
 \t\treturn false;
"""
WRITTEN = (
    "upstream wrote at its place lines holding the ones src/cookie.c #1 inserts, comments "
    "aside: `if (0 == n_keys) {` (5 lines)"
)
LOOK = "to do: look (upstream wrote its lines at their place; decide whether that is its fix)"


def test_a_check_upstream_wrote_at_its_place_is_looked_at(tmp_path: Path) -> None:
    (verdict,) = judge(
        tmp_path,
        {"src/cookie.c": NEW},
        [("check.patch", CHECK)],
        old={"src/cookie.c": OLD},
    )
    assert (verdict.verdict, verdict.action) == ("partially upstreamed", "look")
    assert verdict.rule == "written-at-place"
    assert verdict.summary.startswith(WRITTEN + "; ")
    assert verdict.summary.endswith(LOOK)


def test_without_the_pin_the_lines_between_are_not_evidence(tmp_path: Path) -> None:
    # the lines between cannot be told upstream's new ones: the hunk is placed at fuzz as
    # quilt places it, as a refresh
    (verdict,) = judge(tmp_path, {"src/cookie.c": NEW}, [("check.patch", CHECK)])
    assert (verdict.verdict, verdict.action) == ("conflict", "carry")


@pytest.mark.parametrize(
    ("new", "old", "why"),
    [
        pytest.param(
            NEW.replace("if (0 == n_keys) {", "if (0 == n_servers) {"),
            OLD,
            "upstream's check tests another name: not the patch's line",
            id="another-condition",
        ),
        pytest.param(
            NEW.replace(UPSTREAM_CHECK, UPSTREAM_CHECK + "\tlog_cookie(cookie);\n" * 8),
            OLD,
            "upstream wrote a whole block there: too many lines to tell the patch's by",
            id="gap-too-long",
        ),
        pytest.param(
            NEW + "\n" + NEW.replace("nts_unpack_cookie", "nts_check_cookie"),
            OLD + "\n" + OLD.replace("nts_unpack_cookie", "nts_check_cookie"),
            "the two sides of context meet at two places: the place is not told",
            id="two-places",
        ),
    ],
)
def test_an_insertion_not_written_at_its_place_is_ported(
    tmp_path: Path, new: str, old: str, why: str
) -> None:
    (verdict,) = judge(
        tmp_path, {"src/cookie.c": new}, [("check.patch", CHECK)], old={"src/cookie.c": old}
    )
    assert (verdict.verdict, verdict.action) == ("conflict", "port"), why
