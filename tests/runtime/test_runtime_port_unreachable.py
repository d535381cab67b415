"""``runtime port`` on a copy whose version gate returns early at the new release (a plugin
in vllm-ascend's shape, written by this test): ``if not vllm_version_is(OLD): return
super().f(...)`` followed by the old release's code. Cut, the early return is all that
runs: the code after it is unreachable and deleted with the gate, and the report says so."""

from __future__ import annotations

from pathlib import Path

from vupplug import UTILS, plugin_files, port_written

UPSTREAM_OLD = """class Table:
    def gather(self, ids, drop=False):
        out = []
        for i in ids:
            out.append(self.rows[i])
        return out
"""

UPSTREAM_NEW = """class Table:
    def gather(self, ids, drop=False):
        out = []
        for i in sorted(ids):
            if drop and i < 0:
                continue
            out.append(self.rows[i])
        return out
"""

PATCH = """import vup.model

from vaplug.utils import vllm_version_is


class NpuTable(vup.model.Table):
    def gather(self, ids, drop=False):
        if not vllm_version_is("1.0"):
            return super().gather(ids, drop=drop)

        # the old release's gather, on the device
        out = []
        for i in ids:
            out.append(self.rows[i].npu())
        return out


vup.model.Table = NpuTable
"""

PLUGIN_FILES = plugin_files(
    "patch_table",
    {
        "vaplug/utils.py": UTILS,
        "vaplug/patch/patch_table.py": PATCH,
    },
)

EXPECTED_DIFF = """--- a/vaplug/patch/patch_table.py
+++ b/vaplug/patch/patch_table.py
@@ -1,18 +1,9 @@
 import vup.model
-
-from vaplug.utils import vllm_version_is
 
 
 class NpuTable(vup.model.Table):
     def gather(self, ids, drop=False):
-        if not vllm_version_is("1.0"):
-            return super().gather(ids, drop=drop)
-
-        # the old release's gather, on the device
-        out = []
-        for i in ids:
-            out.append(self.rows[i].npu())
-        return out
+        return super().gather(ids, drop=drop)
 
 
 vup.model.Table = NpuTable
"""


def test_port_deletes_the_code_after_an_early_return_the_new_release_takes(
    tmp_path: Path, monkeypatch
) -> None:
    result = port_written(tmp_path, monkeypatch, UPSTREAM_OLD, UPSTREAM_NEW, PLUGIN_FILES)
    assert [(e.line, e.target, e.action, e.detail) for e in result.entries] == [
        (
            18,
            "vup.model.Table",
            "gate cut",
            "the copy at vaplug/patch/patch_table.py:6 holds a version gate that changes at "
            "the new release (line 8): its branch for the new release is kept as the cut "
            "left it (merged from the old release, it conflicts or repeats lines)",
        ),
        (
            8,
            'not vllm_version_is("1.0")',
            "gate cut",
            'the `else` branch of `not vllm_version_is("1.0")` is dead at 2.0: cut the test, '
            "kept the `if` block; it ends in return or raise: the 6 line(s) after it in its "
            "block, unreachable, deleted",
        ),
    ]
    assert result.diff == EXPECTED_DIFF
