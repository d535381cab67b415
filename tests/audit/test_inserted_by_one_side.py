"""A hunk that only inserts lines, whose whole context on one side is in the new release as
it was while upstream edited the line right beside it on the other side (wrapped a condition
over two lines) or spaced it out (a blank line added where the patch inserts), is refreshed
(carried): git's merge stops on the two changes side by side and fuzz leaves the edited line
in, yet the maintainer refreshes the patch with its lines as they were. The shapes of a
receiver's plotting client and of a package manager's C initialiser."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_support import judge

PLOT_OLD = """\
class polarplot(plotter):
    def sample(self, sats):
        used = 0
        for sat in sats:
            if sat['used'] is True:
                used += 1
                if 'polarunused' == self.name:
                    continue
            if (('polarused' == self.name) and (sat['used'] is False)):
                continue
            self.fixes.append((sat['PRN'], sat['ss'], sat['az'],
                               sat['el'], sat['used']))
        return used
"""
# upstream wrapped the condition after the insertion over two lines
PLOT_NEW = PLOT_OLD.replace(
    "            if (('polarused' == self.name) and (sat['used'] is False)):\n",
    "            if (('polarused' == self.name and\n                 sat['used'] is False)):\n",
)
BOOLEAN = """Subject: make the used flag a boolean
---
--- a/clients/plot.py
+++ b/clients/plot.py
@@ -6,6 +6,8 @@ class polarplot(plotter):
                 used += 1
                 if 'polarunused' == self.name:
                     continue
+            else:
+                sat['used'] = False
             if (('polarused' == self.name) and (sat['used'] is False)):
                 continue
             self.fixes.append((sat['PRN'], sat['ss'], sat['az'],
"""

SACK_OLD = """\
static void
sack_init(Sack *sack)
{
    SackPrivate *priv = GET_PRIVATE(sack);
    priv->pool = pool_create();
    pool_set_flag(priv->pool, POOL_FLAG_ADDFILEPROVIDES, 1);
    priv->running_kernel_id = -1;
    priv->running_kernel_fn = running_kernel;
    priv->considered_uptodate = TRUE;
}
"""
# upstream added a blank line where the patch inserts its line
SACK_NEW = SACK_OLD.replace("1);\n    priv->running", "1);\n\n    priv->running")
DISTTYPE = """Subject: set the default disttype
---
--- a/src/sack.c
+++ b/src/sack.c
@@ -4,6 +4,7 @@ sack_init(Sack *sack)
     SackPrivate *priv = GET_PRIVATE(sack);
     priv->pool = pool_create();
     pool_set_flag(priv->pool, POOL_FLAG_ADDFILEPROVIDES, 1);
+    pool_setdisttype(priv->pool, DISTTYPE_RPM);
     priv->running_kernel_id = -1;
     priv->running_kernel_fn = running_kernel;
     priv->considered_uptodate = TRUE;
"""


def refresh(how: str) -> str:
    return f"its 1 hunk (1 file) lands with its + and - lines unchanged ({how})"


ONE_SIDE = "by its whole context on one side, upstream having edited the other"


@pytest.mark.parametrize(
    ("path", "old", "new", "patch"),
    [
        pytest.param(
            "clients/plot.py",
            PLOT_OLD,
            PLOT_NEW,
            ("boolean.patch", BOOLEAN),
            id="beside-a-wrapped-condition",
        ),
        pytest.param(
            "src/sack.c",
            SACK_OLD,
            SACK_NEW,
            ("disttype.patch", DISTTYPE),
            id="where-upstream-added-a-blank-line",
        ),
    ],
)
def test_an_insertion_beside_an_edit_on_one_side_is_carried(
    tmp_path: Path, path: str, old: str, new: str, patch: tuple[str, str]
) -> None:
    (verdict,) = judge(tmp_path, {path: new}, [patch], old={path: old})
    assert (verdict.verdict, verdict.action, verdict.refresh) == (
        "conflict",
        "carry",
        refresh(ONE_SIDE),
    )
    assert verdict.summary.startswith(f"{path} #1 fails at fuzz 0")


@pytest.mark.parametrize(
    ("new", "why"),
    [
        pytest.param(
            PLOT_NEW.replace("'polarused' == self.name and", "'polarused' == self.mode and"),
            "upstream took a name out of the line beside the insertion: another line",
            id="name-taken-out",
        ),
        pytest.param(
            PLOT_NEW.replace(
                "                    continue\n            if (('polarused'",
                "                    continue\n            self.count(sat)\n            if (('polarused'",
            ),
            "upstream wrote a line of its own where the patch inserts",
            id="upstream-code-between",
        ),
        pytest.param(
            PLOT_NEW.replace(
                "                continue\n            self.fixes",
                "                break\n            self.fixes",
            ),
            "a second line beside the insertion changed: more than the line beside it",
            id="two-lines-changed",
        ),
        pytest.param(
            PLOT_NEW.replace("                used += 1\n", "                used += 2\n"),
            "the context before the insertion is not there whole: nothing anchors it",
            id="anchor-edited-too",
        ),
    ],
)
def test_an_insertion_whose_place_cannot_be_told_is_ported(
    tmp_path: Path, new: str, why: str
) -> None:
    (verdict,) = judge(
        tmp_path,
        {"clients/plot.py": new},
        [("boolean.patch", BOOLEAN)],
        old={"clients/plot.py": PLOT_OLD},
    )
    assert (verdict.verdict, verdict.action, verdict.refresh) == ("conflict", "port", ""), why


def test_an_insertion_whose_anchor_is_in_the_file_twice_is_ported(tmp_path: Path) -> None:
    twice = SACK_NEW + "\n" + SACK_NEW.replace("sack_init", "sack_reset")
    (verdict,) = judge(
        tmp_path,
        {"src/sack.c": twice},
        [("disttype.patch", DISTTYPE)],
        old={"src/sack.c": SACK_OLD + "\n" + SACK_OLD.replace("sack_init", "sack_reset")},
    )
    assert (verdict.verdict, verdict.action, verdict.refresh) == ("conflict", "port", "")
