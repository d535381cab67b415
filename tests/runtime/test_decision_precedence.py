"""Precedence of the decision rules: when the new upstream definition is the plugin's
replacement itself, the decision is *remove*, whatever another rule says.

The plugin here, written by the test in the shape of a vllm-ascend patch, replaced
``vllm.engine.step`` by a version consulting a platform hook; the new upstream took that
version in whole, hook included. The hook is new upstream, so the extension-point rule
would say *migrate*; but there is nothing left to migrate: upstream runs the plugin's code.
"""

from __future__ import annotations

from plugin_trees import TreeWriter, pyproject

STEP = "def step(x):\n    return current_platform.fuse_step(x)\n"
OLD = {
    "vllm/__init__.py": "",
    "vllm/platforms/__init__.py": "class Platform:\n    pass\n\n\ncurrent_platform = Platform()\n",
    "vllm/engine.py": "def step(x):\n    return x\n",
}
NEW = {
    "vllm/__init__.py": "",
    "vllm/platforms/__init__.py": (
        "class Platform:\n    def fuse_step(self, x):\n        return x\n\n\n"
        "current_platform = Platform()\n"
    ),
    "vllm/engine.py": "from vllm.platforms import current_platform\n\n\n" + STEP,
}
PLUGIN = {
    "pyproject.toml": pyproject("eplug", {"e": "eplug.patch:apply"}),
    "eplug/__init__.py": "",
    "eplug/patch/__init__.py": "def apply():\n    import eplug.patch.patch_step  # noqa: F401\n",
    "eplug/patch/patch_step.py": (
        "import vllm.engine\nfrom vllm.platforms import current_platform\n\n\n"
        + STEP
        + "\n\nvllm.engine.step = step\n"
    ),
}


def test_the_new_upstream_equal_to_the_replacement_is_remove_before_migrate(
    plugin_trees: TreeWriter,
) -> None:
    result = plugin_trees.write("eplug", PLUGIN, OLD, NEW).audit()
    (audited,) = result.entries
    assert (audited.entry.target, audited.drift.decision, audited.drift.evidence[0]) == (
        "vllm.engine.step",
        "remove",
        "the new upstream implementation equals the replacement",
    )
    # The facts the decision follows from, reported apart from it.
    assert audited.facts == (
        "activation: active",
        "target: found at vllm.engine.step in the old release, found at vllm.engine.step in "
        "the new one",
        "upstream changed: body",
        "the new upstream implementation equals the replacement",
    )
