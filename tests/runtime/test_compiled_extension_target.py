"""A plugin patch on a compiled extension module the release builds.

``gplug`` loads the extension ``vllm._C_stable_libtorch`` from its file and puts it in
``sys.modules`` under that name, and sets a name on ``vllm._C_ops``, another extension (the
shape of a plugin that loads vLLM's CUDA ops without importing ``vllm``). An sdist holds
the extension's C++ sources and a ``setup.py`` that builds it, never a Python module of
that name: the audit said "a typo or a future name". It stays *look* (the trees cannot say
what the extension defines), saying where the release builds it. A module in neither
release and built by none is still a typo or a future name.
"""

from __future__ import annotations

from plugin_trees import TreeWriter, patch_plugin

SETUP = """from setuptools import setup


class CMakeExtension:
    def __init__(self, name):
        self.name = name


MEMBERS = {
    "vllm/_C_ops.abi3.so",
}
ext_modules = [CMakeExtension(name="vllm._C_stable_libtorch")]
setup(ext_modules=ext_modules)
"""

RELEASE = {
    "setup.py": SETUP,
    "csrc/torch_bindings.cpp": "// STABLE_TORCH_LIBRARY(_C_stable_libtorch, m) {}\n",
    "vllm/__init__.py": "",
    "vllm/platforms.py": "def current_platform():\n    return None\n",
}

PATCH = """import importlib.util
import sys

import vllm._C_ops as ops

_NATIVE = "vllm._C_stable_libtorch"


def load(path):
    spec = importlib.util.spec_from_file_location(_NATIVE, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[_NATIVE] = module
    sys.modules["vllm._C_typo"] = module
    ops.cutlass_ready = True
    return module


load("/nowhere/_C_stable_libtorch.abi3.so")
"""

PLUGIN = patch_plugin("gplug", {"native": PATCH}, entry="g")


def test_a_compiled_extension_is_said_to_be_one(plugin_trees: TreeWriter) -> None:
    result = plugin_trees.write("gplug", PLUGIN, RELEASE, RELEASE | {"vllm/new.py": ""}).audit()
    assert [(a.entry.target, a.drift.decision, a.drift.evidence[0]) for a in result.entries] == [
        (
            "vllm._C_stable_libtorch",
            "look",
            "vllm._C_stable_libtorch is a compiled extension module the release builds "
            "(setup.py:12), not a typo: no Python source holds it, so the trees cannot say "
            "what it defines; check the patch against an installed build of the release",
        ),
        (
            "vllm._C_typo",
            "look",
            "vllm._C_typo is in neither release: a typo or a future name",
        ),
        (
            "vllm._C_ops.cutlass_ready",
            "look",
            "vllm._C_ops.cutlass_ready: vllm._C_ops is a compiled extension module the release "
            "builds (setup.py:10), not a typo: no Python source holds it, so the trees cannot "
            "say what it defines; check the patch against an installed build of the release",
        ),
    ]
