"""A failing patch one of whose hunks the new release has, by code the old pin lacked, is
left to a person (*look*), not ported (it stays a *conflict*): upstream took part of the
fix as the patch writes it, and its failing hunks are either the rest written another way or
a part upstream left out. The shape of a mail server's fix backported from upstream: the
line-length check upstream took as it is, the command loop it rewrote."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

OLD = """\
import asyncio
import logging

log = logging.getLogger("mail")


class Session:
    def __init__(self, reader, writer):
        self.reader = reader
        self.writer = writer

    async def handle(self):
        while True:
            line = await self.reader.readline()
            if not line:
                break
            await self.dispatch(line)

    async def dispatch(self, line):
        command, _, rest = line.partition(b" ")
        await self.push(command.upper(), rest)

    async def push(self, command, rest):
        log.debug("%s %s", command, rest)
"""

# upstream has the patch's check in ``dispatch`` as it is, and rewrote ``handle``
NEW = """\
import asyncio
import logging

log = logging.getLogger("mail")
MAX_LINE = 1001


class Session:
    def __init__(self, reader, writer):
        self.reader = reader
        self.writer = writer

    async def handle(self):
        async for line in self.lines():
            await self.dispatch(line)

    async def lines(self):
        while not self.reader.at_eof():
            yield await self.reader.readuntil(b"\\r\\n")

    async def dispatch(self, line):
        if len(line) > MAX_LINE:
            raise ValueError("line too long")
        command, _, rest = line.partition(b" ")
        await self.push(command.upper(), rest)

    async def push(self, command, rest):
        log.debug("%s %s", command, rest)
"""

PATCH = """Subject: Refuse overlong lines
Origin: backport, a commit of upstream's
---
--- a/mail/session.py
+++ b/mail/session.py
@@ -12,6 +12,10 @@ class Session:
     async def handle(self):
         while True:
             line = await self.reader.readline()
+            if line and not line.endswith(b"\\n"):
+                log.warning("unterminated line %r", line)
+                await self.reply(b"500 line not terminated")
+                continue
             if not line:
                 break
             await self.dispatch(line)
@@ -18,5 +22,7 @@ class Session:
 
     async def dispatch(self, line):
+        if len(line) > MAX_LINE:
+            raise ValueError("line too long")
         command, _, rest = line.partition(b" ")
         await self.push(command.upper(), rest)
 
"""

PATH = "mail/session.py"


def test_a_failing_patch_with_a_hunk_upstream_took_is_left_to_a_person(tmp_path: Path) -> None:
    (verdict,) = judge(tmp_path, {PATH: NEW}, [("overlong.patch", PATCH)], old={PATH: OLD})
    assert (verdict.verdict, verdict.action, verdict.rule) == (
        "conflict",
        "look",
        "some-hunks-there",
    )
    assert verdict.rewritten == (
        "upstream has some of its hunks, with code the old pin lacks: mail/session.py #2"
        " (1 of 2 hunks there)"
    )
    assert verdict.summary == (
        "mail/session.py #1 fails at fuzz 0 (closest: mail/session.py line 13, 1 of 6 lines"
        " match); already upstream: mail/session.py #2; 2 of 5 substantive added lines already"
        " upstream (strongest: mail/session.py 2/5); since the pin, 4 of the 6 lines of"
        " `handle` (mail/session.py #1) changed, 2 of the hunk's 5 lines left there; upstream"
        " has some of its hunks, with code"
        " the old pin lacks: mail/session.py #2 (1 of 2 hunks there); to do: look (upstream"
        " took part of it; decide whether the failing hunks are still needed)"
    )


def test_without_the_old_pin_it_is_ported(tmp_path: Path) -> None:
    """Without the pin's tree the check's lines may have been there all along."""
    (verdict,) = judge(tmp_path, {PATH: NEW}, [("overlong.patch", PATCH)])
    assert (verdict.verdict, verdict.action, verdict.rule) == ("conflict", "port", "hunks-fail")


def test_a_hunk_the_old_pin_had_already_is_no_evidence(tmp_path: Path) -> None:
    """The check was in the pin's file already (elsewhere): upstream wrote nothing new."""
    old = (
        OLD
        + '\n\ndef check(line):\n    if len(line) > MAX_LINE:\n        raise ValueError("line too long")\n'
    )
    new = (
        NEW
        + '\n\ndef check(line):\n    if len(line) > MAX_LINE:\n        raise ValueError("line too long")\n'
    )
    (verdict,) = judge(tmp_path, {PATH: new}, [("overlong.patch", PATCH)], old={PATH: old})
    assert (verdict.verdict, verdict.action, verdict.rule) == ("conflict", "port", "hunks-fail")


# the fix tests the line's end where the loop reads it, instead of the inserted check
REPLACING = PATCH.replace(
    """@@ -12,6 +12,10 @@ class Session:
     async def handle(self):
         while True:
             line = await self.reader.readline()
+            if line and not line.endswith(b"\\n"):
+                log.warning("unterminated line %r", line)
+                await self.reply(b"500 line not terminated")
+                continue
             if not line:
                 break
             await self.dispatch(line)
""",
    """@@ -12,6 +12,8 @@ class Session:
     async def handle(self):
         while True:
             line = await self.reader.readline()
-            if not line:
+            if not line or not line.endswith(b"\\n"):
+                log.warning("unterminated line %r", line)
+                await self.reply(b"500 line not terminated")
                 break
             await self.dispatch(line)
""",
).replace("@@ -18,5 +22,7 @@", "@@ -18,5 +20,7 @@")

