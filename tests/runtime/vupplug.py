"""A plugin in vllm-ascend's shape, ``vaplug``, written by a test for the made-up upstream
``vup``: two releases of ``vup`` (1.0 and 2.0: its version and one ``vup/model.py``) beside
the plugin's project, and the runtime port of the plugin from the one to the other.

Importable from the runtime tests as ``from vupplug import plugin_files, port_written``
(pyproject's ``pythonpath``); the runtime port tests of version gates, adapted copies, stacked
plugin classes, unreachable code and line ends build their trees so.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.port import runtime_port as port

#: The plugin project's ``pyproject.toml``: it declares itself in ``vup.general_plugins``.
PYPROJECT = """[project]
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
"""

#: ``vaplug/utils.py``: the plugin's version gate, as vllm-ascend's ``vllm_version_is``.
UTILS = "import vup\n\n\ndef vllm_version_is(version):\n    return vup.__version__ == version\n"


def plugin_files(patch_module: str, files: dict[str, str]) -> dict[str, str]:
    """The plugin project's files: :data:`PYPROJECT`, a ``register()`` that imports
    ``vaplug.patch.<patch_module>``, an empty ``vaplug/patch/__init__.py``, and ``files``
    (relative path -> text)."""
    return {
        "pyproject.toml": PYPROJECT,
        "vaplug/__init__.py": (
            f"def register():\n    import vaplug.patch.{patch_module}  # noqa: F401\n"
        ),
        "vaplug/patch/__init__.py": "",
        **files,
    }


def write_upstreams(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    old_model: str,
    new_model: str,
    write: Callable[[Path, dict[str, str]], object] = write_files,
) -> Path:
    """``vup-1.0`` and ``vup-2.0`` under ``tmp_path``, their ``vup/model.py`` the two texts,
    written by ``write``; a private cache (``PATCHKEEPER_CACHE``). Returns ``tmp_path``."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    for version, model in (("1.0", old_model), ("2.0", new_model)):
        write(
            tmp_path / f"vup-{version}",
            {
                "pyproject.toml": f'[project]\nname = "vup"\nversion = "{version}"\n',
                "vup/__init__.py": f'__version__ = "{version}"\n',
                "vup/model.py": model,
            },
        )
    return tmp_path


def port_vup(tmp_path: Path, plugin: Path, *, write: bool = False) -> port.RuntimePort:
    """``runtime port`` of the plugin at ``plugin`` from ``tmp_path/vup-1.0`` to
    ``tmp_path/vup-2.0`` (:func:`write_upstreams`); ``write`` applies the diff."""
    return port.port_runtime(
        load_config(plugin / "pyproject.toml"),
        port.RuntimePortRequest(
            old=str(tmp_path / "vup-1.0"), new=str(tmp_path / "vup-2.0"), write=write
        ),
    )


def port_written(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    old_model: str,
    new_model: str,
    files: dict[str, str],
) -> port.RuntimePort:
    """The two releases of ``vup`` (:func:`write_upstreams`) and the plugin ``files``
    (relative path -> text) under ``tmp_path/plugin``, written; the plugin's runtime port
    from the one release to the other (:func:`port_vup`, the diff not applied)."""
    write_upstreams(tmp_path, monkeypatch, old_model, new_model)
    return port_vup(tmp_path, write_files(tmp_path / "plugin", files))


#: The version-gate plugin of the runtime port tests of gates and line ends: ``vup/model.py``
#: at 1.0 and 2.0, the patch module and the gated kernel, the plugin's files and the exact
#: diff ``runtime port`` writes.
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


GATED_PATCH = """# -----------------------------------------------------------------------------
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


GATED_KERNEL = """from vaplug.utils import vllm_version_is

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
        "vaplug/patch/patch_model.py": GATED_PATCH,
        "vaplug/ops/__init__.py": "",
        "vaplug/ops/kernel.py": GATED_KERNEL,
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
