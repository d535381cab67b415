"""Classes of real upgrades the mined corpus showed, each in the shape of its case with text
of our own: a patch blocked only for context, a removal whose lines upstream rewrote in
place, an import added among imports upstream reordered, code split out into another file,
and a one-line addition upstream made at one place of a file that repeats its construct."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

from helpers import API_NEW, API_OLD, CLI_NEW, CLI_OLD, SKIP_CODEC, VERSION_FROM_ENV

# ------------------------------------------------------------------ blocked for context only

# The pin builds the asset table in a loop; the first patch replaces the loop by a literal
# table of system paths, the second adds one entry to that table.
ASSETS_OLD = """from assets.main import Asset

names = [
    'charts',
    'icons',
    'fonts',
]

serve = {}
for name in names:
    serve[name] = Asset(name).base_dir
"""

# the new release reworded the loop: the first patch no longer applies
ASSETS_NEW = ASSETS_OLD.replace("Asset(name).base_dir", "Asset(name, root='/static').base_dir")

LITERAL_TABLE = """Subject: serve system copies of the assets
---
--- a/web/assets.py
+++ b/web/assets.py
@@ -1,11 +1,5 @@
-from assets.main import Asset
-
-names = [
-    'charts',
-    'icons',
-    'fonts',
-]
-
-serve = {}
-for name in names:
-    serve[name] = Asset(name).base_dir
+serve = {
+    'charts': '/usr/share/javascript/charts/',
+    'icons': '/usr/share/icons/web/',
+    'fonts': '/usr/share/fonts/web/',
+    }
"""

ONE_MORE = """Subject: serve the system's spinner too
---
--- a/web/assets.py
+++ b/web/assets.py
@@ -2,4 +2,5 @@
     'charts': '/usr/share/javascript/charts/',
     'icons': '/usr/share/icons/web/',
     'fonts': '/usr/share/fonts/web/',
+    'spinner': '/usr/share/javascript/spinner/',
     }
"""

# this one changes a line the first patch adds: it follows that patch's port
RETARGET = ONE_MORE.replace(
    "     'fonts': '/usr/share/fonts/web/',\n+    'spinner': '/usr/share/javascript/spinner/',\n",
    "-    'fonts': '/usr/share/fonts/web/',\n+    'fonts': '/usr/share/fonts/truetype/web/',\n",
).replace("@@ -2,4 +2,5 @@", "@@ -2,4 +2,4 @@")


def test_a_patch_blocked_only_for_context_is_carried(tmp_path: Path) -> None:
    table, one_more = judge(
        tmp_path,
        {"web/assets.py": ASSETS_NEW},
        [("table.patch", LITERAL_TABLE), ("one-more.patch", ONE_MORE)],
        old={"web/assets.py": ASSETS_OLD},
    )
    assert (table.verdict, table.action) == ("conflict", "port")
    assert (table.rule, one_more.rule) == ("hunks-fail", "blocker-context-only")
    assert (one_more.verdict, one_more.blocked_by, one_more.action) == (
        "blocked",
        "table.patch",
        "carry",
    )
    assert one_more.lands == (
        "web/assets.py #1 needs table.patch only for context: its other lines are in the new "
        "release and it changes none of that patch's lines"
    )
    assert one_more.summary.endswith(
        "; to do: carry (after table.patch is ported: its own lines fit the new release)"
    )


def test_a_blocked_patch_changing_the_blockers_lines_follows_its_port(tmp_path: Path) -> None:
    _, retarget = judge(
        tmp_path,
        {"web/assets.py": ASSETS_NEW},
        [("table.patch", LITERAL_TABLE), ("retarget.patch", RETARGET)],
        old={"web/assets.py": ASSETS_OLD},
    )
    assert (retarget.verdict, retarget.action, retarget.lands) == ("blocked", "port", "")


# ------------------------------------------------------------------ a line of the blocker that stays

# the first patch also drops the build's own link check from a configuration file the new
# release no longer has, so it fails as a whole while its docs/conf.py hunk still applies
CONF_OLD = """intersphinx_mapping = {
    'py3': ('/usr/share/doc/python3-doc/html', None),
    "zope": ("https://zope.example.org/en/latest", None),
}
"""

LOCAL_DOCS = """Subject: link the local Python documentation, not the network
---
--- a/docs/conf.py
+++ b/docs/conf.py
@@ -1,4 +1,5 @@
 intersphinx_mapping = {
     'py3': ('/usr/share/doc/python3-doc/html', None),
-    "zope": ("https://zope.example.org/en/latest", None),
+    'python': ('http://docs.example.org/3', '/usr/share/doc/python3/html/objects.inv'),
+#    "zope": ("https://zope.example.org/en/latest", None),
 }
