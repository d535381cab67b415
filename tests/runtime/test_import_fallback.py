"""A patch whose upstream import falls back to the plugin's own object.

In the shape of a speculative-decoding plugin: it imports ``Qwen2Model`` from an upstream
module neither release has (``models.qwen2_eagle``), falls back to its own copy in an
``except ImportError``, then wraps ``Qwen2Model.load_weights`` and sets a marker on the
class. At both releases the import fails, so the patch replaces the plugin's own class's
attributes: *retain*, saying so (before: *look*, "the patch can never apply (a typo or a
future name)"), and ``runtime lock`` leaves them out as patching nothing upstream (before:
*unguarded*, "moved at 1.1: defined now as fup.models.qwen2.Qwen2Model...", exit 1). A patch of a module neither release has, with no such fallback, stays
*look*; so does a fallback to another upstream module, which is not the plugin's. The
upstream releases and the plugin are written by the test."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import pyproject

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit as audit

QWEN2 = "class Qwen2Model:\n    def load_weights(self, weights):\n        return set()\n"

EAGLE = """from typing import Any

PATCH_MARKER = "_fplug_eagle_patched"


def apply_eagle_patches() -> bool:
    try:
        from fup.models.qwen2_eagle import Qwen2Model
    except ImportError:
        from ..models.qwen2_eagle import Qwen2Model

    if getattr(Qwen2Model, PATCH_MARKER, False):
        return False

    original_load_weights = Qwen2Model.load_weights

    def load_weights(self: Any, weights: Any) -> set[str]:
        return original_load_weights(self, weights)

    Qwen2Model.load_weights = load_weights
    setattr(Qwen2Model, PATCH_MARKER, True)
    return True


def apply_other_patches() -> None:
    try:
        from fup.models.llama_eagle import LlamaModel
    except ImportError:
        from fup.models.qwen2 import Qwen2Model as LlamaModel

    LlamaModel.forward = lambda self: None
    import fup.models.mistral_eagle as mistral

    mistral.MistralModel.forward = lambda self: None
"""


def test_a_fallback_to_the_plugins_own_object_is_retained(tmp_path: Path, cli) -> None:
    old, new = tmp_path / "fup-1.0", tmp_path / "fup-1.1"
    for root, version in ((old, "1.0"), (new, "1.1")):
        write_files(
            root,
            {
                "pyproject.toml": f'[project]\nname = "fup"\nversion = "{version}"\n',
                "fup/__init__.py": "",
                "fup/models/__init__.py": "",
                "fup/models/qwen2.py": QWEN2,
            },
        )
    plugin = write_files(
        tmp_path / "fplug",
        {
            "pyproject.toml": pyproject(
                "fplug",
                {"fplug": "fplug:register"},
                group="fup.plugins",
                version="0.1",
                upstream="fup",
            ),
            "fplug/__init__.py": (
                "def register():\n    from fplug.patch import eagle\n\n"
                "    eagle.apply_eagle_patches()\n    eagle.apply_other_patches()\n"
            ),
            "fplug/models/__init__.py": "",
            "fplug/models/qwen2_eagle.py": QWEN2,
            "fplug/patch/__init__.py": "",
            "fplug/patch/eagle.py": EAGLE,
        },
    )
    result = audit.audit_runtime(load_config(plugin / "pyproject.toml"), old=str(old), new=str(new))
    found = [(a.entry.target, a.drift.decision, a.drift.evidence[0]) for a in result.entries]
    fallback = (
        "is in neither release, nor is fup.models.qwen2_eagle.Qwen2Model: the import of it "
        "fails at both, and the plugin falls back to its own fplug.models.qwen2_eagle.Qwen2Model "
        "(except ImportError, fplug/patch/eagle.py:10), so the patch replaces "
        "fplug.models.qwen2_eagle.Qwen2Model.{name}, not upstream's; nothing to do at this "
        "upgrade (a release that adds fup.models.qwen2_eagle.Qwen2Model makes it an upstream "
        "patch)"
    )
    assert found == [
        (
            "fup.models.qwen2_eagle.Qwen2Model.load_weights",
            "retain",
            "fup.models.qwen2_eagle.Qwen2Model.load_weights "
            + fallback.format(name="load_weights"),
        ),
        (
            "fup.models.qwen2_eagle.Qwen2Model._fplug_eagle_patched",
            "retain",
            "fup.models.qwen2_eagle.Qwen2Model._fplug_eagle_patched "
            + fallback.format(name="_fplug_eagle_patched"),
        ),
        (
            "fup.models.llama_eagle.LlamaModel.forward",
            "look",
            "fup.models.llama_eagle.LlamaModel.forward is in neither release, nor is "
            "fup.models.llama_eagle.LlamaModel, the module or class it belongs to: the patch "
            "can never apply (a typo or a future name)",
        ),
        (
            "fup.models.mistral_eagle.MistralModel.forward",
            "look",
            "fup.models.mistral_eagle.MistralModel.forward is in neither release, nor is "
            "fup.models.mistral_eagle.MistralModel, the module or class it belongs to: the "
            "patch can never apply (a typo or a future name)",
        ),
    ]
    [retained, marker, *_] = result.entries
    assert all("can never apply" not in said for said in retained.drift.evidence)
    assert all("can never apply" not in said for said in marker.drift.evidence)
    lock = cli("runtime", "lock", "--at", str(new), cwd=plugin)
    fell_back = (
        "1.1 has no fup.models.qwen2_eagle.Qwen2Model: the import fails and the plugin falls "
        "back to its own fplug.models.qwen2_eagle.Qwen2Model (except ImportError, "
        "fplug/patch/eagle.py:10), so the patch replaces nothing upstream to guard"
    )
    assert (lock.code, lock.out.splitlines()[1:]) == (
        0,
        [
            "not locked (4):",
            "  fup.models.llama_eagle.LlamaModel.forward: added by the plugin: 1.1 defines no "
            "such name; nothing upstream to guard",
            "  fup.models.mistral_eagle.MistralModel.forward: added by the plugin: 1.1 defines "
            "no such name; nothing upstream to guard",
            f"  fup.models.qwen2_eagle.Qwen2Model._fplug_eagle_patched: {fell_back}",
            f"  fup.models.qwen2_eagle.Qwen2Model.load_weights: {fell_back}",
        ],
    )
