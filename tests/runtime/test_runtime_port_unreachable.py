"""``runtime port`` on a copy whose version gate returns early at the new release (a plugin
in vllm-ascend's shape, written by this test): ``if not vllm_version_is(OLD): return
super().f(...)`` followed by the old release's code. Cut, the early return is all that
runs: the code after it is unreachable and deleted with the gate, and the report says so."""

from __future__ import annotations

from pathlib import Path

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.port import runtime_port as port

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

PLUGIN_FILES = {
    "pyproject.toml": """[project]
name = "vaplug"
version = "0.1"

[project.entry-points."vup.general_plugins"]
vaplug = "vaplug:register"

[tool.patchkeeper]
upstream = "vup"

[tool.patchkeeper.runtime]
package = "vaplug"
entry-point-groups = ["vup.general_plugins"]
upstream-packages = ["vup"]
""",
    "vaplug/__init__.py": "def register():\n    import vaplug.patch.patch_table  # noqa: F401\n",
    "vaplug/patch/__init__.py": "",
    "vaplug/utils.py": (
        "import vup\n\n\ndef vllm_version_is(version):\n    return vup.__version__ == version\n"
    ),
    "vaplug/patch/patch_table.py": PATCH,
}

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
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    for version, model in (("1.0", UPSTREAM_OLD), ("2.0", UPSTREAM_NEW)):
        write_files(
            tmp_path / f"vup-{version}",
            {
                "pyproject.toml": f'[project]\nname = "vup"\nversion = "{version}"\n',
                "vup/__init__.py": f'__version__ = "{version}"\n',
                "vup/model.py": model,
            },
        )
    write_files(tmp_path / "plugin", PLUGIN_FILES)
    result = port.port_runtime(
        load_config(tmp_path / "plugin" / "pyproject.toml"),
        port.RuntimePortRequest(
            old=str(tmp_path / "vup-1.0"),
            new=str(tmp_path / "vup-2.0"),
        ),
    )
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