--- a/setup.cfg
+++ b/setup.cfg
@@ -1,3 +1,3 @@
 [docs]
-linkcheck = true
+linkcheck = false
 strict = true
"""

# the second patch, cut on top of the first, comments out the line the first adds
NO_PYTHON_LINK = """Subject: no python inventory at all
---
--- a/docs/conf.py
+++ b/docs/conf.py
@@ -1,5 +1,5 @@
 intersphinx_mapping = {
     'py3': ('/usr/share/doc/python3-doc/html', None),
-    'python': ('http://docs.example.org/3', '/usr/share/doc/python3/html/objects.inv'),
+#    'python': ('http://docs.example.org/3', '/usr/share/doc/python3/html/objects.inv'),
 #    "zope": ("https://zope.example.org/en/latest", None),
 }
"""


def test_a_blocked_patch_changing_lines_of_a_blockers_applying_hunk_is_carried(
    tmp_path: Path,
) -> None:
    # the blocker's docs/conf.py hunk still applies, so its port keeps the line the second
    # patch changes: the second patch's lines stay as they are
    old = {"docs/conf.py": CONF_OLD, "setup.cfg": "[docs]\nlinkcheck = true\nstrict = true\n"}
    local, no_python = judge(
        tmp_path,
        {"docs/conf.py": CONF_OLD, "pyproject.toml": "[tool.docs]\nstrict = true\n"},
        [("local.patch", LOCAL_DOCS), ("no-python.patch", NO_PYTHON_LINK)],
        old=old,
    )
    assert (local.verdict, local.action) == ("target gone", "look")
    assert (no_python.verdict, no_python.blocked_by, no_python.action) == (
        "blocked",
        "local.patch",
        "carry",
    )


# ------------------------------------------------------------------ removal rewritten in place

README_OLD = """# Tallyho

