"""A patch marked as a backport whose own statement the new upstream now runs: the
backported change landed (*remove*).

``bplug`` wraps two callbacks upstream registers by decorator in ``vllm.spec.algos``
(vllm-ascend wrapped vLLM's ``update_dspark`` to keep the checkpoint's
``sample_from_anchor`` field, saying ``# Backport vLLM #48639`` above the patch, and the
next vLLM release sets that field itself):

- ``sparkle``: the comment above the patch says it is a backport, and the new upstream
  ``update_sparkle`` sets ``sample_from_anchor`` as the wrapper does (*remove*);
- ``glimmer``: the new upstream ``update_glimmer`` sets ``glimmer_depth`` as the wrapper
  does, but nothing says the patch is a backport: the plugin may add it for reasons of its
  own (*retain*, the key upstream registered already);
- ``shimmer``: said to be a backport, but the new upstream runs none of the wrapper's
  statements (*retain*).
"""

from __future__ import annotations

from plugin_trees import TreeWriter, patch_plugin

from patchkeeper.runtime.judge.backport_landed import introduction, landed_statements
from patchkeeper.runtime.judge.drift import Code

REGISTER = """SUPPORTED_TYPES = {}


def register_speculator(name):
    def decorator(fn):
        SUPPORTED_TYPES[name] = fn
        return fn

    return decorator

"""

ALGOS_OLD = (
    REGISTER
    + """
@register_speculator("sparkle")
def update_sparkle(config_dict, pre_trained_config):
    pre_trained_config["architectures"] = ["SparkleModel"]
    pre_trained_config["bonus_anchor"] = True


@register_speculator("glimmer")
def update_glimmer(config_dict, pre_trained_config):
    pre_trained_config["architectures"] = ["GlimmerModel"]


@register_speculator("shimmer")
def update_shimmer(config_dict, pre_trained_config):
    pre_trained_config["architectures"] = ["ShimmerModel"]
"""
)

ALGOS_NEW = (
    REGISTER
    + """
@register_speculator("sparkle")
def update_sparkle(config_dict, pre_trained_config):
    pre_trained_config["architectures"] = ["SparkleModel"]
    pre_trained_config["sample_from_anchor"] = config_dict.get(
        "sample_from_anchor", False
    )


@register_speculator("glimmer")
def update_glimmer(config_dict, pre_trained_config):
    pre_trained_config["architectures"] = ["GlimmerModel"]
    pre_trained_config["glimmer_depth"] = config_dict.get("glimmer_depth", 4)


@register_speculator("shimmer")
def update_shimmer(config_dict, pre_trained_config):
    pre_trained_config["architectures"] = ["ShimmerModelV2"]
"""
)

PATCH = """# Speculator config fixes for bplug.
from vllm.spec import algos

# Backport vLLM #48639: the old release drops the checkpoint's
# sample_from_anchor field.
_orig_update_sparkle = algos.SUPPORTED_TYPES["sparkle"]


def _update_sparkle(config_dict, pre_trained_config):
    _orig_update_sparkle(config_dict, pre_trained_config)
    pre_trained_config["sample_from_anchor"] = config_dict.get("sample_from_anchor", False)


algos.SUPPORTED_TYPES["sparkle"] = _update_sparkle

_orig_update_glimmer = algos.SUPPORTED_TYPES["glimmer"]


def _update_glimmer(config_dict, pre_trained_config):
    _orig_update_glimmer(config_dict, pre_trained_config)
    pre_trained_config["glimmer_depth"] = config_dict.get("glimmer_depth", 4)


algos.SUPPORTED_TYPES["glimmer"] = _update_glimmer

# Backport vLLM #50112: shimmer drafts need the mask token.
_orig_update_shimmer = algos.SUPPORTED_TYPES["shimmer"]


def _update_shimmer(config_dict, pre_trained_config):
    _orig_update_shimmer(config_dict, pre_trained_config)
    pre_trained_config["mask_token_id"] = config_dict.get("mask_token_id", 0)


algos.SUPPORTED_TYPES["shimmer"] = _update_shimmer
"""

PLUGIN = patch_plugin("bplug", {"p_spec": PATCH}, entry="a")

OLD_REASON = (
    "the old upstream vllm.spec.algos.SUPPORTED_TYPES had the key '{key}' too (registered "
    "by @register_speculator('{key}') at vllm/spec/algos.py:{line}): the plugin overrides "
    "upstream's value on purpose"
)


def test_a_backport_whose_statement_upstream_now_runs_goes(plugin_trees: TreeWriter) -> None:
    spec = {"vllm/spec/__init__.py": ""}
    old = {"vllm/__init__.py": "", **spec, "vllm/spec/algos.py": ALGOS_OLD}
    new = {"vllm/__init__.py": "", **spec, "vllm/spec/algos.py": ALGOS_NEW}
    result = plugin_trees.write("bplug", PLUGIN, old, new).audit()
    assert [(a.entry.key, a.drift.decision, a.drift.evidence[0]) for a in result.entries] == [
        (
            "'sparkle'",
            "remove",
            "the patch says it is a backport, and the new upstream "
            "vllm.spec.algos.update_sparkle runs its statement "
            "`pre_trained_config['sample_from_anchor'] = config_dict.get('sample_from_anchor', "
            "False)`, which the old release did not: the backported change has landed; "
            "remove the patch once upstream's version is checked to cover the rest",
        ),
        ("'glimmer'", "retain", OLD_REASON.format(key="glimmer", line=18)),
        ("'shimmer'", "retain", OLD_REASON.format(key="shimmer", line=23)),
    ]


def _code(text: str) -> Code:
    return Code("p.py", 1, tuple(text.splitlines(True)))


def test_only_a_statement_large_enough_new_upstream_counts() -> None:
    mine = _code(
        "def run(cfg, d):\n    orig(cfg, d)\n    cfg['depth'] = d.get('depth', 4)\n    return cfg\n"
    )
    old = _code("def run(cfg, d):\n    return cfg\n")
    new = _code("def run(cfg, d):\n    cfg['depth'] = d.get('depth', 4)\n    return cfg\n")
    assert landed_statements(mine, old, new) == ("cfg['depth'] = d.get('depth', 4)",)
    assert landed_statements(mine, new, new) == ()


def test_the_comment_above_a_replacement_reads_past_saved_originals() -> None:
    lines = PATCH.splitlines()
    start = lines.index("def _update_sparkle(config_dict, pre_trained_config):") + 1
    assert introduction(lines, start) == (
        "Backport vLLM #48639: the old release drops the checkpoint's\nsample_from_anchor field."
    )
    glimmer = lines.index("def _update_glimmer(config_dict, pre_trained_config):") + 1
    assert introduction(lines, glimmer) == ""
