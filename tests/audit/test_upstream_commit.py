"""A failing patch whose DEP-3 ``Origin`` names upstream's commit, dated before the new
release: a person looks (upstream most likely has it, with the code changed around it since),
never a plain *port*. The shape of a C library's security series: fixes cherry-picked from
upstream's history (``git format-patch`` headers with ``Origin: <commit URL>``), audited
against a release made years later that reworked the buffer code, with a later fix that
needs the lines of the first."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

from audit_support import dated, write_tree

from patchkeeper.audit.series_verdicts import judge_series
from patchkeeper.audit.upstream_commit import origin_commit, tree_day
from patchkeeper.audit.verdicts import PatchVerdict, plainly_upstream
from patchkeeper.series.engine import Workspace
from patchkeeper.series.parse import parse_patch
from patchkeeper.trees.tree import read_file
from patchkeeper.upstream.treesearch import TreeSearch

PIN = """int
buf_resize(struct buf *buf, size_t size)
{
    size_t grown;

    if (size < buf->size)
        return 0;
    grown = buf->size * 2;
    if (grown < size)
        grown = size + 10;
    buf->content = realloc(buf->content, grown);
    return buf->content != NULL;
}

int
buf_add(struct buf *buf, const char *text, size_t len)
{
    if (!buf_resize(buf, buf->use + len + 1))
        return -1;
    memcpy(buf->content + buf->use, text, len);
    buf->use += len;
    return 0;
}
"""

# the release reworked both functions: a size check of its own, another name for the sum
NEW = """int
buf_grow(struct buf *buf, size_t needed)
{
    size_t grown;

    if (needed <= buf->size)
        return 0;
    if (buf->size > SIZE_MAX / 2)
        return -1;
    grown = buf->size ? buf->size * 2 : needed;
    buf->content = realloc(buf->content, grown);
    return buf->content != NULL ? 0 : -1;
}

int
buf_add(struct buf *buf, const char *text, size_t len)
{
    if (len >= SIZE_MAX - buf->use)
        return -1;
    if (buf_grow(buf, buf->use + len + 1) < 0)
        return -1;
    memcpy(buf->content + buf->use, text, len);
    buf->use += len;
    return 0;
}
"""

FIX = """From 0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c Mon Sep 17 00:00:00 2001
From: A Developer <developer@example.org>
Date: Fri, 10 Jan 2020 15:55:07 +0100
Subject: Fix integer overflow in buf_resize
Origin: https://forge.example.org/lib/-/commit/0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c

---
 buf.c | 4 +++-
 1 file changed, 3 insertions(+), 1 deletion(-)

--- a/buf.c
+++ b/buf.c
@@ -5,7 +5,9 @@ buf_resize(struct buf *buf, size_t size)
 
     if (size < buf->size)
         return 0;
-    grown = buf->size * 2;
+    if (buf->size > SIZE_MAX / 2)
+        return 0;
+    grown = buf->size ? buf->size * 2 : size;
     if (grown < size)
         grown = size + 10;
     buf->content = realloc(buf->content, grown);
"""

# a later fix of the series, whose hunk needs a line the first one adds
FOLLOW_UP = """From 1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d Mon Sep 17 00:00:00 2001
From: A Developer <developer@example.org>
Date: Tue, 8 Mar 2022 20:10:02 +0100
Subject: Fix overflow of the grown size
Origin: upstream, https://forge.example.org/lib/-/commit/1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f
Last-Update: 2022-05-04

---
 buf.c | 2 ++
 1 file changed, 2 insertions(+)

--- a/buf.c
+++ b/buf.c
@@ -9,6 +9,8 @@ buf_resize(struct buf *buf, size_t size)
         return 0;
     grown = buf->size ? buf->size * 2 : size;
     if (grown < size)
+        return 0;
+    if (size == SIZE_MAX)
         grown = size + 10;
     buf->content = realloc(buf->content, grown);
     return buf->content != NULL;
