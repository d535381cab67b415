"""Plugin modules imported by a name computed at run time: reached, or *look*, never *remove*.

``oplug`` is written here in the shape of a plugin that serves its own models through
vLLM's model registry (vllm-omni): its ``vllm.general_plugins`` entry point registers each
architecture of a string table with ``ModelRegistry.register_model(arch,
f"oplug.models.{folder}.{relname}:{cls_name}")``, and its own registry builds
``_LazyRegisteredModel(module_name=f"oplug.models.{folder}.{relname}")`` from the same table:
vLLM imports the module by that name when the model is asked for. No import statement names
a model module. The upstream is a small ``vllm`` tree written here with the lazy registry
(the same at both releases, so every reached entry is *retain*).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import write_files
from patchkeeper.runtime.judge.runtime_audit import audit_runtime

UPSTREAM = {
    "vllm/__init__.py": "",
    "vllm/engine.py": "def step(x):\n    return x\n\n\ndef run(x):\n    return x\n",
    "vllm/model_executor/__init__.py": "",
    "vllm/model_executor/models/__init__.py": (
        "from vllm.model_executor.models.registry import ModelRegistry\n\n"
        '__all__ = ["ModelRegistry"]\n'
    ),
    "vllm/model_executor/models/llama.py": "class LlamaForCausalLM:\n    pass\n",
    "vllm/model_executor/models/registry.py": (
        "import importlib\n\n"
        '_VLLM_MODELS = {"LlamaForCausalLM": ("llama", "LlamaForCausalLM")}\n\n\n'
        "def _resolve_module_name(relname):\n"
        '    return f"vllm.model_executor.models.{relname}"\n\n\n'
        "class _LazyRegisteredModel:\n"
        "    def __init__(self, module_name, class_name):\n"
        "        self.module_name = module_name\n"
        "        self.class_name = class_name\n\n"
        "    def load_model_cls(self):\n"
        "        return getattr(importlib.import_module(self.module_name), self.class_name)\n\n\n"
        "class _ModelRegistry:\n"
        "    def __init__(self, models):\n"
        "        self.models = dict(models)\n\n"
        "    def register_model(self, arch, model_cls):\n"
        '        module_name, class_name = model_cls.split(":")\n'
        "        self.models[arch] = _LazyRegisteredModel(module_name, class_name)\n\n\n"
        "ModelRegistry = _ModelRegistry(\n"
        "    {\n"
        "        arch: _LazyRegisteredModel(_resolve_module_name(relname), cls_name)\n"
        "        for arch, (relname, cls_name) in _VLLM_MODELS.items()\n"
        "    }\n"
        ")\n"
    ),
}

PATCH_STEP = "import vllm.engine\n\n\ndef step(x):\n    return x\n\n\nvllm.engine.step = step\n"
PATCH_RUN = "import vllm.engine\n\n\ndef run(x):\n    return x\n\n\nvllm.engine.run = run\n"

OPLUG = {
    "pyproject.toml": (
        '[project]\nname = "oplug"\nversion = "1"\n\n'
        '[project.entry-points."vllm.general_plugins"]\n'
        'register_models = "oplug.register:register_models"\n'
    ),
    "oplug/__init__.py": "",
    "oplug/register.py": (
        "def register_models():\n"
        "    from vllm.model_executor.models import ModelRegistry\n\n"
        "    from oplug.models.registry import _OPLUG_MODELS\n\n"
        "    for arch, (folder, relname, cls_name) in _OPLUG_MODELS.items():\n"
        '        ModelRegistry.register_model(arch, f"oplug.models.{folder}.{relname}:{cls_name}")\n'
    ),
    "oplug/models/__init__.py": "",
    "oplug/models/registry.py": (
        "from vllm.model_executor.models.registry import _LazyRegisteredModel, _ModelRegistry\n\n"
        "_OPLUG_MODELS = {\n"
        '    "TalkerForGeneration": ("talker", "talker_model", "TalkerForGeneration"),\n'
        "}\n\n"
        "OplugModelRegistry = _ModelRegistry(\n"
        "    {\n"
        "        arch: _LazyRegisteredModel(\n"
        '            module_name=f"oplug.models.{folder}.{relname}", class_name=cls_name\n'
        "        )\n"
        "        for arch, (folder, relname, cls_name) in _OPLUG_MODELS.items()\n"
        "    }\n"
        ")\n"
    ),
    "oplug/models/talker/__init__.py": "",
    "oplug/models/talker/talker_model.py": (
        "from oplug.models.talker import audio_utils  # noqa: F401\n" + PATCH_STEP
    ),
    "oplug/models/talker/audio_utils.py": PATCH_RUN,
    # In no table of the plugin, but its name fits f"oplug.models.{folder}.{relname}": the
    # table register.py reads could hold it at run time.
    "oplug/models/vocoder/__init__.py": "",
    "oplug/models/vocoder/vocoder_model.py": (
        "from oplug import vocoder_common  # noqa: F401\n" + PATCH_STEP
    ),
    # Fits no computed name, imported only by the module above: it may run as well.
    "oplug/vocoder_common.py": PATCH_RUN,
    # Fits no computed name (one part below oplug.models) and nothing imports it.
    "oplug/models/unused.py": PATCH_RUN,
}


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """The two upstream releases (identical), and a private cache."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    return (
        str(write_files(tmp_path / "up-1.0", UPSTREAM)),
        str(write_files(tmp_path / "up-2.0", UPSTREAM)),
    )


