"""A patch that fails at fuzz 0 only because its context changed is carried (refreshed) when
git's three-way merge places its hunks with its own lines unchanged; one whose own lines
upstream changed is still ported, and without the old pin's tree there is no merge to tell."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from audit_support import judge

from helpers import SETTINGS_NEW as NEW
from helpers import SETTINGS_OLD as OLD
from helpers import WIDER_PATCH as WIDER
from patchkeeper.audit.refresh import changed_lines

# its context holds the line WIDER adds: it applies once WIDER is refreshed
TALLER = """Subject: taller default
---
--- a/pkg/settings.py
+++ b/pkg/settings.py
@@ -4,4 +4,4 @@
     colour = True
     width = 120
-    height = 24
+    height = 40
     return locals()
"""

REFRESH_TEXT = (
    "its 1 hunk (1 file) lands with its + and - lines unchanged (by git's three-way merge)"
)
TO_DO = "to do: carry (refresh it: its hunks land with their + and - lines unchanged)"


def test_changed_context_is_carried_refreshed(tmp_path: Path) -> None:
    wider, taller = judge(
        tmp_path,
        {"pkg/settings.py": NEW},
        [("wider.patch", WIDER), ("taller.patch", TALLER)],
        old={"pkg/settings.py": OLD},
    )
    assert (wider.verdict, wider.action) == ("conflict", "carry")
    assert wider.rule == "refresh"
    assert wider.refresh == REFRESH_TEXT
    assert wider.summary.endswith(f"; {REFRESH_TEXT}; {TO_DO}")
    # the refreshed patch's lines are there for the next patch: not blocked by it
    assert (taller.verdict, taller.action, taller.refresh) == ("clean", "carry", "")


def test_own_line_changed_upstream_is_ported(tmp_path: Path) -> None:
    new = NEW.replace("    width = 80\n", "    width = 100\n")
    (wider,) = judge(
        tmp_path, {"pkg/settings.py": new}, [("wider.patch", WIDER)], old={"pkg/settings.py": OLD}
    )
    assert (wider.verdict, wider.action, wider.refresh) == ("conflict", "port", "")


def test_without_the_pin_the_hunk_lands_at_fuzz(tmp_path: Path) -> None:
    # no base for a merge: its first context line left out, the hunk lands (fuzz 1)
    (wider,) = judge(tmp_path, {"pkg/settings.py": NEW}, [("wider.patch", WIDER)])
    assert (wider.verdict, wider.action) == ("conflict", "carry")
    assert wider.refresh == (
        "its 1 hunk (1 file) lands with its + and - lines unchanged (at fuzz 1)"
    )


CABINET_OLD = 'ext = [\n    "a",\n    "b",\n    "c",\n    "cabinet",\n    "d",\n    "e",\n]\n'
CABINET = """Subject: no cabinet
---
--- a/docs/conf.py
+++ b/docs/conf.py
@@ -2,7 +2,7 @@
     "a",
     "b",
     "c",
-    "cabinet",
+    # "cabinet",
     "d",
     "e",
 ]
"""


@pytest.mark.parametrize(
    ("new", "action", "refresh"),
    [
        pytest.param(
            # upstream reordered the lines on both sides of the change: git's merge
            # conflicts, fuzz 2 leaves too little, and the removed line occurs once: the
            # hunk lands there
            'ext = [\n    "a",\n    "x",\n    "b",\n    "cabinet",\n    "c",\n]\nmore = 1\n',
            "carry",
            "its 1 hunk (1 file) lands with its + and - lines unchanged (by its removed lines)",
            id="reordered-neighbours-land-by-the-removed-lines",
        ),
        pytest.param(
            'ext = [\n    "x",\n    "cabinet",\n    "y",\n]\nother = [\n    "cabinet",\n]\n',
            "port",
            "",
            id="removed-lines-found-twice-do-not-place-the-hunk",
        ),
    ],
)
def test_a_hunk_is_placed_by_its_removed_lines_only_where_they_occur_once(
    tmp_path: Path, new: str, action: str, refresh: str
) -> None:
    (verdict,) = judge(
        tmp_path,
        {"docs/conf.py": new},
        [("cabinet.patch", CABINET)],
        old={"docs/conf.py": CABINET_OLD},
    )
    assert (verdict.verdict, verdict.action, verdict.refresh) == ("conflict", action, refresh)


def test_merge_adding_a_line_upstream_has_is_not_a_refresh(tmp_path: Path) -> None:
    # upstream added the patch's new line elsewhere in the file: the merge would add it
    # twice, so whether upstream has the fix is not a refresh's to say
    patch = """Subject: log the width
