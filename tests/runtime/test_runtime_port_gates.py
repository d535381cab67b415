"""``runtime port`` end to end on a plugin in vllm-ascend's shape (written by this test):
a copy formatted by the plugin's formatter that already took upstream's change, a copy
behind a version gate, and an import gate; the exact diff and the per-entry report."""

from __future__ import annotations

from pathlib import Path

from vupplug import UTILS, plugin_files, port_written

UPSTREAM_OLD = """class Model:
    def forward(self, positions, hidden_states, residual):
        for layer in self.layers:
            if idx in self.aux_layers:
                aux.append(hidden_states + residual)
            hidden_states, residual = layer(
                positions, hidden_states, residual, scaling
            )
        hidden_states, _ = self.norm(hidden_states, residual)
        return hidden_states


def kernel(x, y):
    return x + y
"""

UPSTREAM_NEW = """class Model:
    def forward(self, positions, hidden_states, residual):
        for layer in self.layers:
            if idx in self.aux_layers:
                aux_state = hidden_states + residual
                if aux_state.shape[0] != positions.shape[0]:
                    aux_state = all_gather(
                        aux_state, 0
                    )
                aux.append(aux_state)
            hidden_states, residual = layer(
                positions, hidden_states, residual, scaling
            )
        hidden_states, _ = self.norm(hidden_states, residual)
        return hidden_states


def kernel(x, y, scale=1.0):
    return (x + y) * scale
"""

PATCH = """# -----------------------------------------------------------------------------
# Note: The fixture device keeps the residual contiguous.
#
# Affected versions: vup 1.0.
# -----------------------------------------------------------------------------
import vup.model

from vaplug.ops.kernel import kernel_npu
from vaplug.utils import is_310p, vllm_version_is

if vllm_version_is("1.0"):
    from vup.model import Model  # the old path
else:
    from vup.model import Model


def _patched_forward(self, positions, hidden_states, residual):
    for layer in self.layers:
        if idx in self.aux_layers:
            aux.append(hidden_states + residual)
        hidden_states, residual = layer(positions, hidden_states, residual, scaling)
    hidden_states, _ = self.norm(hidden_states, residual.contiguous())
    return hidden_states


Model.forward = _patched_forward

if is_310p():
    vup.model.kernel = kernel_npu
"""

KERNEL = """from vaplug.utils import vllm_version_is

if vllm_version_is("1.0"):

    def kernel_npu(x, y):
        return npu_add(x, y)

else:

    def kernel_npu(x, y, scale=1.0):
        return npu_add(x, y) * scale
"""

PLUGIN_FILES = plugin_files(
    "patch_model",
    {
        "vaplug/utils.py": UTILS + "\n\ndef is_310p():\n    return False\n",
        "vaplug/patch/patch_model.py": PATCH,
        "vaplug/ops/__init__.py": "",
        "vaplug/ops/kernel.py": KERNEL,
    },
)

EXPECTED_DIFF = """--- a/vaplug/ops/kernel.py
+++ b/vaplug/ops/kernel.py
@@ -1,11 +1,2 @@
-from vaplug.utils import vllm_version_is
-
-if vllm_version_is("1.0"):
-
-    def kernel_npu(x, y):
-        return npu_add(x, y)
-
-else:
-
-    def kernel_npu(x, y, scale=1.0):
-        return npu_add(x, y) * scale
+def kernel_npu(x, y, scale=1.0):
+    return npu_add(x, y) * scale
--- a/vaplug/patch/patch_model.py
+++ b/vaplug/patch/patch_model.py
@@ -1,23 +1,25 @@
 # -----------------------------------------------------------------------------
 # Note: The fixture device keeps the residual contiguous.
 #
-# Affected versions: vup 1.0.
+# Affected versions: vup 1.0. Reviewed against 2.0.
 # -----------------------------------------------------------------------------
 import vup.model
 
 from vaplug.ops.kernel import kernel_npu
-from vaplug.utils import is_310p, vllm_version_is
+from vaplug.utils import is_310p
 
-if vllm_version_is("1.0"):
-    from vup.model import Model  # the old path
-else:
-    from vup.model import Model
+from vup.model import Model
 
 
 def _patched_forward(self, positions, hidden_states, residual):
     for layer in self.layers:
         if idx in self.aux_layers:
-            aux.append(hidden_states + residual)
+            aux_state = hidden_states + residual
+            if aux_state.shape[0] != positions.shape[0]:
+                aux_state = all_gather(
+                    aux_state, 0
+                )
+            aux.append(aux_state)
         hidden_states, residual = layer(positions, hidden_states, residual, scaling)
     hidden_states, _ = self.norm(hidden_states, residual.contiguous())
     return hidden_states
"""


def test_port_cuts_gates_settles_layout_and_keeps_the_gated_copy(
    tmp_path: Path, monkeypatch
) -> None:
    result = port_written(tmp_path, monkeypatch, UPSTREAM_OLD, UPSTREAM_NEW, PLUGIN_FILES)
    assert [(e.file, e.line, e.target, e.action, e.detail) for e in result.entries] == [
        (
            "vaplug/patch/patch_model.py",
            26,
            "vup.model.Model.forward",
            "merged",
            "three-way merge of vaplug/patch/patch_model.py:17: clean",
        ),
        (
            "vaplug/patch/patch_model.py",
            29,
            "vup.model.kernel",
            "gate cut",
            "the copy at vaplug/ops/kernel.py:10 sits behind a version gate: the plugin's "
            "definition for the new release (line 1 once cut) is kept, not merged",
        ),
        (
            "vaplug/ops/kernel.py",
            3,
            'vllm_version_is("1.0")',
            "gate cut",
            'the `if` branch of `vllm_version_is("1.0")` is dead at 2.0: cut it, kept the '
            "`else` block",
        ),
        (
            "vaplug/patch/patch_model.py",
            11,
            'vllm_version_is("1.0")',
            "gate cut",
            'the `if` branch of `vllm_version_is("1.0")` is dead at 2.0: cut it, kept the '
            "`else` block",
        ),
    ]
    # The merge took upstream's aux block in upstream's layout and kept the plugin's own
    # line wrapping of the layer call beside it (git alone marks a conflict there).
    assert result.diff == EXPECTED_DIFF
    assert (result.exit_code, result.written) == (0, False)
