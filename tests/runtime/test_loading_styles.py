"""Activation for every way a vLLM plugin is loaded, and what the audit decides from it.

Each plugin here is written by the test in the shape of a real one: ``tplug`` is a platform
the upstream loads itself (tpu-inference: vLLM's platform detection names
``"tpu_inference.platforms.tpu_platform.TpuPlatform"`` and ``vllm/platforms/tpu.py`` imports
it), beside a ``vllm.general_plugins`` entry point; ``mplug`` declares nothing to vLLM and is
activated by ``import mplug`` or its console script (vllm-mindspore); ``rplug``'s package
``__init__`` calls its own ``register()`` on import. The upstream is a small tree named
``vllm`` written here, the same at both releases (so every reached entry is *retain*).
"""

from __future__ import annotations

from plugin_trees import ENGINE, PATCH_RUN, PATCH_STEP, TreeWriter, activation_decisions, pyproject

UPSTREAM = {
    "vllm/__init__.py": "",
    "vllm/engine.py": ENGINE,
    "vllm/platforms/__init__.py": (
        'def tpu_platform_plugin():\n    return "tplug.platforms.tpu_platform.TpuPlatform"\n'
    ),
    "vllm/platforms/tpu.py": (
        "try:\n    from tplug.platforms import TpuPlatform\nexcept ImportError:\n    pass\n"
    ),
}

TPLUG = {
    "pyproject.toml": pyproject("tplug", {"register_layers": "tplug.layers:register_layers"}),
    "tplug/__init__.py": "",
    "tplug/layers.py": "def register_layers():\n    pass\n",
    "tplug/platforms/__init__.py": "from tplug.platforms.tpu_platform import TpuPlatform\n",
    "tplug/platforms/tpu_platform.py": (
        "class TpuPlatform:\n"
        "    @classmethod\n"
        "    def check_and_update_config(cls, config):\n"
        "        import tplug.sched  # noqa: F401\n"
    ),
    "tplug/sched.py": PATCH_STEP,
    "tplug/unused.py": PATCH_RUN,
}

MPLUG = {
    "pyproject.toml": (
        '[project]\nname = "mplug"\nversion = "1"\n\n[project.scripts]\nmplug = "mplug.cli:main"\n'
    ),
    "mplug/__init__.py": "import mplug.on_import  # noqa: F401\n",
    "mplug/on_import.py": PATCH_STEP,
    "mplug/cli.py": "def main():\n    import mplug.serve  # noqa: F401\n",
    "mplug/serve.py": PATCH_RUN,
    "mplug/dormant.py": PATCH_RUN,
}

RPLUG = {
    "pyproject.toml": pyproject("rplug", {"models": "rplug.models:noop"}),
    "rplug/__init__.py": "def register():\n    import rplug.hooks  # noqa: F401\n\n\nregister()\n",
    "rplug/models.py": "def noop():\n    pass\n",
    "rplug/hooks.py": PATCH_STEP,
}


def test_a_platform_the_upstream_loads_itself_is_traced_through_the_upstream(
    plugin_trees: TreeWriter,
) -> None:
    trees = plugin_trees.write("tplug", TPLUG, UPSTREAM)
    result = trees.audit()
    assert activation_decisions(result) == [
        ("tplug/sched.py", "vllm.engine.step", "active", "retain"),
        # Nothing imports it, and the plugin's loading is traced: never imported, a fact.
        ("tplug/unused.py", "vllm.engine.run", "never-imported", "remove"),
    ]
    assert result.inventory.loading == (
        "entry point vllm.general_plugins:register_layers = tplug.layers:register_layers "
        "(pyproject.toml)",
        "the upstream loads it: 'tplug.platforms.tpu_platform.TpuPlatform' "
        "(vllm/platforms/__init__.py:2)",
        "the upstream loads it: from tplug.platforms import TpuPlatform (vllm/platforms/tpu.py:2)",
    )
    sched = result.entries[0].entry.activation
    assert sched is not None
    assert sched.chain == (
        "the upstream loads it: 'tplug.platforms.tpu_platform.TpuPlatform' "
        "(vllm/platforms/__init__.py:2)",
        "method tplug.platforms.tpu_platform.TpuPlatform.check_and_update_config",
        "import tplug.sched (tplug/platforms/tpu_platform.py:4)",
    )


