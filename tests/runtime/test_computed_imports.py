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

from plugin_trees import (
    ENGINE,
    MODELS_INIT,
    PATCH_RUN,
    PATCH_STEP,
    REGISTRY_CLASSES,
    TreeWriter,
    activation_decisions,
    pyproject,
)

UPSTREAM = {
    "vllm/__init__.py": "",
    "vllm/engine.py": ENGINE,
    "vllm/model_executor/__init__.py": "",
    "vllm/model_executor/models/__init__.py": MODELS_INIT,
    "vllm/model_executor/models/llama.py": "class LlamaForCausalLM:\n    pass\n",
    "vllm/model_executor/models/registry.py": (
        "import importlib\n\n"
        '_VLLM_MODELS = {"LlamaForCausalLM": ("llama", "LlamaForCausalLM")}\n\n\n'
        "def _resolve_module_name(relname):\n"
        '    return f"vllm.model_executor.models.{relname}"\n\n\n'
    )
    + REGISTRY_CLASSES
    + (
        "ModelRegistry = _ModelRegistry(\n"
        "    {\n"
        "        arch: _LazyRegisteredModel(_resolve_module_name(relname), cls_name)\n"
        "        for arch, (relname, cls_name) in _VLLM_MODELS.items()\n"
        "    }\n"
        ")\n"
    ),
}

OPLUG = {
    "pyproject.toml": pyproject("oplug", {"register_models": "oplug.register:register_models"}),
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


def test_modules_named_by_a_computed_name_are_reached_or_looked_at(
    plugin_trees: TreeWriter,
) -> None:
    trees = plugin_trees.write("oplug", OPLUG, UPSTREAM)
    result = trees.audit()
    assert activation_decisions(result) == [
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
