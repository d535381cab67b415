"""``runtime port`` on a plugin class that derives from the upstream class it replaces
through another plugin class (a plugin in vllm-ascend's shape, written by this test: one
patch file subclasses upstream's ``Table``, a second subclasses that subclass and is patched
in as ``Table``, its override marking its own line with Modification banners: the rest of it
is upstream's to carry). Only the method the second class overrides is merged, not upstream's
whole class against it (which marked every method it inherits as deleted)."""

from __future__ import annotations

import ast
from pathlib import Path

from vupplug import plugin_files, port_written

from helpers import write_files
from patchkeeper.runtime.port.bases import derives_from

UPSTREAM_OLD = """class Table:
    def __init__(self, rows):
        self.rows = rows

    def compute(self, idx):
        return self.rows[idx]

    def gather(self, ids):
        out = []
        for i in ids:
            out.append(self.rows[i])
        return out
"""

UPSTREAM_NEW = """class Table:
    def __init__(self, rows):
        self.rows = list(rows)

    def compute(self, idx):
        return self.rows[idx]

    def gather(self, ids):
        ids = sorted(ids)
        out = []
        for i in ids:
            out.append(self.rows[i])
        return out
"""

BASE = """import vup.model


class NpuTable(vup.model.Table):
    def compute(self, idx):
        return self.rows[idx].npu()
"""

STACKED = """import vup.model

from vaplug.patch.patch_base import NpuTable as _NpuTable


class StackedTable(_NpuTable):
    def gather(self, ids):
        out = []
        for i in ids:
            # /------------------------- Modification -------------------------\\
            out.append(self.rows[i].npu())
            # \\-----------------------------------------------------------------/
        return out


vup.model.Table = StackedTable
"""

PLUGIN_FILES = plugin_files(
    "patch_stacked",
    {
        "vaplug/patch/patch_base.py": BASE,
        "vaplug/patch/patch_stacked.py": STACKED,
    },
)

EXPECTED_DIFF = """--- a/vaplug/patch/patch_stacked.py
+++ b/vaplug/patch/patch_stacked.py
@@ -5,6 +5,7 @@
 
 class StackedTable(_NpuTable):
     def gather(self, ids):
+        ids = sorted(ids)
         out = []
         for i in ids:
             # /------------------------- Modification -------------------------\\
"""


def test_a_subclass_of_a_plugin_subclass_merges_only_its_overridden_method(
    tmp_path: Path, monkeypatch
) -> None:
    result = port_written(tmp_path, monkeypatch, UPSTREAM_OLD, UPSTREAM_NEW, PLUGIN_FILES)
    assert [(e.line, e.target, e.action, e.conflicts, e.detail) for e in result.entries] == [
        (
            16,
            "vup.model.Table",
            "merged",
            0,
            "three-way merge of vaplug/patch/patch_stacked.py:6 (1 overridden method(s)): clean",
        )
    ]
    assert result.diff == EXPECTED_DIFF
    assert result.exit_code == 0


class _Files:
    """The plugin's modules as ``derives_from`` looks them up."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def module_file(self, module: str) -> tuple[Path, bool] | None:
        base = self.root / module.replace(".", "/")
        if (base / "__init__.py").is_file():
            return base / "__init__.py", True
        if base.with_suffix(".py").is_file():
            return base.with_suffix(".py"), False
        return None


def _class(text: str) -> ast.ClassDef:
    return next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef))


def test_derives_from_follows_imported_and_local_plugin_classes(tmp_path: Path) -> None:
    write_files(tmp_path, {k: v for k, v in PLUGIN_FILES.items() if k.startswith("vaplug/")})
    files = _Files(tmp_path)
    stacked = _class(STACKED)
    assert derives_from(files, "vaplug.patch.patch_stacked", stacked, "Table") is True
    assert derives_from(files, "vaplug.patch.patch_stacked", stacked, "Model") is False
    local = "class A(vup.model.Table):\n    pass\n\n\nclass B(A):\n    pass\n"
    write_files(tmp_path, {"vaplug/patch/patch_local.py": local})
    b = ast.parse(local).body[1]
    assert derives_from(files, "vaplug.patch.patch_local", b, "Table") is True
    relative = "from .patch_base import NpuTable\n\n\nclass C(NpuTable):\n    pass\n"
    write_files(tmp_path, {"vaplug/patch/patch_relative.py": relative})
    assert derives_from(files, "vaplug.patch.patch_relative", _class(relative), "Table") is True
    # A base the plugin does not define (an upstream class of another name): no.
    other = "from vup.other import Grid\n\n\nclass D(Grid):\n    pass\n"
    write_files(tmp_path, {"vaplug/patch/patch_other.py": other})
    assert derives_from(files, "vaplug.patch.patch_other", _class(other), "Table") is False
