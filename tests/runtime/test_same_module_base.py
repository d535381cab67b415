"""A method an upstream class inherits from a base its own module defines, unimported
(``class UniformSpecs(Spec):`` beside ``class Spec:``): the lookup follows that base as it
follows an imported one. It did not (a base written without an import was no dotted path to
split), so the old release "had no" ``UniformSpecs.max_blocks`` and a plugin's fallback for
it, guarded by ``if UniformSpecs.max_blocks is Spec.max_blocks:``, was judged a target new
upstream (*update*: "the patch now replaces upstream's own definition") when the new
release gave the class its own method, as on vllm-ascend's
``UniformTypeKVCacheSpecs.max_num_blocks_per_req`` (vLLM 0.27.1 -> 0.28.0), which its
maintainers kept.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

from patchkeeper.runtime.lookup.resolve import FOUND, resolve
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree

OLD = """class Spec:
    block_size = 16

    def max_blocks(self, max_len):
        return -(-max_len // self.block_size)


class UniformSpecs(Spec):
    def __init__(self, specs):
        self.specs = specs


class Outer:
    class Inner(Spec):
        pass


class Deep(Outer.Inner):
    pass


class Plain(object):
    pass
"""
NEW = """class Spec:
    block_size = 16

    def max_blocks(self, max_len):
        return -(-max_len // self.block_size)


class UniformSpecs(Spec):
    def __init__(self, specs):
        self.specs = specs

    def max_blocks(self, max_len):
        widths = {spec.max_blocks(max_len) for spec in self.specs}
        assert len(widths) == 1, "one width per group"
        return next(iter(widths))
"""
PATCH = """from fup.kv_spec import Spec, UniformSpecs

if UniformSpecs.max_blocks is Spec.max_blocks:

    def _uniform_max_blocks(self: UniformSpecs, max_len):
        \"\"\"Keep the inner specs' block-table width.\"\"\"
        widths = {spec.max_blocks(max_len) for spec in self.specs}
        assert len(widths) == 1, "one width per group"
        return next(iter(widths))

    UniformSpecs.max_blocks = (  # type: ignore[method-assign]
        _uniform_max_blocks
    )
"""


@pytest.fixture
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    releases = {"1.0": {"fup/kv_spec.py": OLD}, "2.0": {"fup/kv_spec.py": NEW}}
    plugin = {
        "fdev/patch/__init__.py": "from fdev.patch import patch_kv_spec  # noqa: F401\n",
        "fdev/patch/patch_kv_spec.py": PATCH,
    }
    return write_trees(tmp_path, monkeypatch, releases, "fdev", plugin)


def test_a_method_inherited_from_a_base_of_the_same_module_is_found(trees: Path) -> None:
    tree = UpstreamTree(trees / "fup-1.0", ("fup",))
    found = {
        target: (r.status, r.qualname, r.partial)
        for target in (
            "fup.kv_spec.UniformSpecs.max_blocks",
            "fup.kv_spec.UniformSpecs.block_size",
            "fup.kv_spec.Outer.Inner.max_blocks",
            "fup.kv_spec.Deep.max_blocks",
            "fup.kv_spec.Plain.max_blocks",
            "fup.kv_spec.UniformSpecs.width",
        )
        for r in [resolve(tree, target)]
    }
    assert found == {
        "fup.kv_spec.UniformSpecs.max_blocks": (FOUND, "Spec.max_blocks", ""),
        "fup.kv_spec.UniformSpecs.block_size": (FOUND, "Spec.block_size", ""),
        "fup.kv_spec.Outer.Inner.max_blocks": (FOUND, "Spec.max_blocks", ""),
        "fup.kv_spec.Deep.max_blocks": (FOUND, "Spec.max_blocks", ""),
        "fup.kv_spec.Plain.max_blocks": (FOUND, "Plain", "max_blocks"),
        "fup.kv_spec.UniformSpecs.width": (FOUND, "UniformSpecs", "width"),
    }


def test_a_guarded_fallback_of_an_inherited_method_is_not_new_upstream(trees: Path) -> None:
    result = audit_trees(trees, "fdev")
    facts = {
        a.entry.target: (a.old.qualname, a.old.partial, a.new.qualname, a.drift.decision)
        for a in result.entries
    }
    assert facts == {
        "fup.kv_spec.UniformSpecs.max_blocks": (
            "Spec.max_blocks",
            "",
            "UniformSpecs.max_blocks",
            "retain",
        ),
    }
