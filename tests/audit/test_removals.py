"""Class 2: "the removed lines are gone" is not proof. The intent (the post-image: the lines
around a removal, together) must be there; a file the patch deletes is not upstream while
the new release still has it."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

from helpers import DROP_FLAKY_TEST, FLAKY_TEST, FLAKY_TESTS

CONF_OLD = """project = "minihttp"
extensions = [
    "sphinx.ext.autodoc",
    "sphinx-favicon",
    "sphinx.ext.intersphinx",
]
html_theme = "alabaster"
"""

# Debian drops the favicon extension (not packaged)
DROP_FAVICON = """Subject: do not use sphinx-favicon
---
--- a/docs/conf.py
+++ b/docs/conf.py
@@ -1,7 +1,6 @@
 project = "minihttp"
 extensions = [
     "sphinx.ext.autodoc",
-    "sphinx-favicon",
     "sphinx.ext.intersphinx",
 ]
 html_theme = "alabaster"
"""


def test_a_renamed_line_is_not_a_removal_upstream_made(tmp_path: Path) -> None:
    # upstream renamed the extension and kept it: the removed line is gone, the intent is not
    new = CONF_OLD.replace('"sphinx-favicon"', '"sphinx_favicon"').replace("alabaster", "furo")
    [verdict] = judge(tmp_path, {"docs/conf.py": new}, [("favicon.patch", DROP_FAVICON)])
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
    assert verdict.summary.startswith(
        "docs/conf.py #1 fails at fuzz 0 (closest: docs/conf.py line 1, 5 of 7 lines match);"
    )
    assert verdict.summary.endswith("; to do: port (rework the failing hunks)")


def test_a_removal_upstream_made_is_upstreamed(tmp_path: Path) -> None:
    new = CONF_OLD.replace('    "sphinx-favicon",\n', "").replace("alabaster", "furo")
    new = new.replace('"sphinx.ext.autodoc",', "'sphinx.ext.autodoc',")
    [verdict] = judge(tmp_path, {"docs/conf.py": new}, [("favicon.patch", DROP_FAVICON)])
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.hunks[0].how == "removed lines gone, the lines around them together"
    assert verdict.summary == (
        "every hunk's post-image is there (docs/conf.py #1) (docs only); it adds no "
        "substantive lines; to do: retire (upstream has it)"
    )


DELETE_VENDORED = """Subject: use the system six, drop the vendored copy
---
--- a/pkg/packages/six.py
+++ /dev/null
@@ -1,3 +0,0 @@
-\"\"\"Vendored six.\"\"\"
-PY2 = False
-PY3 = True
"""

SIX = '"""Vendored six."""\nPY2 = False\nPY3 = True\n'


def test_deleting_a_file_the_new_release_still_has_is_not_upstream(tmp_path: Path) -> None:
    [verdict] = judge(
        tmp_path, {"pkg/packages/six.py": SIX + "PY34 = True\n"}, [("six.patch", DELETE_VENDORED)]
    )
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
    assert [(h.path, h.status) for h in verdict.hunks] == [("pkg/packages/six.py", "fails")]
    [verdict] = judge(
        tmp_path / "same", {"pkg/packages/six.py": SIX}, [("six.patch", DELETE_VENDORED)]
    )
    assert (verdict.verdict, verdict.summary) == (
        "clean",
        "applies at fuzz 0, every hunk in place; to do: carry (it applies)",
    )


def test_deleting_a_file_upstream_deleted_is_upstream(tmp_path: Path) -> None:
    [verdict] = judge(tmp_path, {"pkg/__init__.py": ""}, [("six.patch", DELETE_VENDORED)])
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.hunks[0].how == "the new release deleted the file too"
    assert verdict.summary == (
        "the patch reverse-applies: the new upstream already has its post-image; it adds no "
        "substantive lines; to do: retire (upstream has it)"
    )


def test_a_comment_added_to_a_line_is_not_found_by_the_line(tmp_path: Path) -> None:
    old = "def total(items):\n    count = len(items)\n    return count\n"
    patch = """Subject: mark the count
---
--- a/pkg/sums.py
+++ b/pkg/sums.py
@@ -1,3 +1,3 @@
 def total(items):
-    count = len(items)
+    count = len(items)  # downstream: counted before filtering
     return count
