"""``port`` of a patch that renames a file upstream changed since the old pin: upstream's
change reaches the renamed file, as in git's merge, which follows the rename. Before: the
renamed file was the old pin's content, listed as "merged cleanly", and upstream's change
was lost when the user kept the deletion of the old path as told."""

from __future__ import annotations

from pathlib import Path

from port_support import port_one_patch

OLD = {
    "pkg/__init__.py": "from pkg.util import helper\n",
    "pkg/util.py": "def helper():\n    return 2\n",
}
NEW = {
    "pkg/__init__.py": "from pkg.util import helper, other\n",
    "pkg/util.py": "def helper():\n    return 2\n\n\ndef other():\n    return 3\n",
}
RENAMES = """Subject: rename pkg/util.py to pkg/helpers.py
---
diff --git a/pkg/__init__.py b/pkg/__init__.py
--- a/pkg/__init__.py
+++ b/pkg/__init__.py
@@ -1 +1 @@
-from pkg.util import helper
+from pkg.helpers import helper
diff --git a/pkg/util.py b/pkg/helpers.py
similarity index 100%
rename from pkg/util.py
rename to pkg/helpers.py
"""


def test_a_renamed_file_carries_upstream_changes(cli, tmp_path: Path) -> None:
    run, down = port_one_patch(cli, tmp_path, "pkg", (OLD, NEW), "rename.patch", RENAMES)
    assert run.code == 1, run.err
    files = down / ".patchkeeper-port" / "conflict" / "files" / "pkg"
    assert (files / "helpers.py").read_text() == NEW["pkg/util.py"]
    # the old path waits between markers (modify/delete): the new pin's lines, the old's
    assert (files / "util.py").read_text() == (
        f"<<<<<<< new pin 2.0\n{NEW['pkg/util.py']}||||||| old pin 1.0\n{OLD['pkg/util.py']}"
        "=======\n>>>>>>> rename.patch\n"
    )
    # the import resolved and the deletion kept, as the instructions say; the port goes on
    (files / "__init__.py").write_text("from pkg.helpers import helper, other\n")
    (files / "util.py").unlink()
    run = cli("port", "--continue", cwd=down)
    assert run.code == 0, run.err
    run = cli("-C", str(down / "patches-2.0"), "apply", "--target", str(tmp_path / "new"))
    assert run.code == 0, run.err
    assert (tmp_path / "new" / "pkg" / "helpers.py").read_text() == NEW["pkg/util.py"]
    assert (tmp_path / "new" / "pkg" / "__init__.py").read_text() == (
        "from pkg.helpers import helper, other\n"
    )
    assert not (tmp_path / "new" / "pkg" / "util.py").exists()
