"""A step that fails with an error (exit 2) leaves the upgrade in progress: its error says so
and how to go on or back, as the next ``upgrade --to`` would only say "an upgrade is already
in progress". Seen on Debian's python-pymysql series, one of whose patches changes
``docs/source/conf.py``, a file the PyPI sdist of the pin does not have: the port refuses a
series that does not apply to the pin."""

from __future__ import annotations

import json

from helpers import Example, tree_bytes

#: A DEP-3 patch of a documentation file the pin's tree does not have.
DOCS_PATCH = b"""\
Description: remove intersphinx, which needs the network at build time
Forwarded: not-needed
Last-Update: 2016-06-29

--- a/docs_conf.py
+++ b/docs_conf.py
@@ -1,3 +1,2 @@
 extensions = [
-    "sphinx.ext.intersphinx",
 ]
"""

HINT = (
    "make the patch apply to {pin} (edit it, or take it out of the series), then run "
    "'patchkeeper upgrade --continue' (the upgrade stopped at its port step); or run "
    "'patchkeeper upgrade --abort' and start again with --from the release the series "
    "applies to; 'patchkeeper audit --to {pin}' shows what fails there"
)


def test_a_step_error_says_the_upgrade_is_in_progress(cli, example: Example) -> None:
    down = example.downstream
    (down / "patches" / "remove-intersphinx.patch").write_bytes(DOCS_PATCH)
    with (down / "patches" / "series").open("a") as series:
        series.write("remove-intersphinx.patch\n")
    before = tree_bytes(down)
    run = cli("upgrade", "--to", "../upstream/minihttp-1.1", cwd=down)
    patch = down / "patches" / "remove-intersphinx.patch"
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {patch}:5: remove-intersphinx.patch does not apply to "
        f"{example.old}, the release the series is ported from: docs_conf.py: the file does "
        f"not exist\n  hint: {HINT.format(pin=example.old)}\n",
    )
    assert (down / ".patchkeeper-upgrade").is_dir()
    run = cli("upgrade", "--continue", "--json", cwd=down)
    assert run.code == 2
    assert json.loads(run.out)["error"]["hint"] == HINT.format(pin=example.old)
    run = cli("upgrade", "--abort", cwd=down)
    assert run.code == 0
    assert tree_bytes(down) == before
