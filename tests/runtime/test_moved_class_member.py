"""A method of a class whose module the new release dropped, the class moved elsewhere.

The search for the target ``vllm.worker.Worker.run`` began at ``worker``, the name of the
dropped module: a function ``worker`` elsewhere was then its new place, "without
Worker.run", and the audit said to retarget to it. The search starts from the class the old
release defines the method in: the class's new place when it still has the method (*update*),
and, when it lacks it, the class's place and what it lacks (*look*), never a place said to
define the target.
"""

from __future__ import annotations

import pytest
from plugin_trees import TreeWriter, patch_plugin

OLD = {
    "vllm/__init__.py": "",
    "vllm/worker.py": "class Worker:\n    def run(self):\n        return 1\n",
}
PATCH = "import vllm.worker\n\n\ndef run(self):\n    return 2\n\n\nvllm.worker.Worker.run = run\n"
PLUGIN = patch_plugin("mplug", {"p_worker": PATCH}, entry="m")


def _new(worker: str) -> dict[str, str]:
    return {
        "vllm/__init__.py": "",
        "vllm/v1/__init__.py": "",
        "vllm/v1/engine.py": "def worker():\n    return None\n",
        "vllm/v1/worker/__init__.py": "",
        "vllm/v1/worker/gpu_worker.py": worker,
    }


@pytest.mark.parametrize(
    ("worker", "decision", "evidence"),
    [
        (
            "class Worker:\n    def run(self):\n        return 1\n",
            "update",
            (
                "vllm.worker.Worker.run moved: retarget to "
                "vllm.v1.worker.gpu_worker.Worker.run (line 2)",
                "vllm.worker.Worker.run is moved in the new upstream; now defined at "
                "vllm.v1.worker.gpu_worker.Worker.run (line 2)",
            ),
        ),
        (
            "class Worker:\n    def execute(self):\n        return 1\n",
            "look",
            (
                "vllm.worker.Worker.run is gone from the new upstream: its owner is now at "
                "vllm.v1.worker.gpu_worker.Worker (line 1), which does not define run; a "
                "retargeted patch would add it there and replace nothing: find what took its "
                "place before retargeting or removing the patch",
                "vllm.worker.Worker.run is moved in the new upstream; only its owner is "
                "found, at vllm.v1.worker.gpu_worker.Worker (line 1), without run",
            ),
        ),
    ],
)
def test_a_method_of_a_moved_class_is_searched_from_its_class(
    plugin_trees: TreeWriter, worker: str, decision: str, evidence: tuple[str, ...]
) -> None:
    result = plugin_trees.write("mplug", PLUGIN, OLD, _new(worker)).audit()
    assert [(a.entry.target, a.drift.decision, a.drift.evidence) for a in result.entries] == [
        ("vllm.worker.Worker.run", decision, evidence)
    ]
