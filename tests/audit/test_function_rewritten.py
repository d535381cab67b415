"""A patch whose failing hunks edit a function upstream rewrote since the pin: *look*.

How much of the function upstream changed is a fact of the two trees, reported whatever the
action; a function rewritten (or removed) under every failing hunk of a code patch turns
*port* into *look*, and a function changed a little leaves it *port*.
"""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

from patchkeeper.audit import regions

FETCH_OLD = """import os


def download(url, folder):
    name = url.rsplit("/", 1)[-1]
    if not name:
        name = "index.html"
    path = os.path.join(folder, name)
    with open(path, "wb") as out:
        out.write(fetch(url))
    return path


def fetch(url):
    return b""
"""

# keep a downloaded file inside its folder
BASENAME = """Subject: keep downloads inside their folder
---
--- a/pkg/fetch.py
+++ b/pkg/fetch.py
@@ -5,7 +5,7 @@ def download(url, folder):
     name = url.rsplit("/", 1)[-1]
     if not name:
         name = "index.html"
-    path = os.path.join(folder, name)
+    path = os.path.join(folder, os.path.basename(name))
     with open(path, "wb") as out:
         out.write(fetch(url))
     return path
"""

# upstream moved the naming to a helper of its own, which refuses a name outside the folder
FETCH_REWRITTEN = """import pathlib
import urllib.parse


def download(url, folder):
    \"\"\"Download ``url`` into ``folder``.\"\"\"
    target = _target(url, folder)
    target.write_bytes(fetch(url))
    return str(target)


def _target(url, folder):
    name = pathlib.PurePosixPath(urllib.parse.urlsplit(url).path).name or "index.html"
    target = (pathlib.Path(folder) / name).resolve()
    if pathlib.Path(folder).resolve() not in target.parents:
        raise ValueError(f"unsafe file name {name}")
    return target


def fetch(url):
    return b""
"""

# upstream changed two lines of the function, the one the patch changes among them
FETCH_TOUCHED = FETCH_OLD.replace(
    'name = url.rsplit("/", 1)[-1]', 'name = url.split("?")[0].rsplit("/", 1)[-1]'
).replace("os.path.join(folder, name)", 'os.path.join(folder or ".", name)')