[![Build](https://pipelines.example.org/tallyho/badge.svg?branch=stable-1)](https://pipelines.example.org/tallyho)
[![Coverage](https://coverage.example.org/tallyho/badge.svg?branch=stable-1)](https://coverage.example.org/tallyho)

Tallyho counts things.
"""

NO_BADGES = """Subject: no remote badges in the documentation
---
--- a/README.md
+++ b/README.md
@@ -1,6 +1,3 @@
 # Tallyho
 
-[![Build](https://pipelines.example.org/tallyho/badge.svg?branch=stable-1)](https://pipelines.example.org/tallyho)
-[![Coverage](https://coverage.example.org/tallyho/badge.svg?branch=stable-1)](https://coverage.example.org/tallyho)
-
 Tallyho counts things.
"""


# the manual repeats the title and the first sentence, never had the badges
MANUAL = "# Tallyho\n\nTallyho counts things.\n\n## Counting\n\nCall count().\n"


def test_a_removal_whose_lines_upstream_rewrote_in_place_is_not_upstream(tmp_path: Path) -> None:
    # the badges now name another branch: the lines are still there, changed; the manual,
    # which holds the hunk's context without the badges, is not where the removal went
    new = README_OLD.replace("stable-1", "main")
    (verdict,) = judge(
        tmp_path,
        {"README.md": new, "MANUAL.md": MANUAL},
        [("no-badges.patch", NO_BADGES)],
        old={"README.md": README_OLD, "MANUAL.md": MANUAL},
    )
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
    assert (verdict.hunks[0].status, verdict.hunks[0].moved_to) == ("fails", None)


def test_a_removal_upstream_made_is_still_upstream(tmp_path: Path) -> None:
    # upstream dropped the badges (and reworded the sentence): nothing they name is left
    new = "# Tallyho\n\nTallyho counts things, fast.\n"
    (verdict,) = judge(
        tmp_path,
        {"README.md": new},
        [("no-badges.patch", NO_BADGES)],
        old={"README.md": README_OLD},
    )
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")


# ------------------------------------------------------------------ an import among imports


def test_an_import_added_among_reordered_imports_is_carried(tmp_path: Path) -> None:
    (verdict,) = judge(
        tmp_path,
        {"tallyho/cli.py": CLI_NEW},
        [("version.patch", VERSION_FROM_ENV)],
        old={"tallyho/cli.py": CLI_OLD},
    )
    assert (verdict.verdict, verdict.action) == ("conflict", "carry")
    assert verdict.refresh == (
        "its 2 hunks (1 file) land with their + and - lines unchanged (among the imports, "
        "at fuzz 0)"
    )


def test_an_import_upstream_added_itself_is_not_placed_twice(tmp_path: Path) -> None:
    # the import hunk is there; the other one still to carry
    new = CLI_NEW.replace("import re\n", "import os\nimport re\n")
    (verdict,) = judge(
        tmp_path,
        {"tallyho/cli.py": new},
        [("version.patch", VERSION_FROM_ENV)],
        old={"tallyho/cli.py": CLI_OLD},
    )
    assert (verdict.verdict, verdict.refresh, verdict.action) == (
        "partially upstreamed",
        "",
        "port",
    )


# ------------------------------------------------------------------ code split into another file

EGG_OLD = """import os


def write_requirements(stream, reqs):
    lines = reqs or ()

    def append_cr(line):
        return line + '\\n'
    lines = map(append_cr, lines)
    stream.writelines(lines)


def write_entries(stream, entries):
    stream.write(entries)
"""

# the new release moved write_requirements into its own module (blank line moved too)
EGG_NEW = """import os

from ._requirements import write_requirements


def write_entries(stream, entries):
    stream.write(entries)
"""

REQUIREMENTS_NEW = """\"\"\"Requirements files.\"\"\"


def write_requirements(stream, reqs):
    lines = reqs or ()

    def append_cr(line):
        return line + '\\n'

    lines = map(append_cr, lines)
    stream.writelines(lines)
"""

SORTED = """Subject: write the requirements sorted, for reproducible builds
---
--- a/pkg/egg.py
+++ b/pkg/egg.py
@@ -6,7 +6,7 @@ def write_requirements(stream, reqs):
 
     def append_cr(line):
         return line + '\\n'
-    lines = map(append_cr, lines)
+    lines = map(append_cr, sorted(lines))
     stream.writelines(lines)
 
 
"""


def test_a_hunk_whose_code_moved_to_another_file_is_carried_there(tmp_path: Path) -> None:
    (verdict,) = judge(
        tmp_path,
        {"pkg/egg.py": EGG_NEW, "pkg/_requirements.py": REQUIREMENTS_NEW},
        [("sorted.patch", SORTED)],
        old={"pkg/egg.py": EGG_OLD},
    )
    assert (verdict.verdict, verdict.action) == ("conflict", "carry")
    assert verdict.rule == "refresh-moved"
    assert verdict.refresh == (
        "its code moved to another file, where it lands with its + and - lines unchanged: "
        "pkg/egg.py #1 in pkg/_requirements.py"
    )


def test_a_moved_hunk_whose_lines_upstream_changed_is_ported(tmp_path: Path) -> None:
    moved = REQUIREMENTS_NEW.replace("map(append_cr, lines)", "map(append_cr, list(lines))")
    (verdict,) = judge(
        tmp_path,
        {"pkg/egg.py": EGG_NEW, "pkg/_requirements.py": moved},
        [("sorted.patch", SORTED)],
        old={"pkg/egg.py": EGG_OLD},
    )
    assert (verdict.verdict, verdict.refresh, verdict.action) == ("conflict", "", "port")


# ------------------------------------------------------------------ one line, two places


def test_one_line_upstream_has_that_also_fits_elsewhere_is_looked_at(tmp_path: Path) -> None:
    (verdict,) = judge(
        tmp_path,
        {"docs/api.rst": API_NEW},
        [("skip.patch", SKIP_CODEC)],
        old={"docs/api.rst": API_OLD},
    )
    assert (verdict.verdict, verdict.action) == ("upstreamed", "look")
    assert verdict.rule == "fits-elsewhere"
    assert verdict.elsewhere == (
        "docs/api.rst #1 also fits line 6 at fuzz 2, where its lines are not (its lines are "
        "at line 14): quilt would apply it there"
    )
    assert verdict.summary.endswith(
        "; to do: look (upstream has it at one place; decide whether the other needs it)"
    )


def test_one_line_upstream_has_where_nothing_else_fits_is_retired(tmp_path: Path) -> None:
    new = API_NEW.replace("   :inherited-members:\n\nReading", "\nReading")
    (verdict,) = judge(
        tmp_path, {"docs/api.rst": new}, [("skip.patch", SKIP_CODEC)], old={"docs/api.rst": API_OLD}
    )
    assert (verdict.verdict, verdict.action, verdict.elsewhere) == ("upstreamed", "retire", "")


# ------------------------------------------------------------------ only the endings differ

SERVER = """class Session:
    def starttls(self, transport):
        self.reader.transport = transport
        self.writer.transport = transport
        self.transport = transport
        # check the certificate as the RFC says
        self.session.ssl = self.tls.extra
"""

CLEAR_BUFFER = """Subject: drop data sent before the handshake
---
--- a/mail/server.py
+++ b/mail/server.py
@@ -3,5 +3,6 @@ class Session:
         self.reader.transport = transport
         self.writer.transport = transport
         self.transport = transport
+        self.reader.buffer.clear()
         # check the certificate as the RFC says
         self.session.ssl = self.tls.extra
"""


def test_a_patch_failing_only_by_line_endings_is_carried(tmp_path: Path) -> None:
    # the new release's sdist ends its lines in CRLF (GNU patch: "different line endings")
    (verdict,) = judge(
        tmp_path,
        {"mail/server.py": SERVER.replace("\n", "\r\n")},
        [("clear.patch", CLEAR_BUFFER)],
        old={"mail/server.py": SERVER},
    )
    assert (verdict.verdict, verdict.action) == ("conflict", "carry")
    assert verdict.refresh == (
        "its 1 hunk (1 file) lands with its + and - lines unchanged (by git's three-way "
        "merge, in the file's CRLF line endings)"
    )


def test_a_crlf_file_whose_lines_upstream_changed_is_ported(tmp_path: Path) -> None:
    new = SERVER.replace("self.transport = transport", "self._transport = transport")
    (verdict,) = judge(
        tmp_path,
        {"mail/server.py": new.replace("\n", "\r\n")},
        [("clear.patch", CLEAR_BUFFER)],
        old={"mail/server.py": SERVER},
    )
    assert (verdict.verdict, verdict.refresh, verdict.action) == ("conflict", "", "port")


# ------------------------------------------------------------------ white space in configuration

SETUP_CFG = """[options]
tests_require =
  pytest-cov
  pytest-lint
  pytest-runner

[tool:pytest]
addopts =
  --lint
  --strict-markers
"""

NO_LINT = """Subject: no lint plugin in the test run
---
--- a/setup.cfg
+++ b/setup.cfg
@@ -2,9 +2,7 @@
 tests_require =
   pytest-cov
-  pytest-lint
   pytest-runner
 
 [tool:pytest]
 addopts =
-  --lint
   --strict-markers
"""


def test_configuration_reindented_upstream_is_carried(tmp_path: Path) -> None:
    # the sdist's setup.cfg was rewritten with tabs and trailing blanks
    new = SETUP_CFG.replace("\n  ", "\n\t").replace(" =\n", " = \n")
    (verdict,) = judge(
        tmp_path, {"setup.cfg": new}, [("no-lint.patch", NO_LINT)], old={"setup.cfg": SETUP_CFG}
    )
    assert (verdict.verdict, verdict.action) == ("conflict", "carry")
    assert verdict.refresh == (
        "its 1 hunk (1 file) lands with its + and - lines unchanged (with white space ignored)"
    )


def test_code_reindented_upstream_is_not_matched_loosely(tmp_path: Path) -> None:
    # in code, indentation is meaning: the same lines at another depth are other code
    new = SERVER.replace("\n        ", "\n            ")
    (verdict,) = judge(
        tmp_path,
        {"mail/server.py": new},
        [("clear.patch", CLEAR_BUFFER)],
        old={"mail/server.py": SERVER},
    )
    assert (verdict.verdict, verdict.refresh, verdict.action) == ("conflict", "", "port")


# ------------------------------------------------------------------ a recurring changed line

MAIN_OLD = """def run():
    if not configured():
        sys.exit(1)
    signals = [SIGTERM, SIGINT]

    # raise SystemExit so that clean-up code runs
    def on_signal(number, frame):
        sys.exit(1)
    for number in signals:
        signal.signal(number, on_signal)

    serve()
"""

CLEAN_EXIT = """Subject: exit cleanly on a signal
---
--- a/srv/__main__.py
+++ b/srv/__main__.py
@@ -5,7 +5,7 @@ def run():
 
     # raise SystemExit so that clean-up code runs
     def on_signal(number, frame):
-        sys.exit(1)
+        sys.exit(0)
     for number in signals:
         signal.signal(number, on_signal)
 
"""


def test_a_recurring_changed_line_lands_where_one_side_of_its_context_is_whole(
    tmp_path: Path,
) -> None:
    # upstream annotated the handler over two lines: the line before the change differs,
    # and "sys.exit(1)" is in the file twice; the context after it is whole at one place
    new = MAIN_OLD.replace(
        "    def on_signal(number, frame):\n",
        "    def on_signal(number: int,\n                  frame: Optional[FrameType]) -> None:\n",
    )
    (verdict,) = judge(
        tmp_path,
        {"srv/__main__.py": new},
        [("exit.patch", CLEAN_EXIT)],
        old={"srv/__main__.py": MAIN_OLD},
    )
    assert (verdict.verdict, verdict.action) == ("conflict", "carry")
    assert verdict.refresh == (
        "its 1 hunk (1 file) lands with its + and - lines unchanged (by its removed lines "
        "and the context on one side)"
    )


# ------------------------------------------------------------------ tests converted to pytest

ART_TEST_OLD = """class EmbedTest(TestCase):
    def test_embed_nothing(self):
        self.run_command("embed", "-f", self.small)
        media = Media(self.path)
        # nothing embedded
        self.assertEqual(len(media.images), 0)

    def test_embed_file(self):
        self.run_command("embed", "-f", self.image)
        media = Media(self.path)
        self.assertEqual(media.images[0].data, self.image_data)
"""

EMPTY_IMAGES = """Subject: the media library returns None for no images
---
--- a/test/test_embed.py
+++ b/test/test_embed.py
@@ -3,7 +3,7 @@ class EmbedTest(TestCase):
         self.run_command("embed", "-f", self.small)
         media = Media(self.path)
         # nothing embedded
-        self.assertEqual(len(media.images), 0)
+        self.assertFalse(media.images)
 
     def test_embed_file(self):
         self.run_command("embed", "-f", self.image)
"""

# the new release moved its plugin tests into test/plugins/ and wrote them for pytest
ART_TEST_NEW = """class EmbedTest(PluginTestCase):
    def test_embed_nothing(self):
        self.run_command("embed", "-f", self.small)
        media = Media(self.path)
        assert not media.images

    def test_embed_file(self):
        self.run_command("embed", "-f", self.image)
        media = Media(self.path)
        assert media.images[0].data == self.image_data
"""


def test_a_unittest_assertion_is_found_as_the_plain_assert_upstream_wrote(
    tmp_path: Path,
) -> None:
    (verdict,) = judge(
        tmp_path,
        {"test/plugins/test_embed.py": ART_TEST_NEW},
        [("empty-images.patch", EMPTY_IMAGES)],
        old={"test/test_embed.py": ART_TEST_OLD},
    )
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.summary.startswith(
        "test/test_embed.py moved to test/plugins/test_embed.py; every hunk's post-image is "
        "there (test/plugins/test_embed.py #1) (tests only)"
    )


def test_a_plain_assert_upstream_wrote_of_another_value_is_not_the_patch(
    tmp_path: Path,
) -> None:
    new = ART_TEST_NEW.replace("assert not media.images", "assert len(media.images) == 1")
    (verdict,) = judge(
        tmp_path,
        {"test/plugins/test_embed.py": new},
        [("empty-images.patch", EMPTY_IMAGES)],
        old={"test/test_embed.py": ART_TEST_OLD},
    )
    assert (verdict.verdict, verdict.action) == ("target gone", "port")