---
--- a/pkg/settings.py
+++ b/pkg/settings.py
@@ -2,6 +2,7 @@
     debug = False
     verbose = False
     colour = True
-    width = 80
+    width = 120
+    log(width)
     height = 24
     return locals()
"""
    new = NEW.replace("    height = 24\n", "    height = 24\n    log(width)\n")
    (verdict,) = judge(
        tmp_path, {"pkg/settings.py": new}, [("log.patch", patch)], old={"pkg/settings.py": OLD}
    )
    assert (verdict.verdict, verdict.action, verdict.refresh) == ("conflict", "port", "")


def test_changed_lines_counts_removed_and_added() -> None:
    before = [b"a\n", b"b\n", b"c\n", b"d\n"]
    after = [b"a\n", b"B \n", b"c\n", b"d\n", b"e\n"]
    assert changed_lines(before, after) == (Counter({b"b": 1}), Counter({b"B": 1, b"e": 1}))
    assert changed_lines(before, before) == (Counter(), Counter())


def test_a_shebang_anchors_its_hunk(tmp_path: Path) -> None:
    # upstream put a comment under the interpreter line: git's merge conflicts, and the
    # replaced line (a comment to the line reader, yet it tells the place) occurs once
    old = "#!/usr/bin/env python\nfrom pkg import main\n\nmain()\n"
    new = "#!/usr/bin/env python\n# to be removed in 2.0\nfrom pkg import main\n\nmain()\n"
    patch = """Subject: python3 shebang
---
--- a/bin/tool.py
+++ b/bin/tool.py
@@ -1,4 +1,4 @@
-#!/usr/bin/env python
+#!/usr/bin/env python3
 from pkg import main
 
 main()
"""
    (verdict,) = judge(
        tmp_path, {"bin/tool.py": new}, [("shebang.patch", patch)], old={"bin/tool.py": old}
    )
    assert (verdict.verdict, verdict.action) == ("conflict", "carry")
    assert verdict.refresh == (
        "its 1 hunk (1 file) lands with its + and - lines unchanged (by its removed lines)"
    )


def test_a_short_removed_line_does_not_anchor_its_hunk(tmp_path: Path) -> None:
    old = "items = [\n    1,\n]\nend = True\n"
    new = "items = [\n    0,\n    1,\n]\nend = True\n"
    patch = """Subject: drop the item
---
--- a/pkg/items.py
+++ b/pkg/items.py
@@ -1,4 +1,3 @@
 items = [
-    1,
 ]
 end = True
"""
    (verdict,) = judge(
        tmp_path, {"pkg/items.py": new}, [("drop.patch", patch)], old={"pkg/items.py": old}
    )
    assert (verdict.verdict, verdict.action, verdict.refresh) == ("conflict", "port", "")


KEYGEN_OLD = '''"""Tests for the key generator."""
import subprocess
import sys
from io import StringIO


class KeyGenTests:
    def test_bad_keytype(self):
        filename = "key"
        subprocess.check_call(["keygen", "-t", "foo", "-f", filename])

    def test_other(self):
        return sys.argv, StringIO()
'''
# upstream imports os for a test of its own and annotates the tests it has
KEYGEN_NEW = '''"""Tests for the key generator."""
from __future__ import annotations

import os
import subprocess
import sys
from io import StringIO


class KeyGenTests:
    def test_bad_keytype(self) -> None:
        filename = "key"
        subprocess.check_call(["keygen", "-t", "foo", "-f", filename])

    def test_other(self) -> None:
        return sys.argv, StringIO()

    def test_environment(self) -> None:
        return os.environ
'''
KEYGEN_QUIET = """Subject: keep the keygen test quiet
---
--- a/tests/test_keygen.py
+++ b/tests/test_keygen.py
@@ -1,6 +1,7 @@
 \"\"\"Tests for the key generator.\"\"\"
 import subprocess
 import sys
+import os
 from io import StringIO
 
 
@@ -8,6 +9,7 @@ class KeyGenTests:
     def test_bad_keytype(self):
         filename = "key"
-        subprocess.check_call(["keygen", "-t", "foo", "-f", filename])
+        with open(os.devnull, "rb") as devnull:
+            subprocess.check_call(["keygen", "-t", "foo", "-f", filename], stderr=devnull)
 
     def test_other(self):
         return sys.argv, StringIO()
