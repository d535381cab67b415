"""A backported fix whose change to upstream's files is all in the new release, and which
also creates its regression test's data files (an input document, the expected error
output) that the new release ships under other names or not at all, is *upstreamed*: the
files it creates are set aside, not ported. A created source or configuration file is not
set aside. The shape of an XML library's schema fix in C."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_support import judge

OLD = """\
static void
schema_fixup_complex(schema_ctxt *ctxt, schema_type *type)
{
    schema_type *base = type->base_type;

    if (base->content_type == CONTENT_EMPTY)
        type->content_type = CONTENT_EMPTY;
    type->flags |= TYPE_FIXUP_DONE;
}
"""
FIXED = OLD.replace(
    "    schema_type *base = type->base_type;\n",
    "    schema_type *base = type->base_type;\n\n    if (base == NULL)\n        return;\n",
)
NEW = FIXED.replace("static void\n", "static void /* fixed up once */\n")
FIX = """Subject: fix a null dereference in schema_fixup_complex
---
--- a/schemas.c
+++ b/schemas.c
@@ -2,6 +2,9 @@
 schema_fixup_complex(schema_ctxt *ctxt, schema_type *type)
 {
     schema_type *base = type->base_type;
+
+    if (base == NULL)
+        return;
 
     if (base->content_type == CONTENT_EMPTY)
         type->content_type = CONTENT_EMPTY;
--- /dev/null
+++ b/result/schemas/issue_0.err
@@ -0,0 +1,2 @@
+./test/schemas/issue_0.xsd:3: element complexType: Schemas parser error
+WXS schema ./test/schemas/issue_0.xsd failed to compile
--- /dev/null
+++ b/test/schemas/issue_0.xsd
@@ -0,0 +1,4 @@
+<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
+  <xs:complexType name="t1"><xs:simpleContent><xs:extension base="t2"/></xs:simpleContent>
+  </xs:complexType>
+</xs:schema>
"""
SET_ASIDE = (
    "its change to the files it patches is upstream (schemas.c #1); only files it creates "
    "are not, its tests' data, set aside: result/schemas/issue_0.err, test/schemas/issue_0.xsd"
)


def test_a_fix_upstream_has_without_its_test_data_is_retired(tmp_path: Path) -> None:
    (verdict,) = judge(tmp_path, {"schemas.c": NEW}, [("fix.patch", FIX)], old={"schemas.c": OLD})
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.rule == "only-created-left"
    assert verdict.summary.startswith(SET_ASIDE + "; ")


@pytest.mark.parametrize(
    ("patch", "why"),
    [
        pytest.param(
            FIX.replace("result/schemas/issue_0.err", "src/schema_check.c"),
            "a source file it creates is code the rest may need: not set aside",
            id="creates-a-source-file",
        ),
        pytest.param(
            FIX.replace("result/schemas/issue_0.err", "setup.cfg"),
            "a configuration file it creates is never waived",
            id="creates-configuration",
        ),
    ],
)
def test_a_fix_that_creates_code_is_still_ported(tmp_path: Path, patch: str, why: str) -> None:
    (verdict,) = judge(tmp_path, {"schemas.c": NEW}, [("fix.patch", patch)], old={"schemas.c": OLD})
    assert (verdict.verdict, verdict.action) == ("partially upstreamed", "port"), why
    assert verdict.rule == "partly-present", why


def test_a_fix_upstream_lacks_is_carried_with_its_test_data(tmp_path: Path) -> None:
    (verdict,) = judge(tmp_path, {"schemas.c": OLD}, [("fix.patch", FIX)], old={"schemas.c": OLD})
    assert (verdict.verdict, verdict.action) == ("clean", "carry")
