"""A patch whose DEP-3 ``Applied-Upstream`` names a release at or below the audited one: the
header is evidence (upstreamed when the content bears it out, else a reason to look), never
a plain *port*. The shape of Debian's python-werkzeug 2.2.2 series: a CVE fix backported from
2.2.3 (``Applied-Upstream: 2.2.3``, written indented under the ``Description``), audited
against a later release that rewrote the cookie parser."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge, write_tree

from patchkeeper.audit.applied_upstream import applied_upstream, header_values, named_version
from patchkeeper.series.parse import parse_patch

PARSER = '''_cookie_re = re.compile(
    rb"""
    (?P<key>[^=;]+)
    (?:\\s*=\\s*(?P<val>[^;]*))?
    \\s*;
""",
    flags=re.VERBOSE,
)


def _cookie_parse_impl(b):
    i = 0
    n = len(b)

    while i < n:
        match = _cookie_re.search(b + b";", i)
        if not match:
            break
        i = match.end(0)
        yield match.group("key").strip(), match.group("val") or b""
'''

FIX = '''Description: don't strip leading = when parsing cookie
 Applied-Upstream: 2.2.3
Author: A Maintainer <maintainer@example.org>
Origin: upstream, https://example.org/cookies/commit/cf275f42acad
Last-Update: 2023-04-21

--- a/pkg/_internal.py
+++ b/pkg/_internal.py
@@ -1,6 +1,6 @@
 _cookie_re = re.compile(
     rb"""
-    (?P<key>[^=;]+)
+    (?P<key>[^=;]*)
     (?:\\s*=\\s*(?P<val>[^;]*))?
     \\s*;
 """,
@@ -11,10 +11,14 @@ _cookie_re = re.compile(
 def _cookie_parse_impl(b):
     i = 0
     n = len(b)
+    b += b";"
 
     while i < n:
-        match = _cookie_re.search(b + b";", i)
+        match = _cookie_re.match(b, i)
         if not match:
             break
         i = match.end(0)
-        yield match.group("key").strip(), match.group("val") or b""
+        key = match.group("key").strip()
+        if not key:
+            continue
+        yield key, match.group("val") or b""
'''

# the later release rewrote the parser (a new regex, a loop over matches): nothing the
# patch removes is left, and none of its lines is there as written
REWRITTEN = '''_cookie_re = re.compile(
    r"""
    ([^=;]*)
    (?:\\s*=\\s*([^;]*))?
    \\s*;?
""",
    flags=re.ASCII | re.VERBOSE,
)


def parse_cookie(cookie):
    out = []
    for ck, cv in _cookie_re.findall(cookie):
        ck = ck.strip()
        if ck:
            out.append((ck, cv))
    return out
'''

# the later release changed the code around the fix and still has the lines it replaces
CHANGED_AROUND = PARSER.replace("    i = 0\n    n = len(b)\n", "    i, n = 0, len(b)\n").replace(
    "flags=re.VERBOSE,", "flags=re.ASCII | re.VERBOSE,"
)

OLD = {"pkg/_internal.py": PARSER}


def test_the_header_and_a_rewritten_fix_make_it_upstreamed(tmp_path: Path) -> None:
    [verdict] = judge(
        tmp_path, {"pkg/_internal.py": REWRITTEN}, [("0003.patch", FIX)], OLD, version="3.0.6"
    )
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.applied_upstream == (
        "its header says 'Applied-Upstream: 2.2.3' (at or below 3.0.6)"
    )
    assert verdict.summary == (
        "upstream rewrote the code the patch changes: the lines pkg/_internal.py #1, "
        "pkg/_internal.py #2 remove are gone from the new release; its header says "
        "'Applied-Upstream: 2.2.3' (at or below 3.0.6); 0 of 6 substantive added lines "
        "already upstream (strongest: pkg/_internal.py 0/6); to do: retire (upstream has it)"
    )


def test_the_header_with_content_that_differs_is_a_reason_to_look(tmp_path: Path) -> None:
    [verdict] = judge(
        tmp_path, {"pkg/_internal.py": CHANGED_AROUND}, [("0003.patch", FIX)], OLD, version="3.0.6"
    )
    assert (verdict.verdict, verdict.action) == ("conflict", "look")
    assert verdict.rule == "applied-upstream-header"
    assert verdict.summary.endswith(
        "; its header says 'Applied-Upstream: 2.2.3' (at or below 3.0.6), a reason to look; "
        "to do: look (its header says upstream has it, the content differs)"
    )


def test_a_header_naming_a_later_release_or_no_release_is_no_evidence(tmp_path: Path) -> None:
    later = [("0003.patch", FIX)]
    url_only = [
        (
            "0003.patch",
            FIX.replace(
                " Applied-Upstream: 2.2.3",
                " Applied-Upstream: https://example.org/cookies/commit/cf275f42acad",
            ),
        )
    ]
    cases = [
        (later, "2.2.2", REWRITTEN, "port"),  # the fix came in 2.2.3, the audited release is older
        (later, None, REWRITTEN, "port"),  # the audited release's version is unknown
        (url_only, "3.0.6", REWRITTEN, "port"),  # a URL names no release
        # the lines the fix replaces are still there: it lands on them, refreshed
        (later, "2.2.2", CHANGED_AROUND, "carry"),
    ]
    for number, (patches, version, new, action) in enumerate(cases):
        [verdict] = judge(
            tmp_path / str(number), {"pkg/_internal.py": new}, patches, OLD, version=version
        )
        assert (verdict.verdict, verdict.action, verdict.applied_upstream) == (
            "conflict",
            action,
            "",
        ), number
        assert "Applied-Upstream" not in verdict.summary


def test_the_header_is_read_as_dep3_writes_it_and_folded(tmp_path: Path) -> None:
    field = FIX.replace(" Applied-Upstream: 2.2.3\n", "").replace(
        "Last-Update:",
        "Applied-Upstream: v2.2.3, https://example.org/commit/cf275f42\nLast-Update:",
    )
    folded = parse_patch(FIX.encode(), name="a.patch", path=Path("a.patch"))
    proper = parse_patch(field.encode(), name="b.patch", path=Path("b.patch"))
    assert header_values(folded) == ("2.2.3",)
    assert header_values(proper) == ("v2.2.3, https://example.org/commit/cf275f42",)
    assert applied_upstream(proper, "2.2.3") is not None
    assert applied_upstream(proper, "2.2.3rc1") is None  # PEP 440: a pre-release is older
    assert applied_upstream(proper, "10.0") is not None  # compared as versions, not text
    assert [named_version(v) for v in ("1.26.18, https://x/commit/0a1b", "commit:0a1b2c3")] == [
        "1.26.18",
        None,
    ]


def test_audit_reads_the_release_version_from_the_tree(cli, tmp_path: Path) -> None:
    # a directory target's version comes from its PKG-INFO; the horizon names each release
    meta = "Metadata-Version: 2.1\nName: cookies\nVersion: {}\n"
    write_tree(tmp_path / "old", {"PKG-INFO": meta.format("2.2.2"), **OLD})
    write_tree(tmp_path / "new", {"PKG-INFO": meta.format("3.0.6"), "pkg/_internal.py": REWRITTEN})
    down = write_tree(
        tmp_path / "down",
        {
            "patchkeeper.toml": 'upstream = "cookies"\npin = "2.2.2"\nseries = "patches/series"\n'
            'pristine = "../old"\n',
            "patches/series": "0003.patch\n",
            "patches/0003.patch": FIX,
        },
    )
    run = cli("audit", "--to", str(tmp_path / "new"), cwd=down)
    assert run.code == 0, run.out + run.err
    assert "0003.patch  upstreamed  upstream rewrote the code" in run.out
    assert "its header says 'Applied-Upstream: 2.2.3' (at or below 3.0.6)" in run.out


# The shape of a slow-parsing fix a later release moved into a new method, renaming the
# variables of two of its four lines (and, in the condition, the newline: three names, more
# than a line spelled differently may change)
DECODER = """class MultipartDecoder:
    def next_event(self):
        if self.state == State.DATA:
            if self.buffer.find(b"--" + self.boundary) == -1:
                # No complete boundary in the buffer, but there may be
                # a partial boundary at the end.
                data_length = del_index = self.last_newline()
                more_data = True
            else:
                match = self.boundary_re.search(self.buffer)
        return event
