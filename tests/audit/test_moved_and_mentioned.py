"""Class 6: code moved to another file while the old file still exists; class 7: the new
release's changelog names the patch's fix (a CVE id, a pull request)."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

from patchkeeper.jsonable import to_jsonable

CLIENT_OLD = """from pkg.util import log


def send(request):
    return request.send()


def redirect(response, headers):
    location = response.headers["Location"]
    headers.pop("Authorization", None)
    log.debug("redirect to %s", location)
    return location
"""

STRIP_COOKIE = """Subject: strip the cookie on redirect
---
--- a/pkg/client.py
+++ b/pkg/client.py
@@ -8,5 +8,6 @@ def send(request):
 def redirect(response, headers):
     location = response.headers["Location"]
     headers.pop("Authorization", None)
+    headers.pop("Cookie", None)
     log.debug("redirect to %s", location)
     return location
"""

CLIENT_NEW = """from pkg.redirects import redirect
from pkg.util import log


def send(request, timeout=None):
    return request.send(timeout=timeout)
"""

REDIRECTS_NEW = """from pkg.util import log


def redirect(response, headers):
    location = response.headers["Location"]
    headers.pop("Authorization", None)
    log.debug("redirect to %s", location)
    return location
"""


def test_a_hunk_whose_code_moved_names_the_place(tmp_path: Path) -> None:
    new = {"pkg/client.py": CLIENT_NEW, "pkg/redirects.py": REDIRECTS_NEW}
    [verdict] = judge(
        tmp_path, new, [("cookie.patch", STRIP_COOKIE)], {"pkg/client.py": CLIENT_OLD}
    )
    # the hunk lands in the new file with its lines unchanged: refresh it there
    assert (verdict.verdict, verdict.action) == ("conflict", "carry")
    [hunk] = verdict.hunks
    assert (hunk.moved_to, hunk.moved_line, hunk.moved_found, hunk.moved_total) == (
        "pkg/redirects.py",
        4,
        5,
        5,
    )
    assert verdict.summary == (
        "pkg/client.py #1 fails at fuzz 0; "
        "pkg/client.py #1: its context is in pkg/redirects.py (line 4, 5 of 5 context lines there); 0 of "
        "1 substantive added lines already upstream (strongest: pkg/client.py 0/1); since the "
        "pin, `redirect` (pkg/client.py #1) is gone from the file, which holds 0 of the hunk's "
        "5 lines; its code moved to another file, where it lands with its + and - lines unchanged: pkg/client.py "
        "#1 in pkg/redirects.py; to do: carry (refresh it: its hunks land with their + and - "
        "lines unchanged)"
    )


def test_a_fix_upstream_made_in_the_file_the_code_moved_to(tmp_path: Path) -> None:
    fixed = REDIRECTS_NEW.replace(
        '    headers.pop("Authorization", None)\n',
        '    headers.pop("Authorization", None)\n    headers.pop("Cookie", None)\n',
    )
    new = {"pkg/client.py": CLIENT_NEW, "pkg/redirects.py": fixed}
    [verdict] = judge(
        tmp_path, new, [("cookie.patch", STRIP_COOKIE)], {"pkg/client.py": CLIENT_OLD}
    )
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    [hunk] = verdict.hunks
    assert (hunk.status, hunk.how, hunk.moved_to) == (
        "present",
        "reverse-applies in pkg/redirects.py",
        "pkg/redirects.py",
    )


CVE_PATCH = """From: A Maintainer <maintainer@example.org>
Subject: Limit the length of the Location header
Origin: upstream, https://example.org/pkg/pkg/pull/812
Bug-Debian: https://example.org/debian/1074149
---
--- a/pkg/client.py
+++ b/pkg/client.py
@@ -8,5 +8,8 @@ def send(request):
 def redirect(response, headers):
     location = response.headers["Location"]
+    location = location.strip()
+    if len(location) > MAX_LOCATION_LENGTH:
+        raise RedirectError("Location header too long")
     headers.pop("Authorization", None)
     log.debug("redirect to %s", location)
     return location