def test_without_an_upstream_the_inventory_reaches_only_what_the_entry_points_do(
    plugin_trees: TreeWriter,
) -> None:
    # The inventory alone reads no upstream tree: the platform's patch is not reached, and
    # the entry point makes the loading declared (the audit reads the upstream, above).
    inventory = plugin_trees.write("tplug", TPLUG).inventory()
    assert [(e.file, e.activation.status.value) for e in inventory.entries if e.activation] == [
        ("tplug/sched.py", "never-imported"),
        ("tplug/unused.py", "never-imported"),
    ]


def test_a_plugin_activated_by_its_import_or_console_script_is_never_removed_unreached(
    plugin_trees: TreeWriter,
) -> None:
    trees = plugin_trees.write("mplug", MPLUG, UPSTREAM)
    result = trees.audit()
    assert activation_decisions(result) == [
        # Reached neither from `import mplug` nor from the console script; but nothing
        # declares mplug to vLLM, so what its users import is not known: look.
        ("mplug/dormant.py", "vllm.engine.run", "never-imported", "look"),
        ("mplug/on_import.py", "vllm.engine.step", "active", "retain"),
        ("mplug/serve.py", "vllm.engine.run", "active", "retain"),
    ]
    assert result.inventory.loading == (
        "console script mplug = mplug.cli:main (pyproject.toml)",
        "import mplug (its users import it before the upstream)",
        "nothing declares mplug to the upstream (no entry point in its groups, no configured "
        "activation; the upstream does not import it): it is activated by importing it or by "
        "its console scripts, and what its users import besides cannot be traced",
    )
    dormant = result.entries[0]
    assert dormant.drift.evidence[0] == (
        "not reached from the plugin's import or console scripts (no import of mplug.dormant "
        "in the modules read), but nothing declares mplug to the upstream (no entry point in "
        "its groups, no configured activation; the upstream does not import it): it is "
        "activated by importing it or by its console scripts, and what its users import "
        "besides cannot be traced: find out whether it runs before removing it"
    )
    assert dormant.facts == (
        "activation: never imported (no import of mplug.dormant in the modules read; loading "
        "untraced)",
        "target: found at vllm.engine.run in the old release, found at vllm.engine.run in the "
        "new one",
        "upstream changed: nothing",
    )


def test_a_register_called_from_the_package_init_runs_on_any_import(
    plugin_trees: TreeWriter,
) -> None:
    inventory = plugin_trees.write("rplug", RPLUG).inventory()
    (entry,) = inventory.entries
    assert entry.activation is not None
    assert (entry.activation.status.value, entry.activation.chain) == (
        "active",
        (
            "entry point vllm.general_plugins:models = rplug.models:noop (pyproject.toml)",
            "import rplug (parent package)",
            "call rplug.register (rplug/__init__.py:5)",
            "import rplug.hooks (rplug/__init__.py:2)",
        ),
    )


SPLUG = {
    "pyproject.toml": pyproject("splug", {"ops": "splug.ops:register_ops"}),
    "splug/__init__.py": "",
    "splug/ops.py": "def register_ops():\n    import splug.attention  # noqa: F401\n",
    "splug/attention.py": (
        "import torch\n"
        "import vllm.engine\n"
        "from vllm.layers import Attention\n\n\n"
        "class BaseTpuAttention(Attention):\n"
        "    pass\n\n\n"
        "class TpuAttention(BaseTpuAttention):\n"
        "    def __init__(self):\n"
        "        vllm.engine.step = lambda x: x\n\n\n"
        "class Helper(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        vllm.engine.run = lambda x: x\n"
    ),
}


def test_a_method_of_a_class_the_upstream_builds_is_reached_with_its_module(
    plugin_trees: TreeWriter,
) -> None:
    # TpuAttention derives (through the plugin's BaseTpuAttention) from an upstream class:
    # the upstream builds it and calls its __init__, which nothing in the plugin calls. A
    # class of another library (torch) is not built by the upstream.
    inventory = plugin_trees.write("splug", SPLUG).inventory()
    found = {e.target: e.activation for e in inventory.entries if e.activation}
    step, run = found["vllm.engine.step"], found["vllm.engine.run"]
    assert (step.status.value, step.chain) == (
        "active",
        (
            "entry point vllm.general_plugins:ops = splug.ops:register_ops (pyproject.toml)",
            "import splug.attention (splug/ops.py:2)",
            "class splug.attention.TpuAttention derives from upstream vllm.layers.Attention",
            "method splug.attention.TpuAttention.__init__",
        ),
    )
    assert (run.status.value, run.note) == (
        "never-imported",
        "splug.attention is imported but Helper.__init__ is never called from a reached scope",
    )
