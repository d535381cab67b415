"""A conflict in a reStructuredText file whose headings are underlined with seven ``=``, the
very line git writes between the two sides of a conflict. A resolution that kept such a
heading (``License`` over ``=======``, a line of the new pin's own file) was refused as
"conflict markers are left in this file", so the port could never go on. Such a line is the
file's own when a version of the file the conflict was laid out with has it under the same
line; a separator git left is still refused."""

from __future__ import annotations

from pathlib import Path

from port_support import port_one_patch

OLD_README = "Title\n=====\n\n|badge|\n\nintro\n\nLicense\n=======\n\nApache\n"
#: upstream reworded the badge line the patch removes
NEW_README = "Title\n=====\n\n|badge| |other|\n\nintro\n\nLicense\n=======\n\nApache\n"
PATCH = """Description: drop the badges that load images from the web
Author: A Maintainer <maintainer@example.org>

--- a/README.rst
+++ b/README.rst
@@ -1,8 +1,6 @@
 Title
 =====
 
-|badge|
-
 intro
 
 License
"""
RESOLVED = "Title\n=====\n\nintro\n\nLicense\n=======\n\nApache\n"


def test_a_heading_underline_is_no_conflict_marker(cli, tmp_path: Path) -> None:
    trees = ({"README.rst": OLD_README}, {"README.rst": NEW_README})
    run, down = port_one_patch(cli, tmp_path, "pkg", trees, "badges.patch", PATCH)
    assert run.code == 1, run.err
    readme = down / ".patchkeeper-port" / "conflict" / "files" / "README.rst"
    # a separator left between the heading and its text is still a marker
    readme.write_text(RESOLVED.replace("intro\n", "intro\n=======\n"))
    run = cli("port", "--continue", cwd=down)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {readme}:5: conflict markers are left in this file",
    )
    readme.write_text(RESOLVED)
    run = cli("port", "--continue", cwd=down)
    assert run.code == 0, run.err
    run = cli("-C", str(down / "patches-2.0"), "apply", "--target", str(tmp_path / "new"))
    assert run.code == 0, run.err
    assert (tmp_path / "new" / "README.rst").read_text() == (
        "Title\n=====\n\nintro\n\nLicense\n=======\n\nApache\n"
    )
