"""``port`` of a patch in ``gbp pq export`` form (mail headers, ``---``, a diffstat) onto a
release where its test file was renamed and one of its two lines is upstream already: the
refreshed patch (git's three-way merge carries it onto the renamed file) has the diffstat
of the file it now changes and its one insertion. Before, the
stat was kept byte for byte and still named the old file and two insertions."""

from __future__ import annotations

from pathlib import Path

from port_support import port_one_patch

OLD_TEST = "import gzip\nimport pickle\n\n\ndef test_threads():\n    pass\n"
NEW_TEST = "import gzip\nimport os\nimport pickle\n\n\ndef test_threads():\n    pass\n"
PATCH = """From: A Maintainer <maintainer@example.org>
Date: Sun, 26 May 2019 19:31:42 +0200
Subject: Allow one to disable network tests.

---
 tests/test_s3boto3.py | 2 ++
 1 file changed, 2 insertions(+)

diff --git a/tests/test_s3boto3.py b/tests/test_s3boto3.py
index 083769d..5fc40c1 100644
--- a/tests/test_s3boto3.py
+++ b/tests/test_s3boto3.py
@@ -1,6 +1,8 @@
 import gzip
+import os
 import pickle
 
 
+@skipIf('NO_NETWORK' in os.environ, 'Network disabled')
 def test_threads():
     pass
"""


def test_a_ported_patch_gets_the_diffstat_of_its_new_body(cli, tmp_path: Path) -> None:
    trees = ({"tests/test_s3boto3.py": OLD_TEST}, {"tests/test_s3.py": NEW_TEST})
    name = "0002-Allow-one-to-disable-network-tests.patch"
    run, down = port_one_patch(cli, tmp_path, "storagekit", trees, name, PATCH)
    assert run.code == 0, run.err
    text = (down / "patches-2.0" / "0002-Allow-one-to-disable-network-tests.patch").read_text()
    assert text[: text.index("diff --git")] == (
        "From: A Maintainer <maintainer@example.org>\n"
        "Date: Sun, 26 May 2019 19:31:42 +0200\n"
        "Subject: Allow one to disable network tests.\n"
        "\n"
        "---\n"
        " tests/test_s3.py | 1 +\n"
        " 1 file changed, 1 insertion(+)\n"
        "\n"
    )
