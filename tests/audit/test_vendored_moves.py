"""A file of a vendored subtree that upstream moved deeper (``third_party/upb/`` to
``third_party/upb-with-bazel/src/``) is found by its content and named, beside another
vendored copy of the same file name that holds other code: a patch whose fix the new place
has is upstream there, one whose fix it lacks is ported onto it."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

DECODE_OLD = """#include <stdio.h>
#include "upb/decode.h"

static int decode_field(const char *buf, size_t len) {
  if (len == 0) {
    return -1;
  }
  int tag = buf[0];
  return tag & 0x7;
}

static int decode_message(const char *buf, size_t len) {
  int n = 0;
  while (len > 0) {
    n += decode_field(buf, len);
    len--;
  }
  return n;
}
"""
DECODE_FIXED = DECODE_OLD.replace("  if (len == 0) {", "  if (len == 0 || buf == NULL) {")

# another vendored library's file of the same name: it shares the includes and the braces
OTHER_DECODE = """#include <stdio.h>
#include "upb/decode.h"

int decode_varint(const char *buf) {
  return buf[0] & 0x7f;
}
"""

NULL_GUARD = """Subject: guard a NULL buffer
---
--- a/third_party/upb/upb/decode.c
+++ b/third_party/upb/upb/decode.c
@@ -3,7 +3,7 @@
 
 static int decode_field(const char *buf, size_t len) {
-  if (len == 0) {
+  if (len == 0 || buf == NULL) {
     return -1;
   }
   int tag = buf[0];
"""

BASE = {
    "setup.py": "from setuptools import setup\nsetup(name='grpcio')\n",
    "third_party/protobuf/upb/decode.c": OTHER_DECODE,
}
PIN = {**BASE, "third_party/upb/upb/decode.c": DECODE_OLD}
DEEPER = "third_party/upb-with-bazel/src/upb/decode.c"


def test_a_fix_the_deeper_place_has_is_upstream_there(tmp_path: Path) -> None:
    new = {**BASE, DEEPER: DECODE_FIXED}
    [verdict] = judge(tmp_path, new, [("null.patch", NULL_GUARD)], old=PIN)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.rule == "file-moved"
    assert [(m.path, m.likely) for m in verdict.moved] == [("third_party/upb/upb/decode.c", DEEPER)]
    assert verdict.summary.startswith(
        f"third_party/upb/upb/decode.c moved to {DEEPER}; every hunk's post-image is there "
        f"({DEEPER} #1)"
    )


def test_a_fix_the_deeper_place_lacks_is_ported_onto_it(tmp_path: Path) -> None:
    new = {**BASE, DEEPER: DECODE_OLD}
    [verdict] = judge(tmp_path, new, [("null.patch", NULL_GUARD)], old=PIN)
    assert (verdict.verdict, verdict.action) == ("target gone", "port")
    assert verdict.summary == (
        f"third_party/upb/upb/decode.c no longer exists; likely moved to {DEEPER} (same name: "
        "4 of 4 context lines found there); to do: port (onto the file its content moved to)"
    )