"""


def test_an_import_upstream_added_does_not_stop_a_refresh(tmp_path: Path) -> None:
    # the patch's ``import os`` is in the new release for upstream's own test: not the
    # patch's fix added elsewhere; git's merge keeps the patch's lines as they are
    (verdict,) = judge(
        tmp_path,
        {"tests/test_keygen.py": KEYGEN_NEW},
        [("quiet.patch", KEYGEN_QUIET)],
        old={"tests/test_keygen.py": KEYGEN_OLD},
    )
    assert (verdict.verdict, verdict.action) == ("conflict", "carry")
    assert [h.status for h in verdict.hunks] == ["present", "fails"]
    assert verdict.refresh == (
        "its 2 hunks (1 file) land with their + and - lines unchanged (by git's three-way merge)"
    )


DECODE_OLD = """import pytest


class TestDecode:
    def test_decode(self, jwt, key):
        token = jwt.encode({"a": 1}, key)
        jwt.decode(token, key, algorithms=["HS256"])

    def test_options(self, jwt, key):
        with pytest.warns(UserWarning):
            jwt.decode(b"x", key, algorithms=["HS256"], foo="bar")
"""
DECODE_CRIT = """Subject: reject unknown critical extensions
---
--- a/tests/test_decode.py
+++ b/tests/test_decode.py
@@ -9,3 +9,8 @@ class TestDecode:
     def test_options(self, jwt, key):
         with pytest.warns(UserWarning):
             jwt.decode(b"x", key, algorithms=["HS256"], foo="bar")
+
+    def test_rejects_unknown_crit(self, jwt):
+        token = jwt.encode({"a": 1}, "secret", headers={"crit": ["x"]})
+        with pytest.raises(ValueError):
+            jwt.decode(token, "secret", algorithms=["HS256"])
"""


def _decode_new(tests: int) -> str:
    """The new release's test file: ``tests`` tests upstream added after the patch's
    context, each with the decoding line the patch's test also has."""
    added = "".join(
        f"\n    def test_expired_{n}(self, jwt):\n"
        f"        token = jwt.encode({{'exp': {n}}}, \"secret\")\n"
        '        jwt.decode(token, "secret", algorithms=["HS256"])\n'
        for n in range(tests)
    )
    return DECODE_OLD + added


@pytest.mark.parametrize(
    ("tests", "action", "refresh"),
    [
        pytest.param(
            2,
            "carry",
            "its 1 hunk (1 file) lands with its + and - lines unchanged (at the file's old "
            "end, before the code upstream added after it)",
            id="a-line-the-file-repeats-is-a-construct",
        ),
        pytest.param(1, "port", "", id="a-line-the-file-has-once-was-added-elsewhere"),
    ],
)
def test_a_line_upstream_repeats_does_not_stop_a_refresh(
    tmp_path: Path, tests: int, action: str, refresh: str
) -> None:
    # upstream's new tests decode the way the patch's test does: a line the file has twice
    # is a construct it repeats; had upstream added it once, it may be the patch's code
    (verdict,) = judge(
        tmp_path,
        {"tests/test_decode.py": _decode_new(tests)},
        [("crit.patch", DECODE_CRIT)],
        old={"tests/test_decode.py": DECODE_OLD},
    )
    assert (verdict.verdict, verdict.action, verdict.refresh) == ("conflict", action, refresh)


# a chunked reader that reads the line ending a chunk in two places; the patch changes the
# second, and upstream rewrote that one (it now discards the trailers)
READER_OLD = """def read_chunks(self, rfile):
    while True:
        if self.chunk_length == self.position:
            rfile.readline()
        self.chunk_length = int(rfile.readline(), 16)
        self.position = 0
        if self.chunk_length == 0:
            rfile.readline()
            break
    return b''
"""
READER_NEW = READER_OLD.replace(
    "            rfile.readline()\n            break\n",
    "            self._discard_trailers(rfile)\n            break\n",
)
TRAILERS = """Subject: note that trailers are not read
---
--- a/pkg/reader.py
+++ b/pkg/reader.py
@@ -5,6 +5,6 @@
         self.chunk_length = int(rfile.readline(), 16)
         self.position = 0
         if self.chunk_length == 0:
-            rfile.readline()
+            rfile.readline()  # trailers are not read
             break
     return b''
"""


def test_removed_lines_that_recur_at_the_pin_do_not_place_the_hunk(tmp_path: Path) -> None:
    # the pin's file has the removed line twice: the one the new release still has is the
    # other one, so placing the hunk there would change another place of the code
    (verdict,) = judge(
        tmp_path,
        {"pkg/reader.py": READER_NEW},
        [("trailers.patch", TRAILERS)],
        old={"pkg/reader.py": READER_OLD},
    )
    assert (verdict.verdict, verdict.action, verdict.refresh) == ("conflict", "port", "")
