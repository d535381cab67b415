"""A wrapper installed on two upstream modules (``orig = arg_utils.f``, a nested ``def f``
that calls ``orig``, then ``arg_utils.f = f`` and ``config.f = f``) wraps both targets'
original when ``arg_utils`` imports ``f`` from ``config``: a *wrapper* on both, not a copy
of ``config.f``. A second target whose original is another function keeps its kind; ``setattr`` is read
the same way. The
plugin and the upstream releases are written by the test."""

from __future__ import annotations

from plugin_trees import TreeWriter, pyproject

PLUGIN = """from functools import wraps

import vllm.engine.arg_utils as arg_utils_module
import vllm.transformers_utils.config as config_module
from vllm.engine import llm


def _patch_probe():
    original = arg_utils_module.probe

    @wraps(original)
    def probe(model, *args, **kwargs):
        if model.endswith(".gguf"):
            return model, None
        return original(model, *args, **kwargs)

    arg_utils_module.probe = probe
    config_module.probe = probe
    config_module.other = probe
    setattr(llm, "probe", probe)


def register():
    _patch_probe()
"""

CONFIG = '''def probe(model, *args, **kwargs):
    """Read the model's speculative settings."""
    settings = {"model": model}
    settings.update(kwargs)
    return model, settings


def other(model):
    return model
'''

ARG_UTILS = """from vllm.transformers_utils.config import probe


def create(model):
    return probe(model)
"""

NEW_CONFIG = CONFIG.replace('settings = {"model": model}', 'settings = {"model": model, "v": 2}')

UPSTREAM = {
    "vllm/__init__.py": "",
    "vllm/engine/__init__.py": "",
    "vllm/engine/arg_utils.py": ARG_UTILS,
    "vllm/engine/llm.py": "from vllm.transformers_utils.config import probe as probe\n",
    "vllm/transformers_utils/__init__.py": "",
}


def test_a_wrapper_installed_on_two_modules(plugin_trees: TreeWriter) -> None:
    trees = plugin_trees.write(
        "splug",
        {
            "pyproject.toml": pyproject("splug", {"s": "splug:register"}),
            "splug/__init__.py": PLUGIN,
        },
        {**UPSTREAM, "vllm/transformers_utils/config.py": CONFIG},
        {**UPSTREAM, "vllm/transformers_utils/config.py": NEW_CONFIG},
    )
    result = trees.audit()
    assert [
        (a.entry.line, a.entry.target, a.entry.mechanism.value, a.drift.decision)
        for a in result.entries
    ] == [
        (17, "vllm.engine.arg_utils.probe", "wrapper", "retain"),
        (18, "vllm.transformers_utils.config.probe", "wrapper", "retain"),
        (19, "vllm.transformers_utils.config.other", "assignment", "retain"),
        (20, "vllm.engine.llm.probe", "wrapper", "retain"),
    ]
    assert result.entries[1].drift.evidence == (
        "upstream vllm.transformers_utils.config.probe changed (body) but the wrapper calls "
        "the original and the signature is the same",
    )