"""

PIN_DAY = dt.date(2019, 10, 30)
RELEASE_DAY = dt.date(2025, 6, 12)


def _judge(
    tmp_path: Path,
    patches: list[tuple[str, str]],
    pin_day: dt.date = PIN_DAY,
    release_day: dt.date = RELEASE_DAY,
    news: tuple[str, str] | None = None,
    new: str = NEW,
) -> list[PatchVerdict]:
    """Judge ``patches`` on the release (its ``buf.c``: ``new``) and the pin, each with its
    ``NEWS`` file when ``news`` (the pin's, the release's) is given."""
    old_files, new_files = {"buf.c": PIN}, {"buf.c": new}
    if news is not None:
        old_files["NEWS"], new_files["NEWS"] = news
    new_root = dated(write_tree(tmp_path / "new", new_files), release_day)
    pin_root = dated(write_tree(tmp_path / "old", old_files), pin_day)
    parsed = [parse_patch(text.encode(), name=name, path=Path(name)) for name, text in patches]
    ws = Workspace(lambda path: read_file(new_root / path))
    search, pin = TreeSearch(new_root, "new"), TreeSearch(pin_root, "old")
    return judge_series(ws, parsed, search, pin, "2.15.4")


def test_a_failing_upstream_commit_made_before_the_release_is_looked_at(tmp_path: Path) -> None:
    fix, follow_up = _judge(tmp_path, [("fix.patch", FIX), ("follow-up.patch", FOLLOW_UP)])
    assert (fix.verdict, fix.action, fix.rule) == ("conflict", "look", "upstream-commit")
    assert fix.upstream_commit == (
        "its header says it is upstream's commit (Origin: "
        "https://forge.example.org/lib/-/commit/0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c), "
        "made by 2020-01-10, before the new release (2025-06-12)"
    )
    assert fix.summary.endswith(
        "before the new release (2025-06-12); to do: look (it is upstream's commit, made "
        "before the new release: decide whether the release has it)"
    )
    # the later fix, blocked by the first, is upstream's commit too: the earlier of its
    # Date and Last-Update is the day it was made by
    assert (follow_up.verdict, follow_up.action, follow_up.rule) == (
        "blocked",
        "look",
        "upstream-commit",
    )
    assert follow_up.blocked_by == "fix.patch"
    assert "made by 2022-03-08, before the new release (2025-06-12)" in follow_up.summary


def test_a_release_made_before_the_commit_lacks_it(tmp_path: Path) -> None:
    fix, follow_up = _judge(
        tmp_path,
        [("fix.patch", FIX), ("follow-up.patch", FOLLOW_UP)],
        release_day=dt.date(2019, 12, 1),
    )
    assert (fix.verdict, fix.action, fix.rule) == ("conflict", "port", "hunks-fail")
    assert fix.upstream_commit == ""
    assert (follow_up.verdict, follow_up.action, follow_up.rule) == ("blocked", "port", "blocked")


def test_a_pin_made_after_the_commit_without_it_shows_another_line(tmp_path: Path) -> None:
    # the pin, a maintenance release made after the commit, lacks it: the commit is on a
    # development line the maintenance releases did not take, and so may the new release
    [fix] = _judge(tmp_path, [("fix.patch", FIX)], pin_day=dt.date(2021, 2, 1))
    assert (fix.verdict, fix.action, fix.rule) == ("conflict", "port", "hunks-fail")


def test_a_vendor_origin_or_a_pull_request_is_no_upstream_commit(tmp_path: Path) -> None:
    url = "https://forge.example.org/lib/-/commit/0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c"
    vendor = FIX.replace(f"Origin: {url}", "Origin: vendor, https://vendor.example.org/fix")
    pull = FIX.replace(f"Origin: {url}", "Origin: https://forge.example.org/lib/pull/230")
    for index, text in enumerate((vendor, pull)):
        [fix] = _judge(tmp_path / str(index), [("fix.patch", text)])
        assert (fix.verdict, fix.action, fix.rule) == ("conflict", "port", "hunks-fail")


def test_which_origins_name_upstreams_commit() -> None:
    assert origin_commit("upstream, https://forge.example.org/lib/commit/0b1c2d3e") is True
    assert origin_commit("backport, https://forge.example.org/lib/pull/12") is True
    assert origin_commit("upstream") is True
    assert origin_commit("https://forge.example.org/cgit/lib.git/commit/?id=0b1c2d3e4f") is True
    assert origin_commit("other, https://forge.example.org/lib/commit/0b1c2d3e") is False
    assert origin_commit("Debian") is False
    assert origin_commit("https://forge.example.org/lib/issues/794") is False


def test_a_tree_without_real_times_gives_no_day(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "epoch", {"buf.c": PIN, "docs/notes.txt": "notes\n"})
    for name in ("buf.c", "docs/notes.txt"):
        os.utime(root / name, (0, 0))
    assert tree_day(TreeSearch(root, "epoch")) is None
    dated(root, RELEASE_DAY)
    os.symlink("buf.c", root / "link.c")
    assert tree_day(TreeSearch(root, "dated")) == RELEASE_DAY


# the release notes name each fix by its CVE id, in words of their own (not the commits'
# subjects, which the changelog-subject rule would read)
NEWS_PIN = """v2.9.10: Oct 30 2019

