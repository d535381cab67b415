"""A registry key the new upstream added is *remove* only when upstream registers the
plugin's own value under it: upstream registering a value of its own under the key the
plugin fills (``MODEL_ARCH_CONFIG_CONVERTORS["deepseek_v4"]``, where the plugin registers
its ``AscendDeepseekV4Convertor`` and the next release registers upstream's
``DeepseekV4Convertor``) leaves the plugin's registration replacing upstream's: *retain*.
A value the audit cannot read is *look*, never a guessed *remove*. The keys a registry has
are read from its parse: the old release's registry naming the keys in a comment does not
have them.

The shape of a vLLM plugin that registers a model-config convertor from a function its
patch module calls at import; the plugin and both upstream releases are written by this
test."""

from __future__ import annotations

from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

OLD_CONVERTORS = """class ConvertorBase:
    def __init__(self, hf_config):
        self.hf_config = hf_config


class LlamaConvertor(ConvertorBase):
    pass


CONVERTORS = {
    "llama": LlamaConvertor,
    # "deepseek_v4" and "qwen_vl" are registered by the next release
}
"""
NEW_CONVERTORS = """class ConvertorBase:
    def __init__(self, hf_config):
        self.hf_config = hf_config


class LlamaConvertor(ConvertorBase):
    pass


class DeepseekV4Convertor(ConvertorBase):
    pass


CONVERTORS = {
    "llama": LlamaConvertor,
    "deepseek_v4": DeepseekV4Convertor,
    "qwen_vl": ("fup.qwen", "QwenVLConvertor"),
    "glm": make_glm(),
}
"""
#: One registration per form: the plugin's own class over upstream's new value, the very
#: class upstream now registers (a registration ahead of upstream), and a name it imports.
PATCH = """from fup.convertors import CONVERTORS, ConvertorBase

_REGISTERED = False


def register_convertors():
    global _REGISTERED
    if _REGISTERED:
        return

    class AscendDeepseekV4Convertor(ConvertorBase):
        def __init__(self, hf_config):
            hf_config.architectures = ["DeepseekV4ForConditionalGeneration"]
            super().__init__(hf_config)

    class QwenVLConvertor(ConvertorBase):
        pass

    CONVERTORS["deepseek_v4"] = AscendDeepseekV4Convertor
    CONVERTORS["qwen_vl"] = QwenVLConvertor
    CONVERTORS["glm"] = ConvertorBase
    _REGISTERED = True


register_convertors()
"""


@pytest.fixture
def decisions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[tuple[str, str | None], tuple[str, str]]:
    releases = {
        "1.0": {"fup/convertors.py": OLD_CONVERTORS},
        "2.0": {"fup/convertors.py": NEW_CONVERTORS},
    }
    files = {
        "kplug/patch/__init__.py": "from kplug.patch import patch_convertors  # noqa: F401\n",
        "kplug/patch/patch_convertors.py": PATCH,
    }
    trees = write_trees(tmp_path, monkeypatch, releases, "kplug", files)
    return {
        (a.entry.target, a.entry.key): (a.drift.decision, a.drift.evidence[0])
        for a in audit_trees(trees, "kplug").entries
    }


def test_a_key_upstream_added_is_removed_only_for_the_plugins_own_value(decisions) -> None:
    assert decisions == {
        ("fup.convertors.CONVERTORS", "'deepseek_v4'"): (
            "retain",
            "the new upstream fup.convertors.CONVERTORS now registers DeepseekV4Convertor "
            "under the key 'deepseek_v4', not the plugin's AscendDeepseekV4Convertor: the "
            "plugin's registration replaces upstream's value; keep it while the plugin's own "
            "value is wanted",
        ),
        ("fup.convertors.CONVERTORS", "'qwen_vl'"): (
            "remove",
            "the new upstream fup.convertors.CONVERTORS already has the key 'qwen_vl'",
        ),
        # the plugin's value is a name it imports: the scan does not name it
        ("fup.convertors.CONVERTORS", "'glm'"): (
            "look",
            "the new upstream fup.convertors.CONVERTORS now has the key 'glm', but which value "
            "it registers there, or which one the plugin registers, cannot be read: find out "
            "whether upstream's value does what the plugin's does before removing it",
        ),
    }
