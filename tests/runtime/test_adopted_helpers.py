"""A helper of the plugin's that the new upstream defines and calls itself: upstream took
the patch's change in (*remove*).

``aplug`` wraps three functions of upstream's ``vllm.kv`` module, each adding behaviour it
keeps in a helper of its own (vllm-ascend wrapped ``get_kv_cache_groups`` to fall back to
``_try_get_full_allocation_fallback_groups`` when the page sizes could not be unified, and
vLLM 0.27.1 added that very function to ``kv_cache_utils`` and calls it there):

- ``get_groups`` falls back to ``_try_full_allocation_groups``: the new release defines
  that function in ``vllm.kv`` and its ``get_groups`` calls it (*remove*);
- ``resolve_sizes`` pads with ``_pad_sizes``: the new release adds and calls a
  ``_pad_sizes`` too, but a two-word name says nothing of whose change it is (*retain*,
  the wrapper calls the original);
- ``make_config`` checks with ``_check_config_block_sizes``: the new release defines the
  name but its ``make_config`` does not call it (*retain*).
"""

from __future__ import annotations

from plugin_trees import TreeWriter, patch_plugin

from patchkeeper.runtime.judge.adopted_helpers import called_names, own_helpers, specific
from patchkeeper.runtime.judge.drift import Code

KV_OLD = """def unify(specs):
    if len(set(specs)) > 1:
        raise NotImplementedError("page sizes differ")
    return specs


def get_groups(config, specs):
    specs = unify(specs)
    return [specs]


def resolve_sizes(config):
    return config.sizes


def make_config(config, groups):
    return {"groups": groups}
"""

KV_NEW = """def unify(specs):
    if len(set(specs)) > 1:
        raise NotImplementedError("page sizes differ")
    return specs


def _try_full_allocation_groups(specs):
    if not specs:
        return None
    return [sorted(specs)]


def _pad_sizes(sizes):
    return [s + 1 for s in sizes]


def _check_config_block_sizes(config):
    return config


def get_groups(config, specs):
    try:
        specs = unify(specs)
    except NotImplementedError:
        groups = _try_full_allocation_groups(specs)
        if groups is None:
            raise
        return groups
    return [specs]


def resolve_sizes(config):
    return _pad_sizes(config.sizes)


def make_config(config, groups):
    return {"groups": groups, "count": len(groups)}
"""

PATCH = """import vllm.kv
from vllm.kv import unify

_orig_get_groups = vllm.kv.get_groups
_orig_resolve_sizes = vllm.kv.resolve_sizes
_orig_make_config = vllm.kv.make_config


def _try_full_allocation_groups(specs):
    if not specs:
        return None
    return [list(specs)]


def _pad_sizes(sizes):
    return [s + 2 for s in sizes]


def _check_config_block_sizes(config):
    return config


def get_groups(config, specs):
    try:
        return _orig_get_groups(config, specs)
    except NotImplementedError:
        groups = _try_full_allocation_groups(specs)
        if groups is None:
            raise
        return groups


def resolve_sizes(config):
    return _pad_sizes(_orig_resolve_sizes(config))


def make_config(config, groups):
    _check_config_block_sizes(config)
    return _orig_make_config(config, groups)


vllm.kv.get_groups = get_groups
vllm.kv.resolve_sizes = resolve_sizes
vllm.kv.make_config = make_config
"""

PLUGIN = patch_plugin("aplug", {"p_kv": PATCH}, entry="a")


def test_a_helper_upstream_now_defines_and_calls_makes_the_patch_go(
    plugin_trees: TreeWriter,
) -> None:
    old = {"vllm/__init__.py": "", "vllm/kv.py": KV_OLD}
    new = {"vllm/__init__.py": "", "vllm/kv.py": KV_NEW}
    result = plugin_trees.write("aplug", PLUGIN, old, new).audit()
    assert [(a.entry.target, a.drift.decision, a.drift.evidence[0]) for a in result.entries] == [
        (
            "vllm.kv.get_groups",
            "remove",
            "the new upstream vllm.kv.get_groups calls _try_full_allocation_groups(), which "
            "the replacement calls as the plugin's own helper and which vllm.kv defines now "
            "(the old release had neither the call nor the name): upstream took the patch's "
            "change in; remove the patch once upstream's version is checked to cover it",
        ),
        (
            "vllm.kv.resolve_sizes",
            "retain",
            "upstream vllm.kv.resolve_sizes changed (body) but the wrapper calls the "
            "original and the signature is the same",
        ),
        (
            "vllm.kv.make_config",
            "retain",
            "upstream vllm.kv.make_config changed (body) but the wrapper calls the original "
            "and the signature is the same",
        ),
    ]


def _code(text: str, imports: tuple[tuple[str, str], ...] = ()) -> Code:
    return Code("p.py", 1, tuple(text.splitlines(True)), imports=imports)


def test_the_names_a_replacement_calls_as_its_own_helpers() -> None:
    mine = _code(
        "def run(x):\n"
        "    _fix_the_block_sizes(x)\n"
        "    _imported_block_helper(x)\n"
        "    self._method_block_helper(x)\n"
        "    _short(x)\n"
        "    return isinstance(x, int)\n",
        imports=(("_imported_block_helper", "vllm.other"),),
    )
    assert called_names(mine.parsed) == frozenset(
        {"_fix_the_block_sizes", "_imported_block_helper", "_short", "isinstance"}
    )
    assert own_helpers(mine) == frozenset({"_fix_the_block_sizes"})
    assert [specific(n) for n in ("_a_b_c", "get_groups", "__x__y")] == [True, False, False]


def test_a_replacement_that_is_not_a_function_has_no_helpers() -> None:
    mine = _code("class Runner:\n    def run(self):\n        _fix_the_block_sizes(self)\n")
    assert own_helpers(mine) == frozenset()
