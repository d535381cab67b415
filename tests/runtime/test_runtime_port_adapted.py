"""``runtime port`` on copies the plugin already adapted to the new release (a plugin in
vllm-ascend's shape, written by this test): a copy holding its own version gate for the
new release, a patch statement that only the new release activates, and a subclass whose
override extends upstream's method through ``super()``. None of them is merged from the
old release: the exact diff (only the gate cuts and the header) and the per-entry report.
"""

from __future__ import annotations

import ast
from pathlib import Path

from vupplug import UTILS, plugin_files, port_written

from patchkeeper.runtime.port import overrides

UPSTREAM_OLD = """class Model:
    def forward(self, positions, hidden_states):
        for layer in self.layers:
            hidden_states = layer(positions, hidden_states)
        return hidden_states


def kernel(x, y):
    return x + y


def norm(x, eps):
    y = x * x
    return y / eps


class Table:
    def compute(self, idx):
        return self.rows[idx]

    def gather(self, ids):
        out = []
        for i in ids:
            out.append(self.rows[i])
        return out
"""

UPSTREAM_NEW = """class Model:
    def forward(self, positions, hidden_states):
        for layer in self.layers:
            hidden_states = layer(positions, hidden_states)
        if hidden_states.shape[0] != positions.shape[0]:
            hidden_states = all_gather(hidden_states, 0)
        return hidden_states


def kernel(x, y, scale=1.0):
    return (x + y) * scale


def norm(x, eps):
    x = x.float()
    y = x * x
    return y / eps


class Table:
    def compute(self, idx, out=None):
        rows = self.rows[idx]
        if out is not None:
            out[:] = rows
        return rows

    def gather(self, ids):
        ids = sorted(ids)
        out = []
        for i in ids:
            out.append(self.rows[i])
        return out


def fill(table, idx, buffer):
    return table.compute(idx, out=buffer)
"""

# The copy of forward took upstream's all-gather from upstream's development branch
# behind a gate on the old release; the NPU kernel is only bound from the new release on
# (it already has the new signature); the table extends upstream's compute and copies
# its gather (falling back to upstream's off the device: still a copy). The norm copy holds
# a gate too, but upstream's change lies elsewhere: it merges clean once the gate is cut.
PATCH = """# -----------------------------------------------------------------------------
# Note: The fixture device keeps the hidden states contiguous.
#
# Affected versions: vup 1.0.
# -----------------------------------------------------------------------------
import vup.model

from vaplug.utils import vllm_version_is


def _patched_forward(self, positions, hidden_states):
    for layer in self.layers:
        hidden_states = layer(positions, hidden_states)
    if not vllm_version_is("1.0"):
        if hidden_states.shape[0] != positions.shape[0]:
            hidden_states = all_gather(hidden_states, 0)
    return hidden_states.contiguous()


vup.model.Model.forward = _patched_forward


def _kernel_npu(x, y, scale=1.0):
    return npu_add(x, y) * scale


if not vllm_version_is("1.0"):
    vup.model.kernel = _kernel_npu


def _npu_norm(x, eps):
    y = x * x
    if vllm_version_is("1.0"):
        return y / eps
    return npu_div(y, eps)


vup.model.norm = _npu_norm


class NpuTable(vup.model.Table):
    def compute(self, idx, *args, **kwargs):
        rows = super().compute(idx, *args, **kwargs)
        return rows.npu()

    def gather(self, ids):
        out = []
        for i in ids:
            out.append(self.rows[i].npu())
        return out if self.on_npu else super().gather(ids)


vup.model.Table = NpuTable
"""

PLUGIN_FILES = plugin_files(
    "patch_model",
    {
        "vaplug/utils.py": UTILS,
        "vaplug/patch/patch_model.py": PATCH,
    },
)

EXPECTED_DIFF = """--- a/vaplug/patch/patch_model.py
+++ b/vaplug/patch/patch_model.py
@@ -1,19 +1,16 @@
 # -----------------------------------------------------------------------------
 # Note: The fixture device keeps the hidden states contiguous.
 #
-# Affected versions: vup 1.0.
+# Affected versions: vup 1.0. Reviewed against 2.0.
 # -----------------------------------------------------------------------------
 import vup.model
-
-from vaplug.utils import vllm_version_is
 
 
 def _patched_forward(self, positions, hidden_states):
     for layer in self.layers:
         hidden_states = layer(positions, hidden_states)
-    if not vllm_version_is("1.0"):
-        if hidden_states.shape[0] != positions.shape[0]:
-            hidden_states = all_gather(hidden_states, 0)
+    if hidden_states.shape[0] != positions.shape[0]:
+        hidden_states = all_gather(hidden_states, 0)
     return hidden_states.contiguous()
 
 
@@ -24,14 +21,12 @@
     return npu_add(x, y) * scale
 
 
-if not vllm_version_is("1.0"):
-    vup.model.kernel = _kernel_npu
+vup.model.kernel = _kernel_npu
 
 
 def _npu_norm(x, eps):
+    x = x.float()
     y = x * x
-    if vllm_version_is("1.0"):
-        return y / eps
     return npu_div(y, eps)
 
 
"""


