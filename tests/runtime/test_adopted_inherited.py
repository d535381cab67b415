"""The adopted-helpers rule on a method the class inherited at the old release: the old
release's names are read in the class's own module as well as in the base's.

``iplug`` assigns two methods to upstream's ``vllm.layers.embed`` classes, which the old
release inherited from ``CustomOp`` (defined in ``vllm.custom_op``) and the new release
defines itself, each calling a helper the plugin module defines too (a kernel swap that
keeps upstream's method and calls its own operator):

- ``VocabEmbedding.forward_native`` calls ``get_masked_input_and_mask``, which the old
  ``vllm.layers.embed`` already had: the plugin followed upstream, which took nothing of
  the plugin's in (no *remove*: the copy's callers still fit it, *retain*);
- ``LogitsHead.forward_cuda`` calls ``gather_logits_across_ranks``, which neither old
  module had: upstream took the change in (*remove*), the reason naming the class's old
  module and the base's where the method was inherited from.
"""

from __future__ import annotations

from plugin_trees import TreeWriter, patch_plugin

CUSTOM_OP = """class CustomOp:
    def forward(self, *args, **kwargs):
        return self.forward_native(*args, **kwargs)

    def forward_native(self, *args, **kwargs):
        raise NotImplementedError

    def forward_cuda(self, *args, **kwargs):
        return self.forward_native(*args, **kwargs)
"""

EMBED_OLD = """from vllm.custom_op import CustomOp


def get_masked_input_and_mask(input_, start, end):
    mask = (input_ >= start) & (input_ < end)
    return input_ * mask, ~mask


class VocabEmbedding(CustomOp):
    def forward(self, input_):
        masked, mask = get_masked_input_and_mask(input_, self.start, self.end)
        return self.weight[masked]


class LogitsHead(CustomOp):
    def forward(self, hidden):
        return hidden @ self.weight
"""

EMBED_NEW = """from vllm.custom_op import CustomOp


def get_masked_input_and_mask(input_, start, end):
    mask = (input_ >= start) & (input_ < end)
    return input_ * mask, ~mask


def gather_logits_across_ranks(logits):
    return logits


class VocabEmbedding(CustomOp):
    def forward_native(self, input_):
        masked, mask = get_masked_input_and_mask(input_, self.start, self.end)
        return self.weight[masked]


class LogitsHead(CustomOp):
    def forward_cuda(self, hidden):
        return gather_logits_across_ranks(hidden @ self.weight)
"""

PATCH = """import torch
from vllm.layers.embed import LogitsHead, VocabEmbedding


def get_masked_input_and_mask(input_, start, end):
    return torch.ops.iplug_ops.get_masked_input_and_mask(input_, start, end)


def gather_logits_across_ranks(logits):
    return torch.ops.iplug_ops.gather(logits)


def forward_native_iplug(self, input_):
    masked, mask = get_masked_input_and_mask(input_, self.start, self.end)
    output = self.weight[masked]
    output[mask] = 0
    return output


def forward_cuda_iplug(self, hidden):
    logits = gather_logits_across_ranks(hidden @ self.weight)
    return logits.float()


VocabEmbedding.forward_native = forward_native_iplug
LogitsHead.forward_cuda = forward_cuda_iplug
"""

PLUGIN = patch_plugin("iplug", {"p_embed": PATCH}, entry="a")


def test_a_helper_the_class_module_already_had_is_not_upstream_taking_it_in(
    plugin_trees: TreeWriter,
) -> None:
    layers = {"vllm/layers/__init__.py": "", "vllm/custom_op.py": CUSTOM_OP}
    old = {"vllm/__init__.py": "", **layers, "vllm/layers/embed.py": EMBED_OLD}
    new = {"vllm/__init__.py": "", **layers, "vllm/layers/embed.py": EMBED_NEW}
    result = plugin_trees.write("iplug", PLUGIN, old, new).audit()
    assert [(a.entry.target, a.drift.decision, a.drift.evidence[0]) for a in result.entries] == [
        (
            "vllm.layers.embed.VocabEmbedding.forward_native",
            "retain",
            "upstream changed the signature of the function the plugin replaces by its own "
            "copy in a way the copy already takes (every call to the new signature binds to "
            "the copy's parameters), and otherwise its body: the copy runs as the plugin "
            "wrote it; merge upstream's change into it only if the plugin needs it",
        ),
        (
            "vllm.layers.embed.LogitsHead.forward_cuda",
            "remove",
            "the new upstream vllm.layers.embed.LogitsHead.forward_cuda calls "
            "gather_logits_across_ranks(), which the replacement calls as the plugin's own "
            "helper and which vllm.layers.embed defines now (the old release had neither the "
            "call nor the name in vllm.layers.embed or vllm.custom_op): upstream took the "
            "patch's change in; remove the patch once upstream's version is checked to "
            "cover it",
        ),
    ]
