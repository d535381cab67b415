"""A patch that rewrites a string where the pin has it (a video host for a privacy-friendly
one) still applies to a new release that has the string at new places, yet no longer covers
them: *port* (extend it), not *carry*."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

from patchkeeper.audit.new_places import rewritten_token

GUIDE = """Guide
=====

Watch the introduction:

.. raw:: html

    <iframe width="560"
            src="https://video.example.org/embed/intro"
            allowfullscreen>
    </iframe>

Then read on.
"""

TALKS = """Talks
=====

.. raw:: html

    <iframe src="https://video.example.org/embed/talk-2024"></iframe>
"""

NOCOOKIE = """Subject: embed videos from the host that sets no cookies
Forwarded: not-needed
---
--- a/docs/guide.rst
+++ b/docs/guide.rst
@@ -6,7 +6,7 @@ Watch the introduction:
 .. raw:: html
 
     <iframe width="560"
-            src="https://video.example.org/embed/intro"
+            src="https://video-nocookie.example.org/embed/intro"
             allowfullscreen>
     </iframe>
 
"""

OLD = {"docs/guide.rst": GUIDE, "docs/index.rst": "Index\n=====\n"}


def test_a_rewrite_the_new_release_needs_at_new_places_is_ported(tmp_path: Path) -> None:
    new = {**OLD, "docs/talks.rst": TALKS}
    (verdict,) = judge(tmp_path, new, [("nocookie.patch", NOCOOKIE)], old=OLD)
    reason = (
        "'video.example.org', which it rewrites, occurs 2 times in the new release against 1 "
        "at the pin (more in docs/talks.rst): extend it there"
    )
    assert (verdict.verdict, verdict.action, verdict.new_places) == ("clean", "port", reason)
    assert verdict.rule == "new-places"
    assert verdict.summary == (
        f"applies at fuzz 0, every hunk in place; {reason}; to do: port (extend it to the new "
        "places of the text it rewrites)"
    )


def test_a_rewrite_whose_text_is_where_it_was_is_carried(tmp_path: Path) -> None:
    # the new release has the string where the pin had it, and in a file of another kind
    new = {**OLD, "docs/talks.txt": TALKS}
    (verdict,) = judge(tmp_path, new, [("nocookie.patch", NOCOOKIE)], old=OLD)
    assert (verdict.verdict, verdict.action, verdict.new_places) == ("clean", "carry", "")


CODE_OLD = {"pkg/links.py": 'HOME = "https://video.example.org/"\n'}

CODE_REWRITE = """Subject: link to the host that sets no cookies
---
--- a/pkg/links.py
+++ b/pkg/links.py
@@ -1 +1 @@
-HOME = "https://video.example.org/"
+HOME = "https://video-nocookie.example.org/"
"""


def test_a_rewrite_in_code_is_carried_whatever_the_new_release_adds(tmp_path: Path) -> None:
    # a name in code recurs as the code grows: its new places say nothing of the patch
    new = {**CODE_OLD, "pkg/talks.py": 'TALK = "https://video.example.org/t"\n'}
    (verdict,) = judge(tmp_path, new, [("links.patch", CODE_REWRITE)], old=CODE_OLD)
    assert (verdict.verdict, verdict.action, verdict.new_places) == ("clean", "carry", "")


def test_a_rewrite_is_not_judged_without_the_pin(tmp_path: Path) -> None:
    new = {**OLD, "docs/talks.rst": TALKS}
    (verdict,) = judge(tmp_path, new, [("nocookie.patch", NOCOOKIE)])
    assert (verdict.verdict, verdict.action, verdict.new_places) == ("clean", "carry", "")


def test_the_rewritten_token() -> None:
    assert rewritten_token(b'src="https://a.example/x"\n', b'src="https://b.example/x"\n') == (
        b"a.example"
    )
    # too short, no dot, or still in the new line: nothing that names one thing
    assert rewritten_token(b"href='css/x.css'\n", b"href='themes/x.css'\n") is None
    assert rewritten_token(b"value = compute_total(a)\n", b"value = compute_sum(a)\n") is None
    assert (
        rewritten_token(b"x = load('a.example.org')\n", b"x = load('a.example.org', 1)\n") is None
    )
    assert rewritten_token(b"same\n", b"same  \n") is None
    # more than one token differs: not one name rewritten
    assert rewritten_token(b"x = Path(__file__).parent.name\n", b"x = Path('/usr/share')\n") is None
