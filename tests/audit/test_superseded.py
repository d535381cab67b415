"""Class 5's converse: a patch that fails only because upstream carries a later patch's
rewrite of its lines is upstream (superseded), and the later patch, which needs its lines, is
judged as if it had applied: not *blocked* by a patch that is upstream after all."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

OLD = """import re


def parse(line):
    name, value = line.split(":", 1)
    return name, value
"""

FIRST = """Subject: validate header names
---
--- a/pkg/message.py
+++ b/pkg/message.py
@@ -1,6 +1,8 @@
 import re
 
+HEADER_RE = re.compile(r"[^!#$%&'*+.^_|~0-9a-zA-Z-]")
+
 
 def parse(line):
     name, value = line.split(":", 1)
     return name, value
"""

SECOND = """Subject: parse tokens as the RFC says
---
--- a/pkg/message.py
+++ b/pkg/message.py
@@ -1,8 +1,10 @@
 import re
 
-HEADER_RE = re.compile(r"[^!#$%&'*+.^_|~0-9a-zA-Z-]")
+TOKEN_RE = re.compile(r"[!#$%&'*+.^_|~0-9a-zA-Z-]+")
 
 
 def parse(line):
     name, value = line.split(":", 1)
+    if not TOKEN_RE.fullmatch(name):
+        raise InvalidHeaderName(name)
     return name, value
"""

NEW = """import re

TOKEN_RE = re.compile(r"[!#$%&'*+.^_|~0-9a-zA-Z-]+")


def parse(line):
    name, value = line.split(":", 1)
    if not TOKEN_RE.fullmatch(name):
        raise InvalidHeaderName(name)
    return name, value
"""


def test_a_patch_a_later_upstream_patch_rewrites_does_not_block_it(tmp_path: Path) -> None:
    first, second = judge(
        tmp_path,
        {"pkg/message.py": NEW},
        [("0001-header.patch", FIRST), ("0002-token.patch", SECOND)],
        {"pkg/message.py": OLD},
    )
    assert (first.verdict, first.action) == ("upstreamed", "retire")
    assert first.summary.startswith(
        "superseded: the later patch 0002-token.patch rewrites every line its failing hunks "
        "add, and the new upstream carries it; "
    )
    assert (second.verdict, second.action, second.blocked_by) == ("upstreamed", "retire", None)
    # upstream wrote its own token check (not the later patch's): the first conflicts and
    # the second, which needs its line, is blocked by it
    other = NEW.replace("TOKEN_RE", "NAME_RE")
    first, second = judge(
        tmp_path / "b",
        {"pkg/message.py": other},
        [("0001-header.patch", FIRST), ("0002-token.patch", SECOND)],
        {"pkg/message.py": OLD},
    )
    assert (first.verdict, second.verdict, second.blocked_by) == (
        "conflict",
        "blocked",
        "0001-header.patch",
    )
