"""A name the plugin adds to an upstream module that the new release moved or dropped.

``mplug`` assigns classes of its own into upstream modules under names upstream never had
(``layernorm.LayerNormFn = AscendLayerNormFn``). The new release moves one module to
another package (the same file name, the same definitions: vLLM 0.26.0 moved
``vllm.model_executor.layers.fla.ops`` to ``vllm.third_party.flash_linear_attention.ops``),
drops another, and keeps the third: the added name must follow the moved module
(*update*, retarget), the dropped one leaves the trees unable to tell where it went
(*look*), the kept one is still the plugin's addition (*retain*).
"""

from __future__ import annotations

from plugin_trees import TreeWriter, patch_plugin

LAYERNORM = (
    "def layer_norm_fwd(x):\n    return x\n\n\n"
    "def layer_norm_bwd(x):\n    return x\n\n\n"
    "class LayerNormGated:\n    pass\n"
)
SCALING = "def scale(x):\n    return x\n\n\ndef unscale(x):\n    return x\n"
KEPT = "def keep(x):\n    return x\n"

OLD = {
    "vllm/__init__.py": "",
    "vllm/ops/__init__.py": "",
    "vllm/ops/layernorm.py": LAYERNORM,
    "vllm/ops/scaling.py": SCALING,
    "vllm/ops/kept.py": KEPT,
}
NEW = {
    "vllm/__init__.py": "",
    "vllm/ops/__init__.py": "",
    "vllm/ops/kept.py": KEPT,
    "vllm/third_party/__init__.py": "",
    "vllm/third_party/ops/__init__.py": "",
    "vllm/third_party/ops/layernorm.py": LAYERNORM,
}

PATCH = """import vllm.ops.kept as kept
import vllm.ops.layernorm as layernorm
import vllm.ops.scaling as scaling


class AscendLayerNormFn:
    pass


class AscendScaler:
    pass


class AscendKeeper:
    pass


layernorm.LayerNormFn = AscendLayerNormFn
scaling.Scaler = AscendScaler
kept.Keeper = AscendKeeper
"""

PLUGIN = patch_plugin("mplug", {"p_ops": PATCH}, entry="m")


def test_a_name_added_to_a_moved_module_follows_it(plugin_trees: TreeWriter) -> None:
    result = plugin_trees.write("mplug", PLUGIN, OLD, NEW).audit()
    assert [(a.entry.target, a.drift.decision, a.drift.evidence[0]) for a in result.entries] == [
        (
            "vllm.ops.layernorm.LayerNormFn",
            "update",
            "vllm.ops.layernorm.LayerNormFn is in neither release: the plugin adds it to "
            "vllm.ops.layernorm, a module the new release moved to "
            "vllm.third_party.ops.layernorm (it defines the old module's names): retarget to "
            "vllm.third_party.ops.layernorm.LayerNormFn",
        ),
        (
            "vllm.ops.scaling.Scaler",
            "look",
            "vllm.ops.scaling.Scaler is in neither release: the plugin adds it to "
            "vllm.ops.scaling, a module the old release had and the new one lacks (no module "
            "of that name defines its names there): the assignment has nothing to add it to; "
            "find where upstream's module went before removing it",
        ),
        (
            "vllm.ops.kept.Keeper",
            "retain",
            "vllm.ops.kept.Keeper is in neither release: the plugin's assignment adds it (if "
            "it was meant to replace something, a typo or a future name)",
        ),
    ]
