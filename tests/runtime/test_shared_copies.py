"""One replacement set on several targets follows an update of its code on all of them.

``splug`` sets its ``my_gumbel`` on the module that defines upstream's ``gumbel_sample``
and on a module that never had the name (in the shape of vllm-ascend, which sets its
``gumbel_sample`` on each module of vLLM's sampler that may bind it); and its
``my_helper`` on a function the new release moved and on one it left unchanged. The new
release adds a parameter to ``gumbel_sample`` and passes it at its call: the copy must
follow (*update*), and so does the entry that sets the same copy elsewhere, where the
trees alone see nothing to change. A retarget changes the patch statement, not the
shared copy: the unchanged target stays *retain*.
"""

from __future__ import annotations

from plugin_trees import TreeWriter, patch_plugin

GUMBEL = """def gumbel_sample(logits, temperature{extra}):
    return logits


def sample(logits, temperature{extra}):
    return gumbel_sample(logits, temperature{passed})
"""
HELPER = "def helper(x):\n    return x\n"
SPECULATOR = "def propose(x):\n    return x\n"

COMMON = {
    "vllm/__init__.py": "",
    "vllm/sample/__init__.py": "",
    "vllm/spec/__init__.py": "",
    "vllm/spec/speculator.py": SPECULATOR,
}
OLD = {
    **COMMON,
    "vllm/sample/gumbel.py": GUMBEL.format(extra="", passed=""),
    "vllm/old_mod.py": HELPER,
}
NEW = {
    **COMMON,
    "vllm/sample/gumbel.py": GUMBEL.format(extra=", seed", passed=", seed"),
    "vllm/new_mod.py": HELPER,
}

PATCH = """import vllm.old_mod
import vllm.sample.gumbel
import vllm.spec.speculator


def my_gumbel(logits, temperature):
    return logits


def my_helper(x):
    return x


vllm.sample.gumbel.gumbel_sample = my_gumbel
vllm.spec.speculator.gumbel_sample = my_gumbel
vllm.old_mod.helper = my_helper
vllm.spec.speculator.propose = my_helper
"""

PLUGIN = patch_plugin("splug", {"p_sample": PATCH}, entry="s")


def test_an_update_of_a_shared_copy_carries_to_its_other_targets(
    plugin_trees: TreeWriter,
) -> None:
    result = plugin_trees.write("splug", PLUGIN, OLD, NEW).audit()
    assert [(a.entry.target, a.drift.decision, a.drift.evidence[0]) for a in result.entries] == [
        (
            "vllm.sample.gumbel.gumbel_sample",
            "update",
            "upstream vllm.sample.gumbel.gumbel_sample changed: signature: (logits, "
            "temperature) -> (logits, temperature, seed), body; the downstream change is not "
            "in the new upstream",
        ),
        (
            "vllm.spec.speculator.gumbel_sample",
            "update",
            "the replacement splug.patch.p_sample:my_gumbel is also set on "
            "vllm.sample.gumbel.gumbel_sample, whose upstream change it must follow (update "
            "there): the code set on this target changes with it",
        ),
        (
            "vllm.old_mod.helper",
            "update",
            "vllm.old_mod.helper moved: retarget to vllm.new_mod.helper (line 1)",
        ),
        (
            "vllm.spec.speculator.propose",
            "retain",
            "upstream vllm.spec.speculator.propose is unchanged from the old version (AST "
            "without docstrings, signature, decorators)",
        ),
    ]