"""

SLOW_PARSING = """Subject: Fix slow multipart parsing for huge files with few CR/LF characters
Applied-Upstream: 3.0.1
---
--- a/pkg/multipart.py
+++ b/pkg/multipart.py
@@ -1,10 +1,16 @@
 class MultipartDecoder:
     def next_event(self):
         if self.state == State.DATA:
-            if self.buffer.find(b"--" + self.boundary) == -1:
+            boundary = b"--" + self.boundary
+
+            if self.buffer.find(boundary) == -1:
                 # No complete boundary in the buffer, but there may be
                 # a partial boundary at the end.
                 data_length = del_index = self.last_newline()
+                # If amount of data after last newline is far from
+                # possible length of partial boundary, return all data.
+                if (len(self.buffer) - data_length) > len(b"\\n" + boundary):
+                    data_length = del_index = len(self.buffer)
                 more_data = True
             else:
                 match = self.boundary_re.search(self.buffer)
"""

DECODER_REWRITTEN = """class MultipartDecoder:
    def _parse_data(self, data, *, start):
        boundary = b"--" + self.boundary

        if self.buffer.find(boundary) == -1:
            # No complete boundary in the buffer, but there may be
            # a partial boundary at the end.
            data_end = del_index = self.last_newline(data)
            # If amount of data after last newline is far from
            # possible length of partial boundary, return all data.
            if (len(data) - data_end) > len(NEWLINE + boundary):
                data_end = del_index = len(data)
            more_data = True
        else:
            match = self.boundary_re.search(data)
        return data, del_index, more_data
"""


def test_the_header_lowers_the_share_written_differently_needs(tmp_path: Path) -> None:
    new = {"pkg/multipart.py": DECODER_REWRITTEN}
    old = {"pkg/multipart.py": DECODER}
    patches = [("CVE-2023-46136.patch", SLOW_PARSING)]
    [verdict] = judge(tmp_path, new, patches, old, version="3.0.6")
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.rule == "applied-upstream-header"
    assert verdict.summary.startswith(
        "upstream has it written differently: 2 of 4 substantive added lines are there and its "
        "header names the release (pkg/multipart.py 2/4) (lines the old pin already had are not "
        "counted); not found, review before retiring: "
    )
    assert verdict.summary.endswith(
        "; its header says 'Applied-Upstream: 3.0.1' (at or below 3.0.6); 2 of 4 substantive "
        "added lines already upstream (strongest: pkg/multipart.py 2/4); to do: retire (after "
        "reviewing the lines not found)"
    )
    # half of the lines, without the header's word, is not enough to retire it; the method
    # it changes is gone from the file, with its lines: a person decides
    [verdict] = judge(tmp_path / "b", new, patches, old, version="3.0.0")
    assert (verdict.verdict, verdict.action, verdict.applied_upstream) == ("conflict", "look", "")
    assert (verdict.rule, verdict.rewritten) == (
        "function-rewritten",
        "upstream rewrote the function pkg/multipart.py #1 changes: since the pin, `next_event` "
        "(pkg/multipart.py #1) is gone from the file, which holds 1 of the hunk's 6 lines",
    )
