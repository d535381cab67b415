"""A replacement whose text equals the new upstream definition but whose bare call reaches
a helper of its own module: not upstream's code (*look*), unless the helper is upstream's
line for line (*remove*).

``kplug`` assigns two methods to upstream's ``vllm.emb.Embedding``, which the old release
inherited from its base and the new release defines itself, line for line the plugin's:

- ``forward_native`` calls ``mask_the_input`` and the plugin module defines that name to call
  its own operator, where upstream's ``mask_the_input`` computes the mask itself (*look*);
- ``forward_cpu`` calls ``scale_output`` and the plugin module's function equals
  upstream's (*remove*: equal to the new upstream).
"""

from __future__ import annotations

from plugin_trees import TreeWriter, patch_plugin

BASE = """class Op:
    def forward_native(self, x):
        raise NotImplementedError

    def forward_cpu(self, x):
        raise NotImplementedError
"""

#: What both releases of ``vllm/emb.py`` define before ``Embedding``.
HELPERS = """from vllm.base import Op


def mask_the_input(x, start, end):
    mask = (x >= start) & (x < end)
    return x * mask, ~mask


def scale_output(y):
    return y * 2
"""

EMB_OLD = (
    HELPERS
    + """

class Embedding(Op):
    def forward(self, x):
        masked, mask = mask_the_input(x, self.start, self.end)
        return scale_output(masked)
"""
)

EMB_NEW = (
    HELPERS
    + """

class Embedding(Op):
    def forward_native(self, x):
        masked, mask = mask_the_input(x, self.start, self.end)
        return masked

    def forward_cpu(self, x):
        return scale_output(x)
"""
)

PATCH = """import torch
from vllm.emb import Embedding


def mask_the_input(x, start, end):
    return torch.ops.kplug_ops.mask_the_input(x, start, end)


def scale_output(y):
    return y * 2


def forward_native_kplug(self, x):
    masked, mask = mask_the_input(x, self.start, self.end)
    return masked


def forward_cpu_kplug(self, x):
    return scale_output(x)


Embedding.forward_native = forward_native_kplug
Embedding.forward_cpu = forward_cpu_kplug
"""

PLUGIN = patch_plugin("kplug", {"p_emb": PATCH}, entry="a")


def _vllm(emb: str) -> dict[str, str]:
    """The files of an upstream release whose ``vllm/emb.py`` is ``emb``."""
    return {"vllm/__init__.py": "", "vllm/base.py": BASE, "vllm/emb.py": emb}


def test_equal_text_calling_the_plugins_own_helper_is_not_upstreams_code(
    plugin_trees: TreeWriter,
) -> None:
    result = plugin_trees.write("kplug", PLUGIN, _vllm(EMB_OLD), _vllm(EMB_NEW)).audit()
    assert [(a.entry.target, a.drift.decision, a.drift.evidence[0]) for a in result.entries] == [
        (
            "vllm.emb.Embedding.forward_native",
            "look",
            "the replacement's text equals the new upstream definition, but it calls "
            "mask_the_input() of its own module, which vllm.emb does not define the same "
            "way: the patch runs the plugin's helper where upstream runs its own; check "
            "whether upstream's helper does what the plugin's does before removing the patch",
        ),
        (
            "vllm.emb.Embedding.forward_cpu",
            "remove",
            "the new upstream implementation equals the replacement",
        ),
    ]
