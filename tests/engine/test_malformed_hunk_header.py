"""A hunk header edited by hand into one that does not parse.

The patch is a ``git format-patch`` mail in the shape of a real backport (two files, three
hunks); its third hunk's header lost its closing ``@@``. Read as text between hunks, the
hunk would be left out and the rest applied as if the patch were whole (``apply`` said
"applied", ``lint`` "no problems"); every command now refuses the patch at that header's
line, as GNU patch ("malformed patch") and ``git apply`` ("corrupt patch") do.
"""

from __future__ import annotations

import contextlib
import io
import os

import pytest
from engine_support import make_downstream, run, tree_state

from patchkeeper.main import main

CONTAINER = (
    "class Container:\n"
    "    def unwrap(self):\n"
    "        unwrapped = {}\n"
    "        for k, v in self.items():\n"
    "            if isinstance(k, Key):\n"
    "                k = k.key\n"
    "\n"
    "            if isinstance(v, Item):\n"
    "                v = v.unwrap()\n"
    "\n"
    "            unwrapped[k] = v\n"
    "        return unwrapped\n"
)
ITEMS = (
    "class Array:\n"
    "    def unwrap(self):\n"
    "        unwrapped = []\n"
    "        for v in self:\n"
    "            if isinstance(v, Item):\n"
    "                unwrapped.append(v.unwrap())\n"
    "            else:\n"
    "                unwrapped.append(v)\n"
    "        return unwrapped\n"
    "\n"
    "\n"
    "class Table:\n"
    "    def unwrap(self):\n"
    "        unwrapped = {}\n"
    "        for k, v in self.items():\n"
    "            if isinstance(k, Key):\n"
    "                k = k.key\n"
    "            if isinstance(v, Item):\n"
    "                v = v.unwrap()\n"
    "            unwrapped[k] = v\n"
    "        return unwrapped\n"
)

PATCH = """\
From 63f083cf6544113a6f549f5673d92243748cfba4 Mon Sep 17 00:00:00 2001
From: Dana Ops <dana@corp.example>
Date: Tue, 10 Jan 2023 09:12:00 +0000
Subject: [PATCH 1/5] Unwrap any value that has an unwrap method

Origin: backport
Forwarded: not-needed
---
 pkg/container.py | 2 +-
 pkg/items.py     | 4 ++--
 2 files changed, 3 insertions(+), 3 deletions(-)

diff --git a/pkg/container.py b/pkg/container.py
index 4b40a13..137333b 100644
--- a/pkg/container.py
+++ b/pkg/container.py
@@ -5,7 +5,7 @@ class Container:
             if isinstance(k, Key):
                 k = k.key
 
-            if isinstance(v, Item):
+            if hasattr(v, "unwrap"):
                 v = v.unwrap()
 
             unwrapped[k] = v
diff --git a/pkg/items.py b/pkg/items.py
index 77fa27d..75a490f 100644
--- a/pkg/items.py
+++ b/pkg/items.py
@@ -2,7 +2,7 @@ class Array:
     def unwrap(self):
         unwrapped = []
         for v in self:
-            if isinstance(v, Item):
+            if hasattr(v, "unwrap"):
                 unwrapped.append(v.unwrap())
             else:
                 unwrapped.append(v)
@@ -15,7 +15,7 @@ class Table:
         for k, v in self.items():
             if isinstance(k, Key):
                 k = k.key
-            if isinstance(v, Item):
+            if hasattr(v, "unwrap"):
                 v = v.unwrap()
             unwrapped[k] = v
         return unwrapped
-- \n2.39.5
"""

HEADER = "@@ -15,7 +15,7 @@ class Table:"
HEADER_LINE = PATCH.splitlines().index(HEADER) + 1
HINT = (
    "  hint: regenerate the patch, or correct the header's numbers and its closing '@@'; "
    "read as it is, the hunk it heads would be left out\n"
)


def _downstream(tmp_path, header: str):
    files = {"pkg/container.py": CONTAINER.encode(), "pkg/items.py": ITEMS.encode()}
    patch = PATCH.replace(HEADER, header).encode()
    return make_downstream(tmp_path, files, {"0001-unwrap.patch": patch})


def test_the_whole_patch_applies(tmp_path) -> None:
    """The fixture as written applies its three hunks (the cases below differ in one line)."""
    ds = _downstream(tmp_path, HEADER)
    outcome = run(ds, "apply")
    assert (outcome.code, outcome.out) == (
        0,
        f"applied 1 patch on directory {ds.target}: 2 files changed\n",
    )
    assert (ds.target / "pkg/items.py").read_text().count('hasattr(v, "unwrap")') == 2


@pytest.mark.parametrize(
    ("header", "shown"),
    [
        ("@@ -15,7 +15,7 class Table:", "'@@ -15,7 +15,7 class Table:'"),
        ("@@ -15,7 +15,x @@ class Table:", "'@@ -15,7 +15,x @@ class Table:'"),
        ("@@-15,7 +15,7 @@ class Table:", "'@@-15,7 +15,7 @@ class Table:'"),
    ],
)
@pytest.mark.parametrize("command", ["apply", "status", "verify", "unapply"])
def test_a_malformed_hunk_header_is_refused_at_its_line(tmp_path, header, shown, command) -> None:
    ds = _downstream(tmp_path, header)
    before = tree_state(ds.target)
    outcome = run(ds, command)
    assert (outcome.code, outcome.out) == (
        2,
        f"patchkeeper: error: {ds.patches}/0001-unwrap.patch:{HEADER_LINE}: malformed hunk "
        f"header {shown}: a hunk header is '@@ -START[,COUNT] +START[,COUNT] @@'\n{HINT}",
    )
    assert tree_state(ds.target) == before


def test_lint_names_the_malformed_header(tmp_path) -> None:
    """As ``init`` configures a ``git format-patch`` series (DEP-3 headers), the one finding
    is the header's."""
    ds = _downstream(tmp_path, "@@ -15,7 +15,7 class Table:")
    with (ds.down / "patchkeeper.toml").open("a") as config:
        config.write('[headers]\nschema = "dep3"\n')
    out = io.StringIO()
    before = os.getcwd()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            code = main(["-C", str(ds.down), "lint"])
        finally:
            os.chdir(before)
    assert (code, out.getvalue()) == (
        1,
        f"patches/0001-unwrap.patch:{HEADER_LINE}: PK304 malformed hunk header "
        "'@@ -15,7 +15,7 class Table:': a hunk header is '@@ -START[,COUNT] +START[,COUNT] @@': "
        "regenerate the patch, or correct the header's numbers and its closing '@@'; read as "
        "it is, the hunk it heads would be left out\n"
        "1 problem in 1 patch\n",
    )
