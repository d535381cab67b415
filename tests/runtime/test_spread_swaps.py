"""A swap spread over ``sys.modules``: a function sets an upstream function, then the same
value in every module that imported that name.

``sprplug`` is written here in the shape of a plugin that replaces ``get_pp_group`` in
vLLM's parallel state and its package, then walks ``sys.modules`` and sets the same
function on every model module that has the name (``from vllm.distributed import
get_pp_group`` bound it there before the patch ran). No test of the loop compares the
module's attribute with the original: the earlier assignments of the same value tell what
is swapped.
"""

from __future__ import annotations

from pathlib import Path

from plugin_trees import findings, swaps, uncompared_loop_swap

from helpers import write_files
from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

SPRPLUG = {
    "pyproject.toml": (
        '[project]\nname = "sprplug"\nversion = "1"\n\n'
        '[project.entry-points."vllm.general_plugins"]\npp = "sprplug.pp:apply_pp_patch"\n'
    ),
    "sprplug/__init__.py": "",
    "sprplug/groups.py": "def get_pp_group():\n    return None\n\n\ndef other():\n    return 1\n",
    "sprplug/pp.py": (
        "import sys\n\n"
        "from sprplug.groups import get_pp_group as own_pp_group\n"
        "from sprplug.groups import other\n\n\n"
        "def apply_pp_patch():\n"
        "    import vllm.distributed as vllm_dist\n"
        "    import vllm.distributed.parallel_state as vllm_ps\n\n"
        "    vllm_ps.get_pp_group = own_pp_group\n"
        "    vllm_dist.get_pp_group = own_pp_group\n\n"
        "    for module_name, module in sys.modules.items():\n"
        '        if module_name.startswith("vllm.model_executor.models"):\n'
        '            if hasattr(module, "get_pp_group"):\n'
        '                setattr(module, "get_pp_group", own_pp_group)\n'
        '            if hasattr(module, "get_tp_group"):\n'
        "                module.get_tp_group = own_pp_group\n"
        '            if hasattr(module, "get_pp_group"):\n'
        "                module.get_pp_group = other\n"
    ),
}


def test_a_loop_spreading_a_swap_of_its_scope_is_named_after_it(tmp_path: Path) -> None:
    plugin = write_files(tmp_path / "sprplug", SPRPLUG)
    inventory = take_inventory(None, plugin=plugin, package="sprplug", patch_directory="sprplug")
    assert swaps(inventory) == [
        (
            11,
            "vllm.distributed.parallel_state.get_pp_group",
            "assignment",
            "sprplug.groups:get_pp_group",
            "vllm.distributed.parallel_state",
        ),
        (
            12,
            "vllm.distributed.get_pp_group",
            "assignment",
            "sprplug.groups:get_pp_group",
            "vllm.distributed",
        ),
        # The loop's swap: named after the first object the function set to that value.
        (
            17,
            "vllm.distributed.parallel_state.get_pp_group",
            "setattr",
            "sprplug.groups:get_pp_group",
            "vllm.distributed.parallel_state",
        ),
    ]
    # Another name, or the same name to another value: nothing says what they swap.
    assert findings(inventory) == [
        uncompared_loop_swap(19, "module.get_tp_group"),
        uncompared_loop_swap(21, "module.get_pp_group"),
    ]
