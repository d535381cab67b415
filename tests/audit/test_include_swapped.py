"""A C or C++ patch that only swaps ``#include`` lines (a bundled copy's header for the
system's), failing where upstream rewrote the lines around them, while the new release's
file includes the header the patch swaps in, spelled its own way, and no longer the one it
swaps out: a person looks (upstream may have de-vendored on its own, or still find its
bundled copy by an include path of its build), not a port. The shape of a Debian
de-vendoring patch of a C++ library that bundles utf8cpp."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

OLD = """#include <stdio.h>

#ifdef USE_HUNTER
#  include <utf8.h>
#else
#  include "../contrib/utf8cpp/source/utf8.h"
#endif

#include <memory>

int count(const char *text) {
    return (int) utf8::distance(text, text + strlen(text));
}
"""

SYSTEM_UTF8 = """Subject: Make sure to include utf8.h from the system
---
--- a/code/Encoding.cpp
+++ b/code/Encoding.cpp
@@ -3,7 +3,7 @@
 #ifdef USE_HUNTER
 #  include <utf8.h>
 #else
-#  include "../contrib/utf8cpp/source/utf8.h"
+#  include <utf8.h>
 #endif
 
 #include <memory>
"""

# the release dropped the build switch and names the header by its own name
NEW = OLD.replace(
    '#ifdef USE_HUNTER\n#  include <utf8.h>\n#else\n#  include "../contrib/utf8cpp/source/utf8.h"\n'
    "#endif\n",
    '#include "utf8.h"\n',
)


def test_upstream_including_the_swapped_in_header_is_a_look(tmp_path: Path) -> None:
    old, new = {"code/Encoding.cpp": OLD}, {"code/Encoding.cpp": NEW}
    [verdict] = judge(tmp_path, new, [("system-utf8.patch", SYSTEM_UTF8)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == (
        "conflict",
        "look",
        "include-swapped",
    )
    assert verdict.rewritten == (
        "upstream includes the header it swaps in, spelled its own way, and no longer the "
        "one it swaps out: code/Encoding.cpp #1 swaps includes; code/Encoding.cpp includes "
        "`utf8.h`, not `../contrib/utf8cpp/source/utf8.h`"
    )
    assert verdict.summary.endswith(
        "to do: look (upstream includes the header it swaps in; decide whether its build "
        "uses the one the patch wants)"
    )


def test_the_bundled_header_still_included_is_no_swap(tmp_path: Path) -> None:
    # upstream includes utf8.h by name, but still the bundled copy too, in another branch
    new_text = NEW.replace(
        '#include "utf8.h"\n',
        '#ifdef USE_SYSTEM\n#include "utf8.h"\n#else\n'
        '#include "../contrib/utf8cpp/source/utf8.h"\n#endif\n',
    )
    old, new = {"code/Encoding.cpp": OLD}, {"code/Encoding.cpp": new_text}
    [verdict] = judge(tmp_path, new, [("system-utf8.patch", SYSTEM_UTF8)], old)
    assert verdict.rule != "include-swapped"
    assert (verdict.verdict, verdict.action) == ("conflict", "port")


def test_another_header_swapped_in_is_no_swap(tmp_path: Path) -> None:
    # upstream dropped the bundled include for another library's header
    new_text = NEW.replace('#include "utf8.h"\n', "#include <unicode/utf8.h>\n")
    old, new = {"code/Encoding.cpp": OLD}, {"code/Encoding.cpp": new_text}
    [verdict] = judge(tmp_path, new, [("system-utf8.patch", SYSTEM_UTF8)], old)
    assert verdict.rule != "include-swapped"