def test_a_hunk_in_a_function_upstream_rewrote_is_a_look(tmp_path: Path) -> None:
    old = {"pkg/fetch.py": FETCH_OLD}
    new = {"pkg/fetch.py": FETCH_REWRITTEN}
    [verdict] = judge(tmp_path, new, [("basename.patch", BASENAME)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == (
        "conflict",
        "look",
        "function-rewritten",
    )
    assert verdict.rewritten == (
        "upstream rewrote the function pkg/fetch.py #1 changes: since the pin, 7 of the 8 "
        "lines of `download` (pkg/fetch.py #1) changed, 0 of the hunk's 7 lines left there"
    )
    assert verdict.summary.endswith(
        f"; {verdict.rewritten}; to do: look (upstream rewrote the function it changes; "
        "decide whether that has the fix)"
    )


def test_a_hunk_in_a_function_upstream_changed_a_little_is_a_port(tmp_path: Path) -> None:
    old = {"pkg/fetch.py": FETCH_OLD}
    new = {"pkg/fetch.py": FETCH_TOUCHED}
    [verdict] = judge(tmp_path, new, [("basename.patch", BASENAME)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == ("conflict", "port", "hunks-fail")
    assert verdict.rewritten == ""
    # the fact is reported all the same
    assert verdict.summary.endswith(
        "; since the pin, 2 of the 8 lines of `download` (pkg/fetch.py #1) changed, 5 of "
        "the hunk's 7 lines left there; to do: port (rework the failing hunks)"
    )


def test_without_the_pin_there_is_no_fact_and_it_is_a_port(tmp_path: Path) -> None:
    new = {"pkg/fetch.py": FETCH_REWRITTEN}
    [verdict] = judge(tmp_path, new, [("basename.patch", BASENAME)])
    assert (verdict.action, verdict.rule, verdict.rewritten) == ("port", "hunks-fail", "")
    assert "since the pin" not in verdict.summary


# another patch of the same function: its hunk fails in the same new file
INDEX = """Subject: name the index page
---
--- a/pkg/fetch.py
+++ b/pkg/fetch.py
@@ -4,6 +4,6 @@
 def download(url, folder):
     name = url.rsplit("/", 1)[-1]
     if not name:
-        name = "index.html"
+        name = "index.htm"
     path = os.path.join(folder, name)
     with open(path, "wb") as out:
"""


def test_the_new_file_is_read_once_for_the_hunks_of_every_patch(tmp_path: Path) -> None:
    """Two patches fail in the same function of one file: the new release's file is read
    once (its functions and lines), and each hunk gets its own figures from it."""
    regions._new_file.cache_clear()
    old = {"pkg/fetch.py": FETCH_OLD}
    new = {"pkg/fetch.py": FETCH_REWRITTEN}
    patches = [("basename.patch", BASENAME), ("index.patch", INDEX)]
    basename, index = judge(tmp_path, new, patches, old)
    assert (basename.rule, index.rule) == ("function-rewritten", "function-rewritten")
    assert basename.rewritten.endswith(
        "7 of the 8 lines of `download` (pkg/fetch.py #1) changed, 0 of the hunk's 7 lines "
        "left there"
    )
    assert index.rewritten.endswith(
        "7 of the 8 lines of `download` (pkg/fetch.py #1) changed, 1 of the hunk's 6 lines "
        "left there"
    )
    read = regions._new_file.cache_info()
    assert (read.misses, read.currsize) == (1, 1)  # made once, for the one file


NET_OLD = """#include <stdlib.h>

static int parse_port(const char *text)
{
    int port = atoi(text);
    if (port < 0)
        return -1;
    return port;
}

int main(int argc, char **argv)
{
    return parse_port(argv[1]);
}
"""

PORT_RANGE = """Subject: refuse ports out of range
---
--- a/src/net.c
+++ b/src/net.c
@@ -3,7 +3,7 @@
 static int parse_port(const char *text)
 {
     int port = atoi(text);
-    if (port < 0)
+    if (port <= 0 || port > 65535)
         return -1;
     return port;
 }
"""

# upstream reads the port with the host now, in a function of another name
NET_NEW = """#include <stdlib.h>
#include <string.h>

static int parse_address(const char *text, char *host, size_t size)
{
    const char *colon = strrchr(text, ':');
    long port = strtol(colon + 1, NULL, 10);
    if (port < 1 || port > 65535)
        return -1;
    strncpy(host, text, size);
    return (int)port;
}

int main(int argc, char **argv)
{
    char host[256];
    return parse_address(argv[1], host, sizeof host);
}
"""


def test_a_hunk_in_a_c_function_upstream_removed_is_a_look(tmp_path: Path) -> None:
    old = {"src/net.c": NET_OLD}
    [verdict] = judge(tmp_path, {"src/net.c": NET_NEW}, [("range.patch", PORT_RANGE)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == (
        "conflict",
        "look",
        "function-rewritten",
    )
    assert verdict.rewritten == (
        "upstream rewrote the function src/net.c #1 changes: since the pin, `parse_port` "
        "(src/net.c #1) is gone from the file, which holds 1 of the hunk's 5 lines"
    )


def test_a_hunk_whose_function_was_renamed_around_its_lines_is_a_port(tmp_path: Path) -> None:
    # the function has another name, its lines are there: the code moved, it was not
    # rewritten, and the patch is to port onto it
    new = NET_OLD.replace("parse_port", "read_port").replace("(port < 0)", "(port < 0L)")
    old = {"src/net.c": NET_OLD}
    [verdict] = judge(tmp_path, {"src/net.c": new}, [("range.patch", PORT_RANGE)], old)
    assert (verdict.action, verdict.rule, verdict.rewritten) == ("port", "hunks-fail", "")
    assert verdict.summary.endswith(
        "; since the pin, `parse_port` (src/net.c #1) is gone from the file, which holds 3 of "
        "the hunk's 5 lines; to do: port (rework the failing hunks)"
    )


def test_a_tests_only_patch_in_a_rewritten_test_stays_a_port(tmp_path: Path) -> None:
    # the rule weighs code: a test upstream rewrote is still the test to adapt
    old = {"tests/test_fetch.py": FETCH_OLD}
    new = {"tests/test_fetch.py": FETCH_REWRITTEN}
    patch = BASENAME.replace("pkg/fetch.py", "tests/test_fetch.py")
    [verdict] = judge(tmp_path, new, [("basename.patch", patch)], old)
    assert (verdict.action, verdict.rule, verdict.rewritten) == ("port", "hunks-fail", "")
    assert verdict.summary.endswith(
        "; since the pin, 7 of the 8 lines of `download` (tests/test_fetch.py #1) changed, 0 "
        "of the hunk's 7 lines left there; to do: port (rework the failing hunks)"
    )


def test_a_count_of_one_line_is_said_in_the_singular() -> None:
    """A one-line function and a hunk with one line in it: "of the 1 line", "of the hunk's
    1 line", as the counts of several lines read "of the 8 lines"."""
    one = regions.Region("tick", size=1, changed=1, total=1, left=0)
    gone = regions.Region("tock", size=1, changed=1, total=1, left=1, gone=True)
    assert regions.region_text([("a.py #1", one), ("a.py #2", gone)]) == (
        "since the pin, 1 of the 1 line of `tick` (a.py #1) changed, 0 of the hunk's 1 line "
        "left there; `tock` (a.py #2) is gone from the file, which holds 1 of the hunk's 1 line"
    )