def test_port_keeps_what_the_plugin_already_adapted_to_the_new_release(
    tmp_path: Path, monkeypatch
) -> None:
    result = port_written(tmp_path, monkeypatch, UPSTREAM_OLD, UPSTREAM_NEW, PLUGIN_FILES)
    assert [(e.line, e.target, e.decision, e.action, e.detail) for e in result.entries] == [
        (
            20,
            "vup.model.Model.forward",
            "update",
            "gate cut",
            "the copy at vaplug/patch/patch_model.py:11 holds a version gate that changes at "
            "the new release (line 14): its branch for the new release is kept as the cut "
            "left it (merged from the old release, it conflicts or repeats lines)",
        ),
        (
            # installed only from 2.0 on, with 2.0's parameters: written for it (its gate is
            # cut below, whatever its decision)
            28,
            "vup.model.kernel",
            "retain",
            "nothing to do",
            "the patch runs only from the new release on (its version gate "
            "vaplug/patch/patch_model.py:27: not vllm_version_is('1.0') is false at the old "
            "release) and the replacement _kernel_npu takes the new upstream parameters of "
            "vup.model.kernel: the plugin wrote it for the new release ahead of it, and "
            "upstream's callers bind to it (its implementation is its own; read it if it "
            "copies upstream's body)",
        ),
        (
            38,
            "vup.model.norm",
            "update",
            "merged",
            "three-way merge of vaplug/patch/patch_model.py:31, its version gates cut: clean",
        ),
        (
            53,
            "vup.model.Table",
            "retain",
            "nothing to do",
            "the plugin's class derives from Table and inherits the upstream change; of the "
            "methods it overrides (compute, gather), compute, gather changed upstream in the "
            "body alone and the override calls upstream's (super()): the change passes "
            "through; the signature of compute changed too, in a way every upstream call still "
            "binds to the override (parameters added with a default that no upstream call "
            "passes are left out); the others are unchanged upstream",
        ),
        (
            14,
            'not vllm_version_is("1.0")',
            "gate",
            "gate cut",
            'the `else` branch of `not vllm_version_is("1.0")` is dead at 2.0: cut the test, '
            "kept the `if` block",
        ),
        (
            27,
            'not vllm_version_is("1.0")',
            "gate",
            "gate cut",
            'the `else` branch of `not vllm_version_is("1.0")` is dead at 2.0: cut the test, '
            "kept the `if` block",
        ),
        (
            33,
            'vllm_version_is("1.0")',
            "gate",
            "gate cut",
            'the `if` branch of `vllm_version_is("1.0")` is dead at 2.0: cut it (no `else` block)',
        ),
    ]
    # Merged from the old release, the forward copy would meet upstream's all-gather a
    # second time; the table is retained (every upstream call binds to its overrides, which
    # call upstream's), so neither of its methods is merged.
    assert result.diff == EXPECTED_DIFF
    assert (result.exit_code, result.written) == (0, False)


def test_an_extending_override_missing_a_new_parameter_is_left_by_hand(
    tmp_path: Path, monkeypatch
) -> None:
    files = dict(PLUGIN_FILES)
    files["vaplug/patch/patch_model.py"] = PATCH.replace(
        "def compute(self, idx, *args, **kwargs):\n"
        "        rows = super().compute(idx, *args, **kwargs)",
        "def compute(self, idx):\n        rows = super().compute(idx)",
    )
    result = port_written(tmp_path, monkeypatch, UPSTREAM_OLD, UPSTREAM_NEW, files)
    table = [e for e in result.entries if e.target == "vup.model.Table"]
    assert [(e.action, e.detail) for e in table] == [
        (
            "by hand",
            "three-way merge of vaplug/patch/patch_model.py:41 (1 overridden method(s)): "
            "clean; the overridden method(s) compute call upstream's through super(), whose "
            "new signature has parameters they do not take: update their parameters by hand",
        )
    ]
    assert result.exit_code == 1


def test_calls_super_needs_the_overridden_name() -> None:
    source = "def compute(self, idx):\n    return super().compute(idx)\n"
    other = "def compute(self, idx):\n    return super().gather(idx)\n"
    assert overrides.calls_super(ast.parse(source).body[0]) is True
    assert overrides.calls_super(ast.parse(other).body[0]) is False


def test_a_conflict_still_names_the_extending_override_missing_a_parameter(
    tmp_path: Path, monkeypatch
) -> None:
    files = dict(PLUGIN_FILES)
    patch = PATCH.replace(
        "def compute(self, idx, *args, **kwargs):\n"
        "        rows = super().compute(idx, *args, **kwargs)",
        "def compute(self, idx):\n        rows = super().compute(idx)",
    )
    # The copied gather now inserts its own line where upstream sorts the ids.
    files["vaplug/patch/patch_model.py"] = patch.replace(
        "    def gather(self, ids):\n        out = []\n",
        "    def gather(self, ids):\n        ids = list(ids)\n        out = []\n",
    )
    result = port_written(tmp_path, monkeypatch, UPSTREAM_OLD, UPSTREAM_NEW, files)
    table = [e for e in result.entries if e.target == "vup.model.Table"]
    assert [(e.action, e.conflicts, e.detail) for e in table] == [
        (
            "conflict",
            1,
            "three-way merge of vaplug/patch/patch_model.py:41 (1 overridden method(s)): "
            "1 conflict(s) marked; the overridden method(s) compute call upstream's through "
            "super(), whose new signature has parameters they do not take: update their "
            "parameters by hand",
        )
    ]
