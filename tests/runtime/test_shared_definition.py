"""One wrapper set on an upstream function and on a module's import of it: what it must
change for one name, it changes for the other.

``splug`` wraps ``vllm.spec.utils.load_model`` (it reads the original, then sets its own
``_load_model``) and sets the same wrapper on ``vllm.spec.speculator.load_model``, the name
the speculator module imported (a module that binds the function by name at import time
keeps the original otherwise: vllm-ascend's ``load_dspark_model`` patch). The new release
drops the ``"has_own_embed"`` test from ``load_model``, a string the wrapper names: the
wrapper is an *update* on ``vllm.spec.utils``. The speculator's name is bound to that same
definition in both releases, so the same wrapper set there wraps that name's original
too: a *wrapper* there as well, with the same change (*update*), where it was read as a
plain assignment (*retain*). ``vllm.spec.utils.warm``,
another function the plugin replaces by a copy of its own, changed upstream in its body
alone: another replacement, it keeps its own *retain*.
"""

from __future__ import annotations

from plugin_trees import TreeWriter, patch_plugin

OLD = """def _share(model, flag):
    return getattr(model, flag, False)


def warm(config):
    return config


def load_model(target, config):
    model = object()
    if _share(target, "has_own_embed"):
        return target
    return model
"""

NEW = """def warm(config):
    return config or None


def load_model(target, config):
    model = object()
    return model if config else target
"""

SPECULATOR = """from vllm.spec.utils import load_model


def propose(target, config):
    return load_model(target, config)
"""

PATCH = """import vllm.spec.speculator as speculator_module
import vllm.spec.utils as spec_utils

_original_load_model = spec_utils.load_model


def _load_model(target, config):
    if getattr(target, "has_own_embed", False):
        config = None
    return _original_load_model(target, config)


def warm(config):
    return config


spec_utils.load_model = _load_model
speculator_module.load_model = _load_model
spec_utils.warm = warm
"""


def test_a_wrapper_set_on_an_import_of_its_target_follows_its_update(
    plugin_trees: TreeWriter,
) -> None:
    upstream = {"vllm/__init__.py": "", "vllm/spec/__init__.py": ""}
    result = plugin_trees.write(
        "splug",
        patch_plugin("splug", {"p_spec": PATCH}, entry="s"),
        {**upstream, "vllm/spec/utils.py": OLD, "vllm/spec/speculator.py": SPECULATOR},
        {**upstream, "vllm/spec/utils.py": NEW, "vllm/spec/speculator.py": SPECULATOR},
    ).audit()
    assert [(a.entry.target, a.drift.decision, a.drift.evidence[0]) for a in result.entries] == [
        (
            "vllm.spec.utils.load_model",
            "update",
            "upstream vllm.spec.utils.load_model changed (body) and the wrapper, which calls "
            "the original, names 'has_own_embed', a string the old upstream body held and the "
            "new one no longer does: the wrapper works on a value upstream stopped producing "
            "or passing there; read it against upstream's change",
        ),
        (
            "vllm.spec.speculator.load_model",
            "update",
            "upstream vllm.spec.utils.load_model changed (body) and the wrapper, which calls "
            "the original, names 'has_own_embed', a string the old upstream body held and the "
            "new one no longer does: the wrapper works on a value upstream stopped producing "
            "or passing there; read it against upstream's change",
        ),
        (
            "vllm.spec.utils.warm",
            "retain",
            "upstream changed only the body of the function the plugin replaces by its own "
            "copy (signature and decorators are the same: its callers' calls still bind to "
            "the copy, which runs as the plugin wrote it); merge upstream's change into it "
            "only if the plugin needs it",
        ),
    ]
