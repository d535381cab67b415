"""The issue a patch's free-form description says it closes (``Fixes #N``) is looked for in
the new release's changelog like the ids its header fields name."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

from patchkeeper.audit.mentions import description_lines, references
from patchkeeper.series.model import Patch
from patchkeeper.series.parse import parse_patch

PARSER_OLD = """class Extractor:
    def handle_comment(self, data):
        self.handle_empty_tag(data, is_block=True)

    def parse_starttag(self, i):
        endpos = self.check_for_whole_start_tag(i)
        if endpos < 0:
            return endpos
        return self.finish_starttag(i, endpos)
"""

# a fix cherry-picked from upstream: git's message body names the issue it closes
CHERRY_PICK = """From 9980cb5b27b07ff48283178d98213e41543701ec Mon Sep 17 00:00:00 2001
From: An Upstream Author <author@example.org>
Date: Thu, 19 Jun 2031 09:46:13 -0600
Subject: Fixes for Python 3.19

- Fix issue with unclosed HTML tag `<foo`

Fixes #1537

(cherry picked from commit 9980cb5b27b07ff48283178d98213e41543701ec)
---
 pkg/parser.py | 3 ++-
 1 file changed, 2 insertions(+), 1 deletion(-)

diff --git a/pkg/parser.py b/pkg/parser.py
--- a/pkg/parser.py
+++ b/pkg/parser.py
@@ -5,5 +5,6 @@ class Extractor:
     def parse_starttag(self, i):
         endpos = self.check_for_whole_start_tag(i)
         if endpos < 0:
-            return endpos
+            self.handle_data(self.rawdata[i : i + 1])
+            return i + 1
         return self.finish_starttag(i, endpos)
"""

# upstream released the fix written its own way, in a function it reworked since
PARSER_NEW = """class Extractor:
    def handle_comment(self, data):
        self.handle_empty_tag(data, is_block=True)

    def parse_starttag(self, i):
        self._starttag_text = None
        endpos = self.check_for_whole_start_tag(i)
        if endpos < 0 and self.in_cdata():
            return endpos
        if endpos < 0:
            return self.handle_unclosed_tag(i)
        return self.finish_starttag(i, endpos)
"""

CHANGES_OLD = "Changes\n=======\n\n3.18.0\n------\n\n- Dropped Python 3.9 (#1490).\n"
CHANGES_NEW = (
    "Changes\n=======\n\n3.18.1\n------\n\n- Fix issue with unclosed HTML tag `<foo` in Python "
    "3.19 (#1537).\n\n3.18.0\n------\n\n- Dropped Python 3.9 (#1490).\n"
)


def _parsed(text: str, name: str = "fix.patch") -> Patch:
    return parse_patch(text.encode(), name=name, path=Path(name))


def test_the_description_names_the_issue_it_closes() -> None:
    assert [(r.value, r.source) for r in references(_parsed(CHERRY_PICK))] == [
        ("1537", "description")
    ]
    assert description_lines(_parsed(CHERRY_PICK).preamble) == [
        "",
        "- Fix issue with unclosed HTML tag `<foo`",
        "",
        "Fixes #1537",
        "",
        "(cherry picked from commit 9980cb5b27b07ff48283178d98213e41543701ec)",
    ]


def test_other_numbers_in_the_description_are_not_read() -> None:
    prose = (
        "Subject: Work around a change of Python\n\n"
        "See Python's gh-77057 and https://example.org/python/cpython/pull/136072 for why.\n"
        "(Closes: #1109805)\nFixes: #88\n---\n"
    )
    text = prose + CHERRY_PICK[CHERRY_PICK.index("diff --git") :]
    assert references(_parsed(text)) == ()


def test_a_conflict_whose_described_issue_the_changelog_names_is_a_look(
    tmp_path: Path,
) -> None:
    new = {"pkg/parser.py": PARSER_NEW, "CHANGES.rst": CHANGES_NEW}
    old = {"pkg/parser.py": PARSER_OLD, "CHANGES.rst": CHANGES_OLD}
    [verdict] = judge(tmp_path, new, [("fixes_for_new_python.diff", CHERRY_PICK)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "look")
    assert verdict.rule == "changelog-mention"
    assert [(m.reference, m.path, m.line) for m in verdict.mentions] == [("1537", "CHANGES.rst", 7)]
    assert verdict.summary == (
        "pkg/parser.py #1 fails at fuzz 0 (closest: pkg/parser.py line 6, 2 of 5 lines match); "
        "0 of 2 substantive added lines already upstream (strongest: pkg/parser.py 0/2); "
        "since the pin, 1 of the 5 lines of `parse_starttag` (pkg/parser.py #1) changed, 5 of "
        "the hunk's 5 lines left there; the new release's changelog names 1537: CHANGES.rst line 7: '- Fix issue with "
        "unclosed HTML tag `<foo` in Python 3.19 (#1537).', a reason to look; to do: look "
        "(the changelog names its fix, the content differs)"
    )
    # without the changelog line nothing says upstream has it: git's merge places the hunk
    new["CHANGES.rst"] = CHANGES_OLD
    [verdict] = judge(tmp_path / "b", new, [("fixes_for_new_python.diff", CHERRY_PICK)], old)
    assert (verdict.verdict, verdict.action, verdict.mentions) == ("conflict", "carry", ())
    assert verdict.rule == "refresh"


# the same fix, its description without a closing word: only the file name says which
# pull request it is
PULL_REQUEST = CHERRY_PICK.replace("Fixes #1537\n\n", "")


def test_a_file_named_after_a_pull_request_names_its_number() -> None:
    def refs(name: str) -> list[tuple[str, str]]:
        return [(r.value, r.source) for r in references(_parsed(PULL_REQUEST, name))]

    assert refs("PR1537.patch") == [("1537", "file name")]
    assert refs("debian/pr-1537-unclosed-tag.patch") == [("1537", "file name")]
    assert refs("pull_1537.diff") == [("1537", "file name")]
    # "pr" inside a word, or one digit, names no pull request
    assert refs("0002-spr1537-fix.patch") == []
    assert refs("pr2.patch") == []
    assert refs("unclosed-tag.patch") == []


def test_a_conflict_whose_pull_request_the_changelog_names_is_a_look(tmp_path: Path) -> None:
    new = {"pkg/parser.py": PARSER_NEW, "CHANGES.rst": CHANGES_NEW}
    old = {"pkg/parser.py": PARSER_OLD, "CHANGES.rst": CHANGES_OLD}
    [verdict] = judge(tmp_path, new, [("PR1537.patch", PULL_REQUEST)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == (
        "conflict",
        "look",
        "changelog-mention",
    )
    assert [(m.reference, m.path, m.line) for m in verdict.mentions] == [("1537", "CHANGES.rst", 7)]
    # named otherwise, nothing says upstream has it: git's merge places the hunk
    [verdict] = judge(tmp_path / "b", new, [("unclosed-tag.patch", PULL_REQUEST)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == ("conflict", "carry", "refresh")
