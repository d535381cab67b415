"""A plugin loaded by a worker class named on vLLM's command line (``--worker-cls
scaleplug.worker.Worker``) that patches another hardware plugin, ``ascend-up``: configured as
its upstream by its distribution name, with ``activation`` naming the class and no
``upstream-packages``, the runtime commands read the upstream's import package,
``ascend_up``."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import TreeWriter

#: The plugin: a worker class deriving from the upstream's, whose ``__init__`` installs the
#: patch, and no entry point (vLLM imports the class from the name on its command line).
PLUGIN = {
    "scaleplug/__init__.py": "",
    "scaleplug/worker.py": (
        '"""The only public entry: vllm serve ... --worker-cls scaleplug.worker.Worker."""\n\n'
        "from ascend_up.worker import NPUWorker\n\n\n"
        "class Worker(NPUWorker):\n"
        "    def __init__(self, config):\n"
        "        from .patches import replay\n\n"
        "        replay.install()\n"
        "        super().__init__(config)\n"
    ),
    "scaleplug/patches/__init__.py": "",
    "scaleplug/patches/replay.py": (
        "from ascend_up.graph import GraphWrapper\n\n\n"
        "def _ordered_call(self, *args, **kwargs):\n"
        "    return self.runnable(*args, **kwargs)\n\n\n"
        "def install():\n"
        "    GraphWrapper.__call__ = _ordered_call\n"
    ),
}

WORKER = "class NPUWorker:\n    def __init__(self, config):\n        self.config = config\n"

OLD = {
    "ascend_up/__init__.py": "",
    "ascend_up/worker.py": WORKER,
    "ascend_up/graph.py": (
        "class GraphWrapper:\n"
        "    def __call__(self, *args, **kwargs):\n"
        "        return self.runnable(*args, **kwargs)\n"
    ),
}

NEW = {
    **OLD,
    "ascend_up/graph.py": (
        "class GraphWrapper:\n"
        "    def __call__(self, *args, **kwargs):\n"
        "        self.replays += 1\n"
        "        return self.runnable(*args, **kwargs)\n"
    ),
}

CONFIG = (
    'upstream = "ascend-up"\n\n[runtime]\npackage = "scaleplug"\nroot = "../scaleplug"\n'
    'activation = "scaleplug.worker:Worker"\n'
)


def test_the_configured_upstream_is_read_by_its_import_name(plugin_trees: TreeWriter, cli) -> None:
    plugin_trees.write("scaleplug", PLUGIN, OLD, NEW)
    downstream = plugin_trees.root / "downstream"
    downstream.mkdir()
    (downstream / "patchkeeper.toml").write_text(CONFIG)
    run = cli("runtime", "audit", "--from", "../up-1.0", "--to", "../up-2.0", cwd=downstream)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[1] == (
        "RETAIN       scaleplug/patches/replay.py:9  assignment  "
        "ascend_up.graph.GraphWrapper.__call__  <- scaleplug.patches.replay:_ordered_call"
    )
    assert run.out.splitlines()[-2:] == ["activation: active 1", "decision: retain 1"]


def test_a_tree_without_it_names_the_import_name(plugin_trees: TreeWriter, cli) -> None:
    plugin_trees.write("scaleplug", PLUGIN, {"vllm/__init__.py": ""})
    downstream = plugin_trees.root / "downstream"
    downstream.mkdir()
    (downstream / "patchkeeper.toml").write_text(CONFIG)
    run = cli("runtime", "audit", "--from", "../up-1.0", "--to", "../up-2.0", cwd=downstream)
    tree = Path(plugin_trees.root / "up-1.0").resolve()
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines()[0] == (
        f"patchkeeper: error: {tree}: no ascend_up package in this upstream tree"
    )