# upstream took the length check and rewrote the loop around ``if not line:``, kept as it was
KEPT = NEW.replace(
    """        async for line in self.lines():
            await self.dispatch(line)
""",
    """        while not self.reader.at_eof():
            line = await self.reader.readuntil(b"\\r\\n")
            if not line:
                break
            await self.dispatch(line)
""",
)


def test_a_failing_hunk_whose_lines_upstream_kept_is_ported(tmp_path: Path) -> None:
    """The failing hunk's removed line is still in the file: upstream did not make that
    part of the change, so the patch is ported, whatever upstream took of the rest."""
    assert REPLACING != PATCH and "            if not line:\n                break" in KEPT
    (verdict,) = judge(tmp_path, {PATH: KEPT}, [("overlong.patch", REPLACING)], old={PATH: OLD})
    assert (verdict.verdict, verdict.action, verdict.rule) == ("conflict", "port", "hunks-fail")


IMPORT_PATCH = """Subject: Skip the reload test
---
--- a/tests/test_reload.py
+++ b/tests/test_reload.py
@@ -1,5 +1,6 @@
 import sys
 from importlib import reload
+import pytest
 
 
 def test_reload():
@@ -8,6 +9,7 @@ def test_reload():
     assert mod is sys.modules["pkg"]
 
 
+@pytest.mark.skip(reason="runs in a separate process")
 def test_full_reimport():
     import pkg
     reload(pkg)
"""

TEST_OLD = """\
import sys
from importlib import reload


def test_reload():
    import pkg
    mod = reload(pkg)
    assert mod is sys.modules["pkg"]


def test_full_reimport():
    import pkg
    reload(pkg)
"""

# upstream imports pytest for a test of its own and rewrote the reimport test
TEST_NEW = """\
import sys
from importlib import reload
import pytest


def test_reload():
    import pkg
    mod = reload(pkg)
    assert mod is sys.modules["pkg"]


@pytest.mark.slow
def test_full_reimport_in_subprocess():
    import subprocess
    subprocess.run([sys.executable, "-c", "import pkg"], check=True)
"""


def test_a_hunk_there_only_by_an_import_is_no_evidence(tmp_path: Path) -> None:
    """An import upstream added for code of its own says nothing of the patch's fix: the
    patch is judged as if that hunk were not there (upstream changed the test it skips)."""
    path = "tests/test_reload.py"
    (verdict,) = judge(
        tmp_path, {path: TEST_NEW}, [("skip.patch", IMPORT_PATCH)], old={path: TEST_OLD}
    )
    assert (verdict.verdict, verdict.action, verdict.rule) == ("conflict", "look", "tests-changed")


# a later patch that changes a line the overlong-line patch adds in its failing hunk
FOLLOW_UP = """Subject: Name the peer of an unterminated line
---
--- a/mail/session.py
+++ b/mail/session.py
@@ -13,7 +13,7 @@ class Session:
         while True:
             line = await self.reader.readline()
             if line and not line.endswith(b"\\\\n"):
-                log.warning("unterminated line %r", line)
+                log.warning("unterminated line %r from %s", line, self.peer)
                 await self.reply(b"500 line not terminated")
                 continue
             if not line:
"""


def test_a_patch_blocked_by_one_upstream_took_part_of_is_left_to_a_person(
    tmp_path: Path,
) -> None:
    """It needs lines of a patch upstream may have whole, written its own way: "port after
    it" would rest on a port that may never happen, so a person decides it with that one."""
    series = [("overlong.patch", PATCH), ("peer.patch", FOLLOW_UP)]
    first, second = judge(tmp_path, {PATH: NEW}, series, old={PATH: OLD})
    assert (first.verdict, first.action, first.rule) == ("conflict", "look", "some-hunks-there")
    assert (second.verdict, second.action, second.rule, second.blocked_by) == (
        "blocked",
        "look",
        "blocker-partly-upstream",
        "overlong.patch",
    )
    assert second.summary == (
        "mail/session.py #1 needs lines that the failing patch overlong.patch adds; upstream"
        " has some of the hunks of the patch it needs (overlong.patch: upstream has some of"
        " its hunks, with code the old pin lacks: mail/session.py #2 (1 of 2 hunks there));"
        " to do: look (decide it with overlong.patch, which upstream took part of)"
    )


def test_a_patch_blocked_by_a_plain_conflict_is_ported_after_it(tmp_path: Path) -> None:
    """Without the pin's tree the earlier patch is a plain conflict: port after it."""
    series = [("overlong.patch", PATCH), ("peer.patch", FOLLOW_UP)]
    first, second = judge(tmp_path, {PATH: NEW}, series)
    assert (first.verdict, first.action, first.rule) == ("conflict", "port", "hunks-fail")
    assert (second.verdict, second.action, second.rule) == ("blocked", "port", "blocked")
