"""A patch on a file only an earlier patch of the series creates, when that earlier patch is
upstream without the file: the port names the earlier patch, not "in neither tree" (the
series applies at its pin, or the port could not have started)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import write_files

CODE = "def redirect(headers):\n    headers.pop('Authorization', None)\n    return headers\n"
FIXED = CODE.replace("    return", "    headers.pop('Cookie', None)\n    return")

# a backported fix with its regression test's data file, then a patch on that data file
WITH_DATA = """Subject: drop cookies on redirect
---
--- a/pkg/redirect.py
+++ b/pkg/redirect.py
@@ -1,3 +1,4 @@
 def redirect(headers):
     headers.pop('Authorization', None)
+    headers.pop('Cookie', None)
     return headers
--- /dev/null
+++ b/tests/data/redirect.txt
@@ -0,0 +1,2 @@
+Authorization: x
+Cookie: y
"""

ON_DATA = """Subject: test a second cookie
---
--- a/tests/data/redirect.txt
+++ b/tests/data/redirect.txt
@@ -1,2 +1,3 @@
 Authorization: x
 Cookie: y
+Cookie: z
"""


def test_the_port_names_the_earlier_patch_that_creates_the_file(cli: Any, tmp_path: Path) -> None:
    for folder, code, version in (("old", CODE, "1.0"), ("new", FIXED, "2.0")):
        info = f"Metadata-Version: 2.1\nName: minihttp\nVersion: {version}\n"
        write_files(tmp_path / folder, {"pkg/redirect.py": code, "PKG-INFO": info})
    down = write_files(
        tmp_path / "down",
        {
            "patchkeeper.toml": 'upstream = "minihttp"\npin = "1.0"\npristine = "../old"\n',
            "patches/series": "fix.patch\nmore.patch\n",
            "patches/fix.patch": WITH_DATA,
            "patches/more.patch": ON_DATA,
        },
    )
    run = cli("port", "--to", "../new", "--json", cwd=down)
    assert run.code == 1
    patches = json.loads(run.out)["patches"]
    assert [(p["name"], p["verdict"]) for p in patches] == [
        ("fix.patch", "upstreamed"),
        ("more.patch", "target gone"),
    ]
    assert patches[1]["summary"] == (
        "git's three-way merge stopped at tests/data/redirect.txt (gone); fuzz 0: "
        "tests/data/redirect.txt is created only by the earlier patch fix.patch, taken as "
        "upstream without that file; to do: look (upstream took the earlier patch without the "
        "file this one changes: decide whether this one is still needed)"
    )