"""

CHANGES_OLD = "Changes\n=======\n\n1.4.0\n-----\n\n- Dropped Python 3.7 (#790).\n"
CHANGES_NEW = (
    "Changes\n=======\n\n1.4.1\n-----\n\n- Limit the length of redirect locations "
    "(CVE-2031-0002, #812).\n\n1.4.0\n-----\n\n- Dropped Python 3.7 (#790).\n"
)


def _client_with(*lines: str) -> str:
    body = "".join(f"    {line}\n" for line in lines)
    return CLIENT_OLD.replace(
        '    headers.pop("Authorization", None)\n',
        body + '    headers.pop("Authorization", None)\n',
    ).replace("def send(request):", "def send(request, timeout=None):")


def test_a_changelog_mention_supports_written_differently(tmp_path: Path) -> None:
    client = _client_with(
        "location = location.strip()",
        "if len(location) > MAX_LOCATION_LENGTH:",
        "    raise RedirectError(f'Location header too long: {len(location)}')",
    ).replace(
        '    location = response.headers["Location"]\n',
        '    location = response.headers.get("Location")\n',
    )
    new = {"pkg/client.py": client, "CHANGES.rst": CHANGES_NEW}
    old = {"pkg/client.py": CLIENT_OLD, "CHANGES.rst": CHANGES_OLD}
    name = "CVE-2031-0002.patch"
    [verdict] = judge(tmp_path, new, [(name, CVE_PATCH)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.rule == "changelog-mention"
    assert [(m.reference, m.path, m.line) for m in verdict.mentions] == [
        ("812", "CHANGES.rst", 7),
        ("CVE-2031-0002", "CHANGES.rst", 7),
    ]
    line = "- Limit the length of redirect locations (CVE-2031-0002, #812)."
    assert to_jsonable(verdict)["mentions"] == [
        {"reference": "812", "path": "CHANGES.rst", "line": 7, "text": line},
        {"reference": "CVE-2031-0002", "path": "CHANGES.rst", "line": 7, "text": line},
    ]
    assert verdict.summary == (
        "upstream has it written differently: 2 of 3 substantive added lines are there and the "
        "changelog names the fix (pkg/client.py 2/3) (lines the old pin already had are not "
        'counted); not found, review before retiring: `raise RedirectError("Location header too '
        "long\")`; the new release's changelog names 812: CHANGES.rst line 7: '- Limit the "
        "length of redirect locations (CVE-2031-0002, #812).' (and 1 more); 2 of 3 substantive "
        "added lines already upstream (strongest: pkg/client.py 2/3); to do: retire (after "
        "reviewing the lines not found)"
    )
    # the same content without the mention: most of it is there, not enough to retire
    new["CHANGES.rst"] = CHANGES_OLD
    [verdict] = judge(tmp_path / "b", new, [(name, CVE_PATCH)], old)
    assert (verdict.verdict, verdict.action, verdict.mentions) == (
        "partially upstreamed",
        "look",
        (),
    )


def test_a_changelog_mention_alone_is_a_reason_to_look(tmp_path: Path) -> None:
    client = _client_with("check_location(location)")
    new = {"pkg/client.py": client, "CHANGES.rst": CHANGES_NEW}
    old = {"pkg/client.py": CLIENT_OLD, "CHANGES.rst": CHANGES_OLD}
    [verdict] = judge(tmp_path, new, [("CVE-2031-0002.patch", CVE_PATCH)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "look")
    assert verdict.summary.endswith(
        "; the new release's changelog names 812: CHANGES.rst line 7: '- Limit the length of "
        "redirect locations (CVE-2031-0002, #812).' (and 1 more), a reason to look; to do: look "
        "(the changelog names its fix, the content differs)"
    )


def test_a_mention_the_old_changelog_has_is_no_evidence(tmp_path: Path) -> None:
    client = _client_with("check_location(location)")
    new = {"pkg/client.py": client, "CHANGES.rst": CHANGES_NEW}
    # the old release's changelog already named both (an earlier fix of the same CVE)
    old = {"pkg/client.py": CLIENT_OLD, "CHANGES.rst": CHANGES_NEW}
    [verdict] = judge(tmp_path, new, [("CVE-2031-0002.patch", CVE_PATCH)], old)
    assert (verdict.verdict, verdict.action, verdict.mentions) == ("conflict", "port", ())
    # a Debian bug number is not upstream's: never looked for
    debian_only = CHANGES_NEW.replace("#812", "#1074149")
    new["CHANGES.rst"] = debian_only
    old["CHANGES.rst"] = CHANGES_OLD
    [verdict] = judge(tmp_path / "b", new, [("fix.patch", CVE_PATCH)], old)
    assert verdict.mentions == ()


TESTS_OLD = """from pkg.client import redirect


def test_redirect():
    assert redirect(Response(), {}) == "/"
"""

CVE_TESTS = """--- a/tests/test_client.py
+++ b/tests/test_client.py
@@ -3,3 +3,10 @@ from pkg.client import redirect
 
 def test_redirect():
     assert redirect(Response(), {}) == "/"
+
+
+def test_long_location():
+    location = "/" * 5000
+    response = Response(location=location)
+    with pytest.raises(RedirectError):
+        redirect(response, {})
"""


def test_a_mention_with_upstreams_own_tests_for_the_fix(tmp_path: Path) -> None:
    # upstream rewrote the code (one line of three the same) and kept the patch's test
    client = _client_with(
        "location = location.strip()",
        "check_location(location)",
    )
    tests = TESTS_OLD + (
        '\n\ndef test_long_location():\n    location = "/" * 5000\n'
        "    response = Response(location=location)\n"
        "    with pytest.raises(RedirectError):\n        redirect(response, {})\n"
    )
    new = {"pkg/client.py": client, "tests/test_client.py": tests, "CHANGES.rst": CHANGES_NEW}
    old = {"pkg/client.py": CLIENT_OLD, "tests/test_client.py": TESTS_OLD}
    old["CHANGES.rst"] = CHANGES_OLD
    patches = [("CVE-2031-0002.patch", CVE_PATCH + CVE_TESTS)]
    [verdict] = judge(tmp_path, new, patches, old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.summary.startswith(
        "upstream has it written differently: with its tests, 6 of 8 substantive added lines "
        "are there and the changelog names the fix (pkg/client.py 1/3, tests/test_client.py "
        "5/5) (lines the old pin already had are not counted); not found, review before "
        "retiring: `if len(location) > MAX_LOCATION_LENGTH:`; "
        '`raise RedirectError("Location header too long")`'
    )
    # without the mention the code decides: one line of three is not enough
    new["CHANGES.rst"] = CHANGES_OLD
    [verdict] = judge(tmp_path / "b", new, patches, old)
    assert verdict.verdict == "conflict"
