"""A patch that rewrites every line of a file holding some text the same way (each
``$(wildcard X)`` of a Makefile wrapped in ``$(sort ...)`` for a reproducible build) is
written for the lines the pin has. When the new release adds lines of that kind (a new
architecture's sources), the patch still applies, yet it no longer does what it is for: a
maintainer extends it to them, a port, not a carry."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_support import judge


def arch(name: str) -> str:
    return (
        f"DEP_{name} =\n"
        f"DEP_{name} += $(wildcard arch/{name}/{name}*.inc)\n"
        f"ifneq (,$(findstring {name.lower()},$(ARCHS)))\n"
        f"\tLIBSRC_{name} += $(wildcard arch/{name}/{name}*.c)\n"
        "endif\n\n"
    )


OLD = "LIBNAME = capstone\n\n" + arch("ARM") + arch("MIPS") + "all: $(LIBNAME)\n"
# the new release adds an architecture, right before the end of the patch's hunk: git's merge
# places the patch (a refresh) and the new lines are left as they were
NEW = OLD.replace("all: $(LIBNAME)\n", arch("SH") + "all: $(LIBNAME)\n")

SORT = """Subject: enforce order on wildcard operations for reproducible builds
---
--- a/Makefile
+++ b/Makefile
@@ -3,13 +3,13 @@ LIBNAME = capstone
 DEP_ARM =
-DEP_ARM += $(wildcard arch/ARM/ARM*.inc)
+DEP_ARM += $(sort $(wildcard arch/ARM/ARM*.inc))
 ifneq (,$(findstring arm,$(ARCHS)))
-\tLIBSRC_ARM += $(wildcard arch/ARM/ARM*.c)
+\tLIBSRC_ARM += $(sort $(wildcard arch/ARM/ARM*.c))
 endif
 
 DEP_MIPS =
-DEP_MIPS += $(wildcard arch/MIPS/MIPS*.inc)
+DEP_MIPS += $(sort $(wildcard arch/MIPS/MIPS*.inc))
 ifneq (,$(findstring mips,$(ARCHS)))
-\tLIBSRC_MIPS += $(wildcard arch/MIPS/MIPS*.c)
+\tLIBSRC_MIPS += $(sort $(wildcard arch/MIPS/MIPS*.c))
 endif
 
 all: $(LIBNAME)
"""
EXTEND = (
    "it rewrites every line of Makefile with `+= $(wildcard arch/` the same way (4 lines), "
    "and the new release has 6 such lines against 4 at the pin: extend it to the new ones"
)


def test_a_systematic_rewrite_with_new_places_is_ported(tmp_path: Path) -> None:
    (verdict,) = judge(tmp_path, {"Makefile": NEW}, [("sort.patch", SORT)], old={"Makefile": OLD})
    assert (verdict.verdict, verdict.action, verdict.new_places) == ("conflict", "port", EXTEND)
    assert verdict.summary.endswith(
        "to do: port (extend it to the new places of the text it rewrites)"
    )


@pytest.mark.parametrize(
    ("patch", "new", "why"),
    [
        pytest.param(SORT, OLD, "no new place: the patch covers every line", id="no-new-line"),
        pytest.param(
            SORT.replace(
                "+\tLIBSRC_MIPS += $(sort $(wildcard arch/MIPS/MIPS*.c))",
                "+\tLIBSRC_MIPS += $(sort $(wildcard arch/MIPS/*.c))",
            ),
            NEW,
            "one line is rewritten otherwise: not one rewrite made everywhere",
            id="rewrites-differ",
        ),
        pytest.param(
            SORT.replace(
                " ifneq (,$(findstring mips,$(ARCHS)))\n"
                "-\tLIBSRC_MIPS += $(wildcard arch/MIPS/MIPS*.c)\n"
                "+\tLIBSRC_MIPS += $(sort $(wildcard arch/MIPS/MIPS*.c))\n",
                " ifneq (,$(findstring mips,$(ARCHS)))\n"
                " \tLIBSRC_MIPS += $(wildcard arch/MIPS/MIPS*.c)\n",
            ),
            NEW,
            "the patch leaves a line of that kind at the pin as it is: it is not made for"
            " every one of them",
            id="not-every-line",
        ),
    ],
)
def test_a_rewrite_that_covers_its_places_is_carried(
    tmp_path: Path, patch: str, new: str, why: str
) -> None:
    (verdict,) = judge(tmp_path, {"Makefile": new}, [("sort.patch", patch)], old={"Makefile": OLD})
    assert (verdict.action, verdict.new_places) == ("carry", ""), why