def test_modules_named_by_a_computed_name_are_reached_or_looked_at(
    tmp_path: Path, upstream: tuple[str, str]
) -> None:
    plugin = write_files(tmp_path / "oplug", OPLUG)
    result = audit_runtime(None, old=upstream[0], new=upstream[1], plugin=plugin, package="oplug")
    assert [
        (a.entry.file, a.entry.target, a.entry.activation.status.value, a.drift.decision)
        for a in result.entries
        if a.entry.activation is not None
    ] == [
        ("oplug/models/talker/audio_utils.py", "vllm.engine.run", "conditional", "retain"),
        ("oplug/models/talker/talker_model.py", "vllm.engine.step", "conditional", "retain"),
        ("oplug/models/unused.py", "vllm.engine.run", "never-imported", "remove"),
        ("oplug/models/vocoder/vocoder_model.py", "vllm.engine.step", "never-imported", "look"),
        ("oplug/vocoder_common.py", "vllm.engine.run", "never-imported", "look"),
    ]
    talker = result.entries[1].entry.activation
    assert talker is not None
    assert talker.chain == (
        "entry point vllm.general_plugins:register_models = oplug.register:register_models "
        "(pyproject.toml)",
        # register.py builds the name from the table it imports from the registry module
        "computed oplug.models.talker.talker_model (oplug/register.py:7)",
    )
    assert [c.described() for c in talker.conditions] == [
        "computed-import f'oplug.models.{folder}.{relname}:{cls_name}' names it (imported "
        "when that name is asked for)"
    ]
    assert result.entries[3].drift.evidence[0] == (
        "not reached by an import the trees show, but it may be imported by a computed "
        'module name f"oplug.models.{}.{}" (oplug/register.py:7): the trees cannot '
        "tell which modules that name takes; find out whether it runs before removing it"
    )
    assert result.entries[4].drift.evidence[0] == (
        "not reached by an import the trees show, but it may be imported by a computed "
        'module name f"oplug.models.{}.{}" (oplug/register.py:7); import '
        "oplug.vocoder_common (oplug/models/vocoder/vocoder_model.py:1): the "
        "trees cannot tell which modules that name takes; find out whether it runs before "
        "removing it"
    )
    assert result.entries[2].drift.evidence[0] == (
        "never imported (no import of oplug.models.unused in the modules read): remove it, "
        "or re-enable the import"
    )
