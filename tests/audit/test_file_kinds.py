"""Class 3: what a file is. Release notes never decide a verdict (a fragment upstream consumed
into its changelog is upstream), a tests-only patch is judged on its tests and says so, and a
configuration hunk is not waived like tests nor found as loosely as code."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

from patchkeeper.series.filekinds import kind_of

CODE = """def read(stream, amt=None):
    data = stream.read(amt)
    return data
"""

FIX = """Subject: stop on an empty chunk (#4242)
---
--- a/pkg/response.py
+++ b/pkg/response.py
@@ -1,3 +1,5 @@
 def read(stream, amt=None):
     data = stream.read(amt)
+    if not data and amt:
+        raise ProtocolError("empty chunk before the end of the body")
     return data
"""

CHANGES_HUNK = """--- a/CHANGES.rst
+++ b/CHANGES.rst
@@ -1,3 +1,6 @@
 Changes
 =======
 
+1.4.1 (unreleased)
+- Stop reading on an empty chunk before the end of the body.
+
"""

FRAGMENT = """--- /dev/null
+++ b/newsfragments/4242.bugfix.rst
@@ -0,0 +1 @@
+Stop reading on an empty chunk before the end of the body. (#4242)
"""


def test_kinds_of_files() -> None:
    paths = [
        "newsfragments/4242.bugfix.rst", "changelog.d/x.md", "NEWS", "HISTORY.rst",
        "pytest.ini", "setup.cfg", "tox.ini", "pyproject.toml", "tests/test_x.py",
        "docs/index.rst", "src/pkg/x.py",
    ]  # fmt: skip
    assert [kind_of(p) for p in paths] == [
        "release notes", "release notes", "release notes", "release notes",
        "configuration", "configuration", "configuration", "configuration", "tests",
        "docs", "code",
    ]  # fmt: skip


def test_a_note_never_blocks_a_code_verdict(tmp_path: Path) -> None:
    new = {"pkg/response.py": CODE, "CHANGES.rst": "Changes\n=======\n\n1.5.0\n- Other.\n"}
    [verdict] = judge(tmp_path, new, [("empty.patch", FIX + CHANGES_HUNK)])
    assert (verdict.verdict, verdict.action) == ("clean", "carry")
    assert verdict.summary == (
        "applies at fuzz 0, every hunk in place; release notes left aside (CHANGES.rst): a "
        "note never decides the verdict; to do: carry (it applies)"
    )


def test_a_fragment_consumed_into_the_changelog_is_upstream(tmp_path: Path) -> None:
    changes = (
        "Changes\n=======\n\n1.4.1\n-----\n\n- Stop reading on an empty chunk before the end of "
        "the body. (`#4242 <https://example.org/issues/4242>`__)\n"
    )
    fixed = CODE.replace(
        "    return data",
        "    if not data and amt:\n        raise ProtocolError(\n"
        '            "empty chunk before the end of the body"\n        )\n    return data',
    )
    new = {"pkg/response.py": fixed, "CHANGES.rst": changes}
    [verdict] = judge(tmp_path, new, [("empty.patch", FIX + FRAGMENT)])
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert [(h.path, h.status, h.how) for h in verdict.hunks] == [
        ("pkg/response.py", "present", "added lines found"),
        ("newsfragments/4242.bugfix.rst", "present", "consumed into CHANGES.rst (line 7)"),
    ]
    # the fragment alone: upstream too, and it says where
    [verdict] = judge(tmp_path / "b", new, [("note.patch", "Subject: note\n---\n" + FRAGMENT)])
    assert (verdict.verdict, verdict.kind) == ("upstreamed", "release notes")
    assert verdict.summary.startswith(
        "every hunk's post-image is there (newsfragments/4242.bugfix.rst #1) (release notes only)"
    )
    # not in the changelog: the fragment is simply created
    [verdict] = judge(
        tmp_path / "c", {"CHANGES.rst": "Changes\n"}, [("n.patch", "S: n\n---\n" + FRAGMENT)]
    )
    assert (verdict.verdict, verdict.action) == ("clean", "carry")


TEST_ONLY = """Subject: skip the IPv6 test without a network
---
--- a/tests/test_net.py
+++ b/tests/test_net.py
@@ -1,4 +1,6 @@
 import pytest
 
+
+@pytest.mark.skipif(not HAS_IPV6, reason="no IPv6 network")
 def test_ipv6():
     assert connect("::1")
"""


def test_a_tests_only_patch_is_judged_on_its_tests(tmp_path: Path) -> None:
    new = {
        "pkg/net.py": "def connect(host):\n    return host\n",
        "tests/test_net.py": 'import pytest\n\n\n@pytest.mark.skipif(not HAS_IPV6, reason="no IPv6 network")\n'
        "def test_ipv6() -> None:\n    assert connect('::1')\n",
    }
    [verdict] = judge(tmp_path, new, [("skip.patch", TEST_ONLY)])
    assert (verdict.verdict, verdict.kind, verdict.action) == ("upstreamed", "tests", "retire")
    assert verdict.summary == (
        "every hunk's post-image is there (tests/test_net.py #1) (tests only); 1 of 1 "
        "substantive added lines already upstream (strongest: tests/test_net.py 1/1); to do: "
        "retire (upstream has it)"
    )
    new["tests/test_net.py"] = (
        "import pytest\n\n\ndef test_ipv6() -> None:\n    assert connect('::1')\n"
    )
    [verdict] = judge(tmp_path / "b", new, [("skip.patch", TEST_ONLY)])
    assert (verdict.verdict, verdict.kind) == ("conflict", "tests")


SETUP_CFG = """[tool:pytest]
addopts = -ra
filterwarnings =
    error
    ignore::DeprecationWarning:six

[flake8]
max-line-length = 100
"""

CONFIG_PATCH = """Subject: ignore the deprecation warnings of six
---
--- a/setup.cfg
+++ b/setup.cfg
@@ -1,6 +1,7 @@
 [tool:pytest]
 addopts = -ra
 filterwarnings =
     error
+    ignore::DeprecationWarning:pkg.compat
     ignore::DeprecationWarning:six
 
"""


def test_a_configuration_hunk_is_not_found_as_loosely_as_code(tmp_path: Path) -> None:
    # the new release has the added line, but in another section: not this change
    new_cfg = SETUP_CFG.replace("addopts = -ra", "addopts = -ra -q").replace(
        "max-line-length = 100", "max-line-length = 100\nignore::DeprecationWarning:pkg.compat"
    )
    [verdict] = judge(tmp_path, {"setup.cfg": new_cfg}, [("cfg.patch", CONFIG_PATCH)])
    assert (verdict.verdict, verdict.kind, verdict.action) == ("conflict", "configuration", "port")
    # with the whole post-image there (reformatted around it), it is upstream
    new_cfg = SETUP_CFG.replace("addopts = -ra", "addopts = -ra -q").replace(
        "    error\n", "    error\n    ignore::DeprecationWarning:pkg.compat\n"
    )
    [verdict] = judge(tmp_path / "b", {"setup.cfg": new_cfg}, [("cfg.patch", CONFIG_PATCH)])
    assert (verdict.verdict, verdict.kind) == ("upstreamed", "configuration")
    assert verdict.hunks[0].how == "added lines found"


FRAGMENT_EDIT = """Subject: name the CVE in the release note
---
--- a/src/pkg/newsfragments/5150.bugfix
+++ b/src/pkg/newsfragments/5150.bugfix
@@ -1 +1 @@
-pkg.vhost no longer echoes the Host header unescaped (GHSA-aaaa-bbbb-cccc).
+pkg.vhost no longer echoes the Host header unescaped (CVE-2031-0001, GHSA-aaaa-bbbb-cccc).
"""


def test_an_edit_of_a_fragment_the_changelog_consumed_is_upstream(tmp_path: Path) -> None:
    # towncrier deleted the fragment when it rendered it, with its issue number after it
    # (Twisted 24.11.0's NEWS.rst holds Debian's edit of 11716.bugfix this way)
    news = (
        "Bugfixes\n--------\n\n- pkg.vhost no longer echoes the Host header unescaped "
        "(CVE-2031-0001, GHSA-aaaa-bbbb-cccc). (#5150)\n"
    )
    [verdict] = judge(tmp_path, {"NEWS.rst": news}, [("cve.patch", FRAGMENT_EDIT)])
    assert (verdict.verdict, verdict.action, verdict.kind) == (
        "upstreamed",
        "retire",
        "release notes",
    )
    assert [(h.path, h.status, h.how) for h in verdict.hunks] == [
        ("src/pkg/newsfragments/5150.bugfix", "present", "consumed into NEWS.rst (line 4)"),
    ]
    # the changelog has the note without the edit: the edit is not upstream
    old_news = news.replace("CVE-2031-0001, ", "")
    [verdict] = judge(tmp_path / "b", {"NEWS.rst": old_news}, [("cve.patch", FRAGMENT_EDIT)])
    assert (verdict.verdict, verdict.action) == ("target gone", "look")
    assert verdict.summary.startswith("src/pkg/newsfragments/5150.bugfix no longer exists")


def test_generated_metadata_and_antsibull_fragments() -> None:
    paths = [
        "changelogs/fragments/79399-resolvelib.yml", "changelogs/changelog.yaml", "PKG-INFO",
        "lib/ansible_core.egg-info/PKG-INFO", "lib/ansible_core.egg-info/requires.txt",
        "lib/ansible/changelogs.py", "lib/pkg/egg_info.py",
    ]  # fmt: skip
    assert [kind_of(p) for p in paths] == [
        "release notes", "release notes", "configuration", "configuration", "configuration",
        "code", "code",
    ]  # fmt: skip


# the shape of an Ansible fix: the code and a changelogs/fragments/ note (antsibull-changelog)
ANSIBLE_FIX = (
    FIX
    + """--- /dev/null
+++ b/changelogs/fragments/4242-empty-chunk.yml
@@ -0,0 +1,2 @@
+bugfixes:
+  - response - stop reading on an empty chunk before the end of the body.
"""
)


def test_an_antsibull_fragment_never_decides_a_code_verdict(tmp_path: Path) -> None:
    # upstream has the code and consumed its own fragment: the patch's note is left aside
    fixed = CODE.replace(
        "    return data\n",
        '    if not data and amt:\n        raise ProtocolError("empty chunk before the end of '
        'the body")\n    return data\n',
    )
    [verdict] = judge(
        tmp_path,
        {"pkg/response.py": fixed},
        [("empty.patch", ANSIBLE_FIX)],
        old={"pkg/response.py": CODE},
    )
    assert (verdict.verdict, verdict.action, verdict.kind) == ("upstreamed", "retire", "code")
    assert verdict.summary == (
        "the patch reverse-applies: the new upstream already has its post-image; 2 of 2 "
        "substantive added "
        "lines already upstream (strongest: pkg/response.py 2/2); release notes left aside "
        "(changelogs/fragments/4242-empty-chunk.yml): a note never decides the verdict; "
        "to do: retire (upstream has it)"
    )