"""
    # upstream changed the function around the line; the line itself (code) is still there,
    # so the hunk lands on it unchanged: refresh it
    new = "def total(items, strict=False):\n    count = len(items)\n    return count\n"
    [verdict] = judge(tmp_path, {"pkg/sums.py": new}, [("c.patch", patch)], {"pkg/sums.py": old})
    assert (verdict.verdict, verdict.action) == ("conflict", "carry")
    assert [h.status for h in verdict.hunks] == ["fails"]


EXTENSIONS_OLD = """extensions = [
    "sphinx.ext.autodoc",
    "sphinx_issues",
    "sphinx_removed_in",
    "sphinx-favicon",
    "sphinxext.opengraph",
]
"""

DROP_EXTENSION = """--- a/docs/conf.py
+++ b/docs/conf.py
@@ -1,7 +1,6 @@
 extensions = [
     "sphinx.ext.autodoc",
     "sphinx_issues",
-    "{name}",
     "{after}",
     "sphinxext.opengraph",
 ]
"""


def test_a_docs_removal_whose_name_is_gone_though_its_neighbours_changed(tmp_path: Path) -> None:
    # upstream dropped sphinx_removed_in and sphinx_issues and renamed sphinx-favicon
    new_conf = (
        'extensions = [\n    "sphinx.ext.autodoc",\n    "sphinx_favicon",\n'
        '    "sphinxext.opengraph",\n]\n'
    )
    old_conf = EXTENSIONS_OLD.replace('    "sphinx-favicon",\n', "").replace(
        '    "sphinx_removed_in",\n', '    "sphinx_removed_in",\n    "sphinx-favicon",\n'
    )
    patch = DROP_EXTENSION.format(name="sphinx_removed_in", after="sphinx-favicon")
    [verdict] = judge(
        tmp_path, {"docs/conf.py": new_conf}, [("p.patch", patch)], {"docs/conf.py": old_conf}
    )
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    [hunk] = verdict.hunks
    assert (hunk.status, hunk.how) == (
        "present",
        "removed lines gone, and nothing they name is in the file",
    )
    # removing sphinx-favicon: upstream kept it, spelled sphinx_favicon: not upstream
    patch = """--- a/docs/conf.py
