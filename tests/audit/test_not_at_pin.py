"""A patch on a file that neither the old pin's tree nor the new release has cannot be
judged: the series does not apply at its own pin, and the file missing from the new release
says nothing about upstream (a documentation patch on ``docs/conf.py`` of a project whose
sdist ships no ``docs/``). It is *look*, never *upstreamed*."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from audit_support import judge

from helpers import ON_DATA, REDIRECT_DIFF, WITH_DATA, Example
from helpers import REDIRECT_CODE as CODE
from helpers import REDIRECT_FIXED as FIXED

# removes a line only: the rule that a gone file's removed content went with it must not
# take the file's absence at the pin for upstream's doing
DOCS_CONF = """Description: build the documentation without fetching other projects' inventories
--- a/docs/conf.py
+++ b/docs/conf.py
@@ -1,5 +1,4 @@
 extensions = [
     "sphinx.ext.autodoc",
-    "sphinx.ext.intersphinx",
 ]
 project = "minihttp"
"""

SUMMARY = (
    "docs/conf.py is in neither the old pin's tree nor the new release; to do: look (the "
    "series does not apply at its pin: fix or drop the patch, then audit again)"
)


def _add_docs_patch(example: Example) -> None:
    patches = example.downstream / "patches"
    (patches / "docs-conf.patch").write_text(DOCS_CONF)
    with (patches / "series").open("a") as series:
        series.write("docs-conf.patch\n")


def test_a_patch_on_a_file_neither_tree_has_is_to_look_at(cli: Any, example: Example) -> None:
    _add_docs_patch(example)
    for release in (example.old, example.new):
        run = cli("audit", "--json", "--to", str(release), cwd=example.downstream)
        last = json.loads(run.out)["verdicts"][-1]
        assert (last["name"], last["verdict"], last["action"]) == (
            "docs-conf.patch",
            "target gone",
            "look",
        )
        assert last["summary"] == SUMMARY
        assert last["not_at_pin"] == "docs/conf.py"
        assert last["rule"] == "not-at-pin"
    # at its own pin the rest of the series applies; only the unjudgeable patch is left
    run = cli("audit", "--to", str(example.old), cwd=example.downstream)
    assert run.code == 1
    assert run.out.splitlines()[-1] == "8 patches: 7 clean, 1 target gone"


# a backported upstream commit: its news fragment was never shipped in a release
BACKPORT = (
    """Subject: drop cookies on redirect
---
--- a/newsfragments/42.bugfix
+++ b/newsfragments/42.bugfix
@@ -1 +1 @@
-Cookies are dropped.
+Cookies are dropped on redirect.
"""
    + REDIRECT_DIFF
)


def test_a_file_neither_tree_has_is_set_aside_only_when_it_does_not_decide(
    tmp_path: Path,
) -> None:
    # the code is upstream; the news fragment does not decide a code patch's verdict
    old = {"pkg/redirect.py": CODE}
    [verdict] = judge(tmp_path / "a", {"pkg/redirect.py": FIXED}, [("fix.patch", BACKPORT)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.summary.startswith(
        "newsfragments/42.bugfix is in neither the old pin's tree nor the new release (set "
        "aside: not what decides the verdict); the patch reverse-applies"
    )
    # the code file is the one neither tree has: the rest being upstream proves nothing
    moved = BACKPORT.replace("pkg/redirect.py", "pkg/compat.py")
    new = {
        "pkg/redirect.py": FIXED,
        "newsfragments/42.bugfix": "Cookies are dropped on redirect.\n",
    }
    old = {"pkg/redirect.py": CODE, "newsfragments/42.bugfix": "Cookies are dropped.\n"}
    [verdict] = judge(tmp_path / "b", new, [("fix.patch", moved)], old)
    assert (verdict.verdict, verdict.action) == ("target gone", "look")
    assert verdict.summary == (
        "pkg/compat.py is in neither the old pin's tree nor the new release; the rest is "
        "upstream; to do: look (the series does not apply at its pin: fix or drop the patch, "
        "then audit again)"
    )
    # the rest still to carry: its own verdict stands, the absent file named
    old = {"pkg/redirect.py": CODE}
    [verdict] = judge(tmp_path / "c", old, [("fix.patch", BACKPORT)], old)
    assert (verdict.verdict, verdict.action) == ("clean", "carry")
    assert verdict.summary == (
        "newsfragments/42.bugfix is in neither the old pin's tree nor the new release (set "
        "aside: not what decides the verdict); applies at fuzz 0, every hunk in place; to do: "
        "carry (it applies)"
    )


def test_a_file_an_earlier_upstream_patch_creates_is_named_with_that_patch(
    tmp_path: Path,
) -> None:
    # the first patch is upstream without its data file, so it is not applied: the second
    # patch's file is missing, but the series applies at its pin
    old = {"pkg/redirect.py": CODE}
    series = [("fix.patch", WITH_DATA), ("more.patch", ON_DATA)]
    first, second = judge(tmp_path, {"pkg/redirect.py": FIXED}, series, old)
    assert (first.verdict, first.action) == ("upstreamed", "retire")
    assert (second.verdict, second.action, second.rule) == ("target gone", "look", "not-at-pin")
    assert second.not_at_pin == "tests/data/redirect.txt"
    assert second.summary == (
        "tests/data/redirect.txt is created only by the earlier patch fix.patch, taken as "
        "upstream without that file; to do: look (upstream took the earlier patch without "
        "the file this one changes: decide whether this one is still needed)"
    )
