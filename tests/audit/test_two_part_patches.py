"""A patch of two diffs of one file (two commits joined into one patch file) numbers the
first hunk of each diff #1: the audit tells its hunks apart by their line in the patch
file, so each hunk is judged as itself, never as the other #1."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

GREET = '''"""Greetings and sums."""

import sys


def greet(name):
    """Say hello to ``name``."""
    {greet}


def shout(name):
    """Say hello loudly."""
    return greet(name).upper()


def log(text):
    """Write ``text`` to standard error."""
    sys.stderr.write(text + "\\n")


def add(a, b):
    """The sum of ``a`` and ``b``."""
    return a + b
'''
# the first part is upstream, the second is not
GREET_PATCH = '''From: Pkg Developer <dev@example.org>
Subject: [PATCH 1/2] greet with a comma

---
--- a/pkg/greet.py
+++ b/pkg/greet.py
@@ -5,7 +5,7 @@ import sys
 
 def greet(name):
     """Say hello to ``name``."""
-    return "Hello " + name
+    return "Hello, " + name + "!"
 
 
 def shout(name):

From: Pkg Developer <dev@example.org>
Subject: [PATCH 2/2] add numbers given as text

---
--- a/pkg/greet.py
+++ b/pkg/greet.py
@@ -20,4 +20,4 @@ def log(text):
 
 def add(a, b):
     """The sum of ``a`` and ``b``."""
-    return a + b
+    return int(a) + int(b)
'''


def test_the_part_upstream_has_is_dropped_and_the_other_carried(tmp_path: Path) -> None:
    [judged] = judge(
        tmp_path,
        {"pkg/greet.py": GREET.format(greet='return "Hello, " + name + "!"')},
        [("greet.patch", GREET_PATCH)],
        old={"pkg/greet.py": GREET.format(greet='return "Hello " + name')},
    )
    assert (judged.verdict, judged.action, judged.summary) == (
        "partially upstreamed",
        "port",
        "already upstream: pkg/greet.py #1 (@@ -5,7 +5,7 @@); still to carry: "
        "pkg/greet.py #1 (@@ -20,4 +20,4 @@); 1 of 2 substantive added lines already "
        "upstream (strongest: pkg/greet.py 1/2); to do: port (drop the hunks upstream has)",
    )
    assert [(h.index, h.header, h.status, h.patch_line) for h in judged.hunks] == [
        (1, "@@ -5,7 +5,7 @@ import sys", "present", 7),
        (1, "@@ -20,4 +20,4 @@ def log(text):", "applies", 23),
    ]


PARSE = '''def parse(text):
    """Split ``text`` into words."""
    words = text.split()
    return [w.strip(",.") for w in words]
'''
REST = '''def join(words):
    """Join ``words`` with spaces."""
    return " ".join(words)


def home():
    """The home directory."""
    return os.environ["HOME"]
'''
# the first part changes parse(), which upstream moved to pkg/b.py; the second applies
TOOLS_PATCH = '''From: Pkg Developer <dev@example.org>
Subject: [PATCH 1/2] parse words in lower case

---
--- a/pkg/a.py
+++ b/pkg/a.py
@@ -5,7 +5,7 @@ import os
 
 def parse(text):
     """Split ``text`` into words."""
-    words = text.split()
+    words = text.lower().split()
     return [w.strip(",.") for w in words]
 
 

From: Pkg Developer <dev@example.org>
Subject: [PATCH 2/2] find the home directory without HOME

---
--- a/pkg/a.py
+++ b/pkg/a.py
@@ -17,4 +17,4 @@ def join(words):
 
 def home():
     """The home directory."""
-    return os.environ["HOME"]
+    return os.path.expanduser("~")
'''


def test_the_part_whose_code_moved_is_refreshed_onto_its_new_file(tmp_path: Path) -> None:
    [judged] = judge(
        tmp_path,
        {
            "pkg/a.py": '"""Tools."""\n\nimport os\n\nfrom pkg.b import parse\n\n\n' + REST,
            "pkg/b.py": '"""Parsing."""\n\n\n' + PARSE,
        },
        [("tools.patch", TOOLS_PATCH)],
    )
    assert (judged.verdict, judged.action) == ("conflict", "carry")
    assert judged.refresh == (
        "its code moved to another file, where it lands with its + and - lines unchanged: "
        "pkg/a.py #1 (@@ -5,7 +5,7 @@) in pkg/b.py"
    )
    assert [(h.index, h.status, h.moved_to, h.patch_line) for h in judged.hunks] == [
        (1, "fails", "pkg/b.py", 7),
        (1, "applies", None, 23),
    ]
