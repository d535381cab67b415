"""A failing backport whose subject the new release's changelog lists as an item: *retire*.

Release notes written from ``git shortlog`` list each commit by its subject; a backport
exported with ``git format-patch`` carries the same subject. When the new release lists it
and the old pin does not, upstream's commit is in the release: the patch is upstream even
though its hunks no longer fit code upstream rewrote since. A subject listed only inside a
longer item, already listed at the pin, or too short to name one commit proves nothing, and
a patch that still applies is carried as before.
"""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

from patchkeeper.audit.subject_listed import listed_subject, subject_of
from patchkeeper.audit.verdicts import plainly_upstream
from patchkeeper.series.model import Patch
from patchkeeper.series.parse import parse_patch

NEWS_OLD = """NEWS file for libgrow

v1.2.0: Mar 02 2024

### Bug fixes

- Fix memory leak in growReset (Ann Writer)
- Document the buffer limits
"""

NEWS_NEW = NEWS_OLD.replace(
    "NEWS file for libgrow\n",
    """NEWS file for libgrow

v1.4.0: Jun 11 2025

### Security

- Fix integer overflow in bufGrow (Bob Keeper)
- Check the size in bufShrink
""",
)

BUF_OLD = """#include <limits.h>
#include "buf.h"

int
bufGrow(buf_t *buf, size_t len) {
    size_t size;

    if (buf == NULL)
        return -1;
    size = buf->size + len + 100;
    buf->content = realloc(buf->content, size);
    buf->size = size;
    return 0;
}
"""

# upstream's commit, then a rewrite of the function around it
BUF_NEW = """#include <limits.h>
#include "buf.h"

int
bufGrow(buf_t *buf, size_t len) {
    size_t newSize;

    if ((buf == NULL) || (buf->error))
        return -1;
    if (len > SIZE_MAX - buf->size)
        return bufOverflow(buf);
    newSize = buf->size + len;
    if (bufResize(buf, newSize) < 0)
        return -1;
    return 0;
}
"""

BACKPORT = """From 0e1a49c8907645d2e155f0d89d4d9895ac5112b5 Mon Sep 17 00:00:00 2001
From: Bob Keeper <bob@example.org>
Date: Tue, 4 Mar 2025 10:00:00 +0100
Subject: [PATCH] Fix integer overflow in bufGrow

---
--- a/buf.c
+++ b/buf.c
@@ -7,6 +7,8 @@ bufGrow(buf_t *buf, size_t len) {
 
     if (buf == NULL)
         return -1;
+    if (len > SIZE_MAX - buf->size - 100)
+        return -1;
     size = buf->size + len + 100;
     buf->content = realloc(buf->content, size);
     buf->size = size;
"""

OLD = {"NEWS": NEWS_OLD, "buf.c": BUF_OLD}
NEW = {"NEWS": NEWS_NEW, "buf.c": BUF_NEW}

FAILING = (
    "buf.c #1 fails at fuzz 0 (closest: buf.c line 7, 2 of 6 lines match); 1 of 2 "
    "substantive added lines already upstream (strongest: buf.c 1/2)"
)


def test_a_failing_backport_whose_subject_the_release_lists_is_retired(tmp_path: Path) -> None:
    [verdict] = judge(tmp_path, NEW, [("overflow.patch", BACKPORT)], OLD)
    assert (verdict.verdict, verdict.action, verdict.rule) == (
        "upstreamed",
        "retire",
        "changelog-subject",
    )
    assert verdict.summary.startswith(
        "the new release's changelog lists its subject: NEWS line 7: '- Fix integer overflow "
        "in bufGrow (Bob Keeper)', which the old pin's changelogs do not; "
        f"{FAILING}"
    )
    assert verdict.summary.endswith(
        f"{FAILING}; to do: retire (after checking that upstream's commit of that subject "
        "holds all of it)"
    )
    # the evidence is the release notes: port --retire leaves it for a person to retire
    assert not plainly_upstream(verdict)


def test_without_the_subject_listed_it_is_a_port(tmp_path: Path) -> None:
    new = {**NEW, "NEWS": NEWS_NEW.replace("Fix integer overflow", "Fix possible integer overflow")}
    [verdict] = judge(tmp_path, new, [("overflow.patch", BACKPORT)], OLD)
    assert (verdict.verdict, verdict.action, verdict.rule) == ("conflict", "port", "hunks-fail")


