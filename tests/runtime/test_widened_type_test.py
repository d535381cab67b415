"""A copy whose one addition is a class upstream's type test now accepts goes.

In the shape of a hardware plugin's loader patch: it copies upstream's ``finish_loading``
only to let its own ``SparseAttention`` through ``isinstance(module, (Attention,
MLAAttention))``, with ``or _is_sparse_attention(module)``. The new upstream widens the test
to ``LayerBase``, which the plugin's class derives from, and adds a model-level hook. Upstream
now lets the plugin's class through itself: *remove*, naming the predicate and the base
class. A plugin class that does not derive from what the new test accepts keeps the other
rules' decision. The upstream releases and the plugin are written by the test."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import pyproject

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit as audit

BASE = "class LayerBase:\n    pass\n"

ATTENTION = """from kup.layers.base import LayerBase


class Attention(LayerBase):
    def finish(self, dtype):
        self.dtype = dtype


class MLAAttention(LayerBase):
    def finish(self, dtype):
        self.dtype = dtype
"""

UTILS_OLD = """from kup.layers.attention import Attention, MLAAttention


def finish_loading(model, dtype):
    for _, module in model.named_modules():
        if isinstance(module, (Attention, MLAAttention)) and hasattr(module, "finish"):
            module.finish(dtype)
"""

UTILS_NEW = """from kup.layers.base import LayerBase


def finish_loading(model, dtype):
    # Any attention layer finishes its weights once they are loaded.
    for _, module in model.named_modules():
        if isinstance(module, LayerBase) and hasattr(module, "finish"):
            module.finish(dtype)
    if hasattr(model, "finish"):
        model.finish(dtype)
"""

PATCH = """from kup.layers.attention import Attention, MLAAttention
from kup.loader import utils


def _is_sparse_attention(module):
    cls = type(module)
    return cls.__module__ == "kplug.layers" and cls.__name__ == "SparseAttention"


def finish_loading(model, dtype):
    for _, module in model.named_modules():
        if (
            isinstance(module, (Attention, MLAAttention)) or _is_sparse_attention(module)
        ) and hasattr(module, "finish"):
            module.finish(dtype)


utils.finish_loading = finish_loading
"""

DERIVED = """from kup.layers.base import LayerBase


class SparseAttention(LayerBase):
    def finish(self, dtype):
        self.dtype = dtype
"""

STANDALONE = """class SparseAttention:
    def finish(self, dtype):
        self.dtype = dtype
"""


def _audit(tmp_path: Path, layers: str, utils_old: str = UTILS_OLD) -> list[tuple[int, str, str]]:
    old, new = tmp_path / "kup-1.0", tmp_path / "kup-1.1"
    for root, version, utils in ((old, "1.0", utils_old), (new, "1.1", UTILS_NEW)):
        write_files(
            root,
            {
                "pyproject.toml": f'[project]\nname = "kup"\nversion = "{version}"\n',
                "kup/__init__.py": "",
                "kup/layers/__init__.py": "",
                "kup/layers/base.py": BASE,
                "kup/layers/attention.py": ATTENTION,
                "kup/loader/__init__.py": "",
                "kup/loader/utils.py": utils,
            },
        )
    plugin = write_files(
        tmp_path / "kplug",
        {
            "pyproject.toml": pyproject(
                "kplug",
                {"kplug": "kplug:register"},
                group="kup.plugins",
                version="0.1",
                upstream="kup",
            ),
            "kplug/__init__.py": "def register():\n    from kplug.patch import loading  # noqa\n",
            "kplug/layers.py": layers,
            "kplug/patch/__init__.py": "",
            "kplug/patch/loading.py": PATCH,
        },
    )
    result = audit.audit_runtime(load_config(plugin / "pyproject.toml"), old=str(old), new=str(new))
    return [(a.entry.line, a.drift.decision, a.drift.evidence[0]) for a in result.entries]


def test_a_copy_that_only_widens_a_type_test_upstream_widened_goes(tmp_path: Path) -> None:
    assert _audit(tmp_path, DERIVED) == [
        (
            18,
            "remove",
            "all the copy adds to the old upstream is a predicate in a type test "
            "(_is_sparse_attention(module) lets kplug.layers.SparseAttention through, a "
            "subclass of kup.layers.base.LayerBase), and the new upstream's own test of the "
            "same subject accepts that base class: upstream lets the plugin's class through "
            "itself; remove the patch, which now only holds back the rest of upstream's "
            "change",
        )
    ]


def test_a_class_the_new_test_does_not_accept_keeps_its_copy(tmp_path: Path) -> None:
    assert _audit(tmp_path, STANDALONE) == [
        (
            18,
            "retain",
            "upstream changed only the body of the function the plugin replaces by its own "
            "copy (signature and decorators are the same: its callers' calls still bind to "
            "the copy, which runs as the plugin wrote it); merge upstream's change into it "
            "only if the plugin needs it",
        )
    ]


#: The old upstream function with a line the plugin's copy (taken from an earlier release)
#: does not have.
UTILS_OLD_MORE = UTILS_OLD + "    model.loaded = True\n"


def test_the_lines_the_copy_leaves_out_are_named(tmp_path: Path) -> None:
    assert _audit(tmp_path, DERIVED, UTILS_OLD_MORE) == [
        (
            18,
            "remove",
            "all the copy adds to the old upstream is a predicate in a type test "
            "(_is_sparse_attention(module) lets kplug.layers.SparseAttention through, a "
            "subclass of kup.layers.base.LayerBase), and the new upstream's own test of the "
            "same subject accepts that base class: upstream lets the plugin's class through "
            "itself; remove the patch, which now only holds back the rest of upstream's "
            "change (the copy leaves out 1 line of the old upstream body, which upstream's "
            "own function runs again once the patch goes)",
        )
    ]
