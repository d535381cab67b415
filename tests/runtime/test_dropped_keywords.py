"""A keyword the plugin's code passes to an upstream callable the new release no longer
takes: the replacement must follow, however unchanged its target.

``kplug`` overrides a method of upstream's ``Cache`` with one that builds upstream's
``Spec`` dataclass itself, passing the field ``ratio`` (a field of ``Spec``, beside
``block_size`` inherited from ``BaseSpec``). The new release renames the field
``tokens`` (vLLM 0.29.0 renamed ``MLAAttentionSpec``'s ``compress_ratio`` to
``tokens_per_state``) and leaves ``Cache``, ``make_cache`` and ``plain`` as they were:
the override's call fails (*update*); a call to a function that now takes ``**kwargs``,
and one passing only keywords the new release still takes, stay *retain*.
"""

from __future__ import annotations

from plugin_trees import TreeWriter, patch_plugin

SPEC = """from dataclasses import dataclass


@dataclass(frozen=True)
class BaseSpec:
    block_size: int


@dataclass(frozen=True)
class Spec(BaseSpec):
    {field}: int = 1


def build(size, {rest}):
    return size


class Cache:
    def get_spec(self):
        return Spec(block_size=1)


def make_cache():
    return Cache()


def plain():
    return Spec(block_size=1)
"""

PATCH = """import vllm.spec
from vllm.spec import Cache, Spec, build


class MyCache(Cache):
    def get_spec(self):
        return Spec(block_size=2, ratio=2)


def my_make_cache():
    return build(size=1, mode="b")


def my_plain():
    return Spec(block_size=2)


vllm.spec.Cache = MyCache
vllm.spec.make_cache = my_make_cache
vllm.spec.plain = my_plain
"""

PLUGIN = patch_plugin("kplug", {"p_spec": PATCH}, entry="k")


def test_a_keyword_the_new_release_no_longer_takes_is_an_update(
    plugin_trees: TreeWriter,
) -> None:
    result = plugin_trees.write(
        "kplug",
        PLUGIN,
        {"vllm/__init__.py": "", "vllm/spec.py": SPEC.format(field="ratio", rest='mode="a"')},
        {"vllm/__init__.py": "", "vllm/spec.py": SPEC.format(field="tokens", rest="**kwargs")},
    ).audit()
    assert [(a.entry.target, a.drift.decision, a.drift.evidence[0]) for a in result.entries] == [
        (
            "vllm.spec.Cache",
            "update",
            "the replacement calls Spec(ratio=), a keyword the new upstream no longer takes "
            "(renamed or dropped): the call fails at the new release; pass what the new "
            "signature takes",
        ),
        (
            "vllm.spec.make_cache",
            "retain",
            "upstream vllm.spec.make_cache is unchanged from the old version (AST without "
            "docstrings, signature, decorators)",
        ),
        (
            "vllm.spec.plain",
            "retain",
            "upstream vllm.spec.plain is unchanged from the old version (AST without "
            "docstrings, signature, decorators)",
        ),
    ]