def test_a_subject_the_pin_already_lists_is_no_evidence(tmp_path: Path) -> None:
    old = {**OLD, "NEWS": NEWS_OLD + "- Fix integer overflow in bufGrow\n"}
    [verdict] = judge(tmp_path, NEW, [("overflow.patch", BACKPORT)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == ("conflict", "port", "hunks-fail")


def test_a_short_subject_is_no_evidence(tmp_path: Path) -> None:
    short = BACKPORT.replace("Fix integer overflow in bufGrow", "Fix overflow")
    new = {**NEW, "NEWS": NEWS_NEW + "- Fix overflow\n"}
    [verdict] = judge(tmp_path, new, [("overflow.patch", short)], OLD)
    assert (verdict.verdict, verdict.action, verdict.rule) == ("conflict", "port", "hunks-fail")


def test_a_backport_that_still_applies_is_carried(tmp_path: Path) -> None:
    [verdict] = judge(tmp_path, {**NEW, "buf.c": BUF_OLD}, [("overflow.patch", BACKPORT)], OLD)
    assert (verdict.verdict, verdict.action, verdict.rule) == ("clean", "carry", "applies")


def test_without_the_pins_tree_the_subject_is_not_read(tmp_path: Path) -> None:
    [verdict] = judge(tmp_path, NEW, [("overflow.patch", BACKPORT)])
    assert (verdict.verdict, verdict.action, verdict.rule) == ("conflict", "port", "hunks-fail")


def _patch(subject: str) -> Patch:
    text = f"Subject: {subject}\n---\n--- a/buf.c\n+++ b/buf.c\n@@ -1 +1 @@\n-a\n+b\n"
    return parse_patch(text.encode(), name="p.patch", path=Path("p.patch"))


def test_the_subject_is_read_without_tags() -> None:
    assert subject_of(_patch("[PATCH 2/3] [CVE-2025-1111] Fix integer overflow in bufGrow.")) == (
        "Fix integer overflow in bufGrow"
    )
    assert subject_of(_patch("Fix overflow in bufGrow")) == ""  # 23 characters


def test_an_item_is_listed_only_on_its_own() -> None:
    patch = _patch("Fix integer overflow in bufGrow")
    old = {"NEWS": "v1.0\n"}
    lines = {
        "  Fix integer overflow in bufGrow (Bob Keeper),": True,
        "* Fix integer overflow in bufGrow.": True,
        "- [CVE-2025-1111] Fix integer overflow in bufGrow": True,
        "  Check size (Ann Writer), Fix integer overflow in bufGrow (Bob Keeper)": True,
        "- xmlbuf: Fix integer overflow in bufGrow": False,
        "- Fix integer overflow in bufGrow and bufShrink": False,
        '- Revert "Fix integer overflow in bufGrow"': False,
    }
    found = {
        line: listed_subject(patch, {"NEWS": f"v1.1\n{line}\n"}, old) is not None for line in lines
    }
    assert found == lines


# pbr writes a project's ChangeLog from ``git log``: one item per commit, in
# reStructuredText, which escapes the underscore of ``buf_grow``
CHANGELOG_OLD = """CHANGES
=======

1.2.0
-----

* Document the buffer limits
"""

CHANGELOG_NEW = CHANGELOG_OLD.replace(
    "CHANGES\n=======\n",
    """CHANGES
=======

1.4.0
-----

* Check the size in buf\\_shrink
* Reject a grown size past the limit in buf\\_grow
""",
)

# a security team's backport: DEP-3's Description, its first line prefixed with the CVE,
# the long description after it
SECURITY_BACKPORT = """Description: CVE-2025-1111: Reject a grown size past the limit in buf_grow
 The size was added without a check: a length near SIZE_MAX wrapped it around.
 This is upstream's change, taken for the stable release.
Author: Bob Keeper <bob@example.org>
Origin: upstream, https://review.example.org/c/libgrow/+/9911
Last-Update: 2025-03-04

--- a/buf.c
+++ b/buf.c
@@ -7,6 +7,8 @@ bufGrow(buf_t *buf, size_t len) {
 
     if (buf == NULL)
         return -1;
+    if (len > SIZE_MAX - buf->size - 100)
+        return -1;
     size = buf->size + len + 100;
     buf->content = realloc(buf->content, size);
     buf->size = size;
"""


def test_a_security_prefix_and_an_escaped_changelog_still_list_the_subject(
    tmp_path: Path,
) -> None:
    old = {"ChangeLog": CHANGELOG_OLD, "buf.c": BUF_OLD}
    new = {"ChangeLog": CHANGELOG_NEW, "buf.c": BUF_NEW}
    [verdict] = judge(tmp_path, new, [("CVE-2025-1111.patch", SECURITY_BACKPORT)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == (
        "upstreamed",
        "retire",
        "changelog-subject",
    )
    assert verdict.summary.startswith(
        "the new release's changelog lists its subject: ChangeLog line 8: '* Reject a grown "
        "size past the limit in buf\\_grow', which the old pin's changelogs do not; "
        f"{FAILING}"
    )


def test_the_subject_of_a_description_is_its_first_line() -> None:
    patch = parse_patch(SECURITY_BACKPORT.encode(), name="p.patch", path=Path("p.patch"))
    assert subject_of(patch) == "Reject a grown size past the limit in buf_grow"
    assert subject_of(_patch("CVE-2025-1111, CVE-2025-1112: Fix integer overflow in bufGrow")) == (
        "Fix integer overflow in bufGrow"
    )
    # another prefix is part of the subject, and so is a CVE without the colon
    assert subject_of(_patch("CVE-2025-1111 - Fix integer overflow in bufGrow")) == (
        "CVE-2025-1111 - Fix integer overflow in bufGrow"
    )


def test_an_escape_is_read_only_before_punctuation() -> None:
    patch = _patch("Fix integer overflow in buf_grow")
    old = {"NEWS": "v1.0\n"}
    assert listed_subject(patch, {"NEWS": "v1.1\n* Fix integer overflow in buf\\_grow\n"}, old)
    assert not listed_subject(patch, {"NEWS": "v1.1\n* Fix integer overflow in b\\uf_grow\n"}, old)
