"""Names swapped by a loop over module names or over ``sys.modules``: one entry per swap.

``swplug`` is written here in the shape of a plugin that swaps classes in every vLLM module
binding them (vllm-omni's ``patch.py``: ``for module_name, module in
list(sys.modules.items()):``, then ``if module.Request == _OriginalRequest: module.Request
= OmniRequest``), and of one that sets a function on a list or dict of module names
(``setattr(sys.modules[m], name, value)`` in a loop over a module constant).
"""

from __future__ import annotations

from pathlib import Path

from plugin_trees import findings, pyproject, swaps, uncompared_loop_swap

from helpers import write_files
from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

SWPLUG = {
    "pyproject.toml": pyproject("swplug", {"swap": "swplug.patch:noop"}),
    "swplug/__init__.py": "",
    "swplug/request.py": (
        "from vllm.v1.request import Request\n\n\nclass SwRequest(Request):\n    pass\n"
    ),
    "swplug/patch.py": (
        "import sys\n\n"
        "from vllm.v1.engine import EngineCoreOutput as _OriginalEngineCoreOutput\n"
        "from vllm.v1.request import Request as _OriginalRequest\n\n"
        "from swplug.request import SwRequest\n\n\n"
        "def noop():\n    pass\n\n\n"
        "def step(x):\n    return x\n\n\n"
        "def swap_output(x):\n    return x\n\n\n"
        '_STEP_MODULES = ["vllm.engine", "vllm.v1.engine.core"]\n'
        '_RUN_SWAPS = {"vllm.engine": "run", "vllm.worker": "execute"}\n\n'
        "for _name in _STEP_MODULES:\n"
        '    setattr(sys.modules[_name], "step", step)\n\n'
        "for _name, _attr in _RUN_SWAPS.items():\n"
        "    setattr(sys.modules[_name], _attr, step)\n\n"
        "for module_name, module in list(sys.modules.items()):\n"
        '    if "vllm" not in module_name:\n'
        "        continue\n"
        '    if hasattr(module, "Request") and module.Request == _OriginalRequest:\n'
        "        module.Request = SwRequest\n"
        "    if getattr(module, 'EngineCoreOutput', None) is _OriginalEngineCoreOutput:\n"
        '        setattr(module, "EngineCoreOutput", swap_output)\n'
        "    if hasattr(module, 'Unknown'):\n"
        "        module.Unknown = step\n"
    ),
}


def test_swaps_in_loops_over_module_names_are_listed_one_per_name(tmp_path: Path) -> None:
    plugin = write_files(tmp_path / "swplug", SWPLUG)
    inventory = take_inventory(None, plugin=plugin, package="swplug", patch_directory="swplug")
    assert swaps(inventory) == [
        (25, "vllm.engine.step", "setattr", "swplug.patch:step", "vllm.engine"),
        (25, "vllm.v1.engine.core.step", "setattr", "swplug.patch:step", "vllm.v1.engine.core"),
        (28, "vllm.engine.run", "setattr", "swplug.patch:step", "vllm.engine"),
        (28, "vllm.worker.execute", "setattr", "swplug.patch:step", "vllm.worker"),
        # Named after what they swap: the original each module's name is compared with.
        (34, "vllm.v1.request.Request", "subclass", "swplug.request:SwRequest", "vllm.v1.request"),
        (
            36,
            "vllm.v1.engine.EngineCoreOutput",
            "setattr",
            "swplug.patch:swap_output",
            "vllm.v1.engine",
        ),
    ]
    # A swap no test of the loop names is said, not dropped.
    assert findings(inventory) == [uncompared_loop_swap(38, "module.Unknown")]


WRAPPED = (
    "import functools\n\n"
    "import vllm.engine as mod\n\n"
    "_SEAMS = ('step', 'run')\n"
    "_HOOKS = frozenset({'start', 'stop'})\n\n\n"
    "def noop():\n    pass\n\n\n"
    "def wrap(fn):\n"
    "    @functools.wraps(fn)\n"
    "    def inner(*args, **kwargs):\n"
    "        return fn(*args, **kwargs)\n\n"
    "    return inner\n\n\n"
    "for name in _SEAMS:\n"
    "    setattr(mod, name, wrap(getattr(mod, name)))\n\n"
    "for name in _HOOKS:\n"
    "    setattr(mod, name, wrap(getattr(mod, name)))\n"
)


def test_wrappers_set_in_a_loop_over_a_constant_of_names_are_listed(tmp_path: Path) -> None:
    """A function wrapped per name of a module constant, a tuple or a ``frozenset(...)`` of
    strings: one entry per name, as a plain ``setattr`` of that name; the frozenset was a
    ``setattr-name`` finding, its names not listed."""
    files = {
        "pyproject.toml": pyproject("wplug", {"wrap": "wplug.patch:noop"}),
        "wplug/__init__.py": "",
        "wplug/patch.py": WRAPPED,
    }
    plugin = write_files(tmp_path / "wplug", files)
    inventory = take_inventory(None, plugin=plugin, package="wplug", patch_directory="wplug")
    assert sorted(swaps(inventory)) == [
        (22, "vllm.engine.run", "setattr", "wplug.patch:wrap", "vllm.engine"),
        (22, "vllm.engine.step", "setattr", "wplug.patch:wrap", "vllm.engine"),
        (25, "vllm.engine.start", "setattr", "wplug.patch:wrap", "vllm.engine"),
        (25, "vllm.engine.stop", "setattr", "wplug.patch:wrap", "vllm.engine"),
    ]
    assert findings(inventory) == []