+++ b/docs/conf.py
@@ -2,5 +2,4 @@ extensions = [
     "sphinx.ext.autodoc",
     "sphinx_issues",
     "sphinx_removed_in",
-    "sphinx-favicon",
     "sphinxext.opengraph",
"""
    old = {"docs/conf.py": EXTENSIONS_OLD}
    [verdict] = judge(tmp_path / "b", {"docs/conf.py": new_conf}, [("p.patch", patch)], old)
    assert verdict.verdict == "conflict"


LIST_OLD = """from pkg.utils.misc import (
    write_output,
)
from pkg.utils.parallel import map_multithread
from pkg.utils.typing import CHECKING


def iter_latest(packages):
    yield from map_multithread(latest, packages)
"""

NATIVE_MAP = """--- a/pkg/commands/list.py
+++ b/pkg/commands/list.py
@@ -1,7 +1,6 @@
 from pkg.utils.misc import (
     write_output,
 )
-from pkg.utils.parallel import map_multithread
 from pkg.utils.typing import CHECKING
 
 
"""


def test_a_code_removal_whose_names_are_gone_from_a_reworked_file(tmp_path: Path) -> None:
    # upstream reorganised the imports and no longer uses the helper at all
    new = "from pkg.utils.misc import write_output\n\n\ndef iter_latest(packages):\n"
    new += "    yield from map(latest, packages)\n"
    old = {"pkg/commands/list.py": LIST_OLD}
    [verdict] = judge(tmp_path, {"pkg/commands/list.py": new}, [("map.patch", NATIVE_MAP)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    # the helper still used: the import was only moved, not removed
    new = new.replace("map(latest", "map_multithread(latest")
    [verdict] = judge(
        tmp_path / "b", {"pkg/commands/list.py": new}, [("map.patch", NATIVE_MAP)], old
    )
    assert verdict.verdict == "conflict"


PAGE_OLD = """<html>
<head>
<script src="https://cdn.example.org/libs/jquery/1.4.2/jquery.min.js">
</script>
<script>
  $(function() { connect(); });
</script>
"""

LOCAL_JQUERY = """--- a/examples/page.html
+++ b/examples/page.html
@@ -1,6 +1,6 @@
 <html>
 <head>
-<script src="https://cdn.example.org/libs/jquery/1.4.2/jquery.min.js">
+<script src="file:///usr/share/javascript/jquery/jquery.min.js">
 </script>
 <script>
   $(function() { connect(); });
"""


def test_a_docs_replacement_of_something_upstream_dropped_is_upstream(tmp_path: Path) -> None:
    # upstream's example no longer loads the library at all
    new = "<html>\n<head>\n<script>\n  window.onload = connect;\n</script>\n"
    old = {"examples/page.html": PAGE_OLD}
    [verdict] = judge(tmp_path, {"examples/page.html": new}, [("jq.patch", LOCAL_JQUERY)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    [hunk] = verdict.hunks
    assert hunk.how == "the lines it replaces and all they name are gone from the file"
    # upstream still loads it from the CDN (the tag written another way): not upstream
    new = new.replace(
        "<script>\n  window",
        '<script defer src="https://cdn.example.org/libs/jquery/1.4.2/jquery.min.js"></script>\n'
        "<script>\n  window",
    )
    [verdict] = judge(
        tmp_path / "b", {"examples/page.html": new}, [("jq.patch", LOCAL_JQUERY)], old
    )
    assert verdict.verdict == "conflict"


# A CVE backport that turns logged warnings into raised errors: its test file no longer needs
# ExpectLog (hunk #1 only removes the import), its module raises (hunk #2 adds lines).
TEST_OLD = """from pkg.httputil import parse_form, FormError
from pkg.escape import utf8, native_str
from pkg.log import gen_log
from pkg.testing import ExpectLog

import copy
import datetime


def test_missing_headers():
    with ExpectLog(gen_log, "missing headers"):
        parse_form(b"1234")
"""

HTTPUTIL_OLD = """from pkg.escape import utf8, native_str
from pkg.log import gen_log

import copy
import datetime


class FormError(Exception):
    pass


def parse_form(data):
    if not data.startswith(b"--"):
        gen_log.warning("missing headers")
        return None
    return data
"""

RAISE_FORM_ERRORS = """Subject: raise errors instead of logging in form parsing
---
--- a/tests/test_httputil.py
+++ b/tests/test_httputil.py
@@ -1,7 +1,6 @@
 from pkg.httputil import parse_form, FormError
 from pkg.escape import utf8, native_str
 from pkg.log import gen_log
-from pkg.testing import ExpectLog
 
 import copy
 import datetime
--- a/pkg/httputil.py
+++ b/pkg/httputil.py
@@ -12,5 +12,4 @@ class FormError(Exception):
 def parse_form(data):
     if not data.startswith(b"--"):
-        gen_log.warning("missing headers")
-        return None
+        raise FormError("missing headers")
     return data
"""


def test_a_removal_still_in_its_own_file_is_not_made_in_another_file(tmp_path: Path) -> None:
    # the new release added an import below ExpectLog (the hunk fails at fuzz 0) and kept
    # ExpectLog; its module has the same imports without ExpectLog, as it always had: the
    # import's absence there says nothing, the patch is not partly upstream (its lines land
    # unchanged: a refresh)
    test_new = TEST_OLD.replace(
        "from pkg.testing import ExpectLog\n",
        "from pkg.testing import ExpectLog\nfrom pkg.util import ignore_deprecation\n",
    )
    old = {"tests/test_httputil.py": TEST_OLD, "pkg/httputil.py": HTTPUTIL_OLD}
    new = {"tests/test_httputil.py": test_new, "pkg/httputil.py": HTTPUTIL_OLD}
    [verdict] = judge(tmp_path, new, [("form-errors.patch", RAISE_FORM_ERRORS)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "carry")
    assert [(h.path, h.index, h.status, h.how, h.moved_to) for h in verdict.hunks] == [
        ("tests/test_httputil.py", 1, "fails", "", None),
        ("pkg/httputil.py", 1, "applies", "", None),
    ]
    assert verdict.summary == (
        "tests/test_httputil.py #1 fails at fuzz 0 (closest: tests/test_httputil.py line 1, "
        "4 of 7 lines match); 0 of 1 substantive added lines already upstream (strongest: "
        "pkg/httputil.py 0/1); its 2 hunks (2 files) land with their + and - lines unchanged "
        "(by git's three-way merge, by its removed lines); to do: carry (refresh it: its hunks "
        "land with their + and - lines unchanged)"
    )


def test_a_removal_made_where_the_code_moved_is_still_found(tmp_path: Path) -> None:
    # the same hunk, the test's imports moved to tests/conftest.py without ExpectLog, and
    # the test file kept only its tests: the removal is made where the lines went
    test_new = TEST_OLD.split("\n\n\n", 1)[1]
    conftest = TEST_OLD.split("\n\n\n", 1)[0].replace("from pkg.testing import ExpectLog\n", "")
    old = {"tests/test_httputil.py": TEST_OLD, "pkg/httputil.py": HTTPUTIL_OLD}
    new = {
        "tests/test_httputil.py": test_new,
        "tests/conftest.py": conftest + "\n",
        "pkg/httputil.py": HTTPUTIL_OLD,
    }
    [verdict] = judge(tmp_path, new, [("form-errors.patch", RAISE_FORM_ERRORS)], old)
    assert verdict.hunks[0].status == "present"
    assert verdict.hunks[0].how == "reverse-applies in tests/conftest.py"
    assert verdict.verdict == "partially upstreamed"


DOCS_CONF_OLD = """extensions = ['sphinx.ext.autodoc']

intersphinx_mapping = {
    'python': ('https://docs.python.org/3', None),
    'packaging': ('https://packaging.python.org/en/latest', None),
}

# Support tooltips on references
extensions += ['hoverxref.extension']
hoverxref_auto_ref = True
hoverxref_intersphinx = [
    'python',
    'pip',
    'packaging',
]

# Add support for linking usernames
github_url = 'https://github.com'
extensions += ['sphinx.ext.intersphinx']
"""

# Debian does not package sphinx-hoverxref: drop it and its settings
NO_HOVERXREF = """--- a/docs/conf.py
+++ b/docs/conf.py
@@ -5,15 +5,6 @@ intersphinx_mapping = {
     'packaging': ('https://packaging.python.org/en/latest', None),
 }
 
-# Support tooltips on references
-extensions += ['hoverxref.extension']
-hoverxref_auto_ref = True
-hoverxref_intersphinx = [
-    'python',
-    'pip',
-    'packaging',
-]
-
 # Add support for linking usernames
 github_url = 'https://github.com'
 extensions += ['sphinx.ext.intersphinx']
"""


def test_a_docs_block_whose_own_names_are_gone_is_removed_upstream(tmp_path: Path) -> None:
    # upstream dropped hoverxref and moved the mapping below: the block's own names
    # (hoverxref...) are gone; 'pip' and 'packaging' are still in the mapping and
    # 'extensions +=' is still used for the other extensions, which says nothing
    new = (
        "extensions = ['sphinx.ext.autodoc']\n\n"
        "# Add support for linking usernames\n"
        "github_url = 'https://github.com'\n"
        "extensions += ['sphinx.ext.intersphinx']\n"
        "intersphinx_mapping = {\n"
        "    'python': ('https://docs.python.org/3', None),\n"
        "    'pip': ('https://pip.pypa.io/en/latest', None),\n"
        "    'packaging': ('https://packaging.python.org/en/latest', None),\n"
        "}\n"
    )
    old = {"docs/conf.py": DOCS_CONF_OLD}
    [verdict] = judge(tmp_path, {"docs/conf.py": new}, [("hx.patch", NO_HOVERXREF)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    [hunk] = verdict.hunks
    assert (hunk.status, hunk.how) == (
        "present",
        "removed lines gone, and nothing they name is in the file",
    )
    # upstream kept the extension (its settings renamed): the block's own name is there
    kept = new.replace(
        "github_url",
        "extensions += ['hoverxref.extension']\nhoverxref_roles = ['term']\ngithub_url",
    )
    [verdict] = judge(tmp_path / "b", {"docs/conf.py": kept}, [("hx.patch", NO_HOVERXREF)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
    # without the old pin's tree nothing tells the block's own names from shared ones
    [verdict] = judge(tmp_path / "c", {"docs/conf.py": new}, [("hx.patch", NO_HOVERXREF)])
    assert verdict.verdict == "conflict"


def test_a_post_image_the_pin_already_has_is_not_upstream(tmp_path: Path) -> None:
    """Upstream tightened test_wait and kept the dropped function: the patch's post-image
    still stands at the end of that function, as at the pin, so it reverses there. That
    proves nothing; the removal is still to make (a refresh: its lines are unchanged)."""
    new = FLAKY_TESTS.replace("<= 0.2, 'did not stop", "<= 0.3, 'did not stop", 1)
    [verdict] = judge(
        tmp_path,
        {"tests/subprocess_test.py": new},
        [("remove-poll-test.patch", DROP_FLAKY_TEST)],
        old={"tests/subprocess_test.py": FLAKY_TESTS},
    )
    assert (verdict.verdict, verdict.action) == ("conflict", "carry")
    assert verdict.summary.startswith(
        "tests/subprocess_test.py #1 fails at fuzz 0 (closest: tests/subprocess_test.py line "
        "7, 12 of 13 lines match); it adds no substantive lines; its 1 hunk (1 file) lands "
        "with its + and - lines unchanged"
    )


def test_the_same_removal_made_upstream_is_upstreamed(tmp_path: Path) -> None:
    new = "# header\n" + FLAKY_TESTS.replace(FLAKY_TEST, "")
    [verdict] = judge(
        tmp_path,
        {"tests/subprocess_test.py": new},
        [("remove-poll-test.patch", DROP_FLAKY_TEST)],
        old={"tests/subprocess_test.py": FLAKY_TESTS},
    )
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.rule == "reverse-applies"
    assert verdict.summary == (
        "the patch reverse-applies: the new upstream already has its post-image (tests "
        "only); it adds no substantive lines; to do: retire (upstream has it)"
    )