- Fix memory leak in buf_free
"""
NEWS_RELEASE = (
    """v2.15.4: Jun 12 2025

### Security

- [CVE-2020-7595] Overflow when resizing a buffer
- [CVE-2022-29824] Grown sizes that wrap around

"""
    + NEWS_PIN
)

# a release that reworked the size check its own way: none of the fix's lines is there, and
# the line it takes out is still there
NEW_REWORKED = NEW.replace(
    """    if (buf->size > SIZE_MAX / 2)
        return -1;
    grown = buf->size ? buf->size * 2 : needed;
""",
    """    if (buf_would_overflow(buf->size))
        return -1;
    grown = buf->size * 2;
    if (grown < needed)
        grown = needed;
""",
)

FIX_CVE = FIX.replace(
    "Subject: Fix integer overflow", "Subject: [CVE-2020-7595] Fix integer overflow"
)
FOLLOW_UP_CVE = FOLLOW_UP.replace(
    "Subject: Fix overflow of the grown size",
    "Subject: [CVE-2022-29824] Fix overflow of the grown size",
)
RETIRE = (
    "retire (after checking that the release has upstream's commit and that it holds all of it)"
)


def test_an_upstream_commit_whose_fix_the_changelog_names_is_retired(tmp_path: Path) -> None:
    fix, follow_up = _judge(
        tmp_path,
        [("fix.patch", FIX_CVE), ("follow-up.patch", FOLLOW_UP_CVE)],
        news=(NEWS_PIN, NEWS_RELEASE),
        new=NEW_REWORKED,
    )
    assert (fix.verdict, fix.action, fix.rule) == ("upstreamed", "retire", "upstream-commit")
    assert fix.summary == (
        "buf.c #1 fails at fuzz 0 (closest: buf.c line 5, 2 of 7 lines match); 1 of 3 "
        "substantive added lines already upstream (strongest: buf.c 1/3); the new release's "
        "changelog names CVE-2020-7595: NEWS line 5: '- [CVE-2020-7595] Overflow when "
        "resizing a buffer'; its header says it is upstream's commit (Origin: "
        "https://forge.example.org/lib/-/commit/0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c), "
        f"made by 2020-01-10, before the new release (2025-06-12); to do: {RETIRE}"
    )
    # the later fix is blocked by the first (still remembered as failing), and is
    # upstream's commit whose CVE the release notes name: retired alike
    assert (follow_up.verdict, follow_up.action, follow_up.rule) == (
        "upstreamed",
        "retire",
        "upstream-commit",
    )
    assert follow_up.blocked_by == "fix.patch"
    assert follow_up.summary == (
        "buf.c #1 needs lines that the failing patch fix.patch adds; its header says it is "
        "upstream's commit (Origin: upstream, "
        "https://forge.example.org/lib/-/commit/1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f), made by "
        "2022-03-08, before the new release (2025-06-12); the new release's changelog names "
        "CVE-2022-29824: NEWS line 6: '- [CVE-2022-29824] Grown sizes that wrap around'; "
        f"to do: {RETIRE}"
    )
    # the evidence is a header and the release notes: port --retire leaves it to a person
    assert not plainly_upstream(fix)


def test_a_cve_the_pins_changelog_already_names_leaves_it_to_look(tmp_path: Path) -> None:
    pin_news = NEWS_PIN + "- [CVE-2020-7595] Overflow when resizing a buffer\n"
    [fix] = _judge(tmp_path, [("fix.patch", FIX_CVE)], news=(pin_news, NEWS_RELEASE))
    assert (fix.verdict, fix.action, fix.rule) == ("conflict", "look", "upstream-commit")


def test_a_named_fix_without_the_commits_day_is_a_mention_to_look_at(tmp_path: Path) -> None:
    # the release was made before the commit: the changelog's mention alone asks a look
    [fix] = _judge(
        tmp_path,
        [("fix.patch", FIX_CVE)],
        release_day=dt.date(2019, 12, 1),
        news=(NEWS_PIN, NEWS_RELEASE),
        new=NEW_REWORKED,
    )
    assert (fix.verdict, fix.action, fix.rule) == ("conflict", "look", "changelog-mention")
