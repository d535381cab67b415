"""Computed module names in their other spellings, tables read from another module, and
swaps through a name bound to an item of ``sys.modules``.

``fplug`` is written here in the shape of a plugin serving its own models through vLLM's
model registry (vllm-omni): its architecture table lives in a module of its own
(``fplug/models/tables.py``), imported by name where the names are built, and the module
names are built by ``+``, ``str.format`` and ``%`` rather than f-strings. Its ``patch.py``
sets functions on upstream modules through ``mod = sys.modules[m]`` (in a loop over a
module constant of module names, and once with a literal). The upstream is a small
``vllm`` tree with the lazy registry, the same at both releases, so every reached entry is
*retain*.
"""

from __future__ import annotations

from pathlib import Path

from plugin_trees import (
    ENGINE,
    MODELS_INIT,
    PATCH_RUN,
    PATCH_STEP,
    REGISTRY_CLASSES,
    TreeWriter,
    activation_decisions,
    pyproject,
    swaps,
)

from helpers import write_files
from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

UPSTREAM = {
    "vllm/__init__.py": "",
    "vllm/engine.py": ENGINE,
    "vllm/worker.py": "def execute(x):\n    return x\n",
    "vllm/model_executor/__init__.py": "",
    "vllm/model_executor/models/__init__.py": MODELS_INIT,
    "vllm/model_executor/models/registry.py": (
        "import importlib\n\n\n" + REGISTRY_CLASSES + "ModelRegistry = _ModelRegistry({})\n"
    ),
}

FPLUG = {
    "pyproject.toml": pyproject(
        "fplug",
        {"register_models": "fplug.register:register_models", "codecs": "fplug.codecs:load_codecs"},
    ),
    "fplug/__init__.py": "",
    "fplug/register.py": (
        "from fplug.models import registry  # noqa: F401\n\n\n"
        "def register_models():\n"
        "    from vllm.model_executor.models import ModelRegistry\n\n"
        "    from fplug.models.tables import _FPLUG_MODELS\n\n"
        "    for arch, (folder, relname, cls_name) in _FPLUG_MODELS.items():\n"
        "        ModelRegistry.register_model(\n"
        '            arch, "fplug.models." + folder + "." + relname + ":" + cls_name\n'
        "        )\n"
    ),
    "fplug/models/__init__.py": "",
    "fplug/models/tables.py": (
        "_FPLUG_MODELS = {\n"
        '    "TalkerForGeneration": ("talker", "talker_model", "TalkerForGeneration"),\n'
        "}\n"
        '_FPLUG_VOCODERS = {"Vocoder": ("vocoder", "vocoder_model", "Vocoder")}\n'
    ),
    "fplug/models/registry.py": (
        "from vllm.model_executor.models.registry import _LazyRegisteredModel, _ModelRegistry\n\n"
        "from .tables import _FPLUG_VOCODERS as _MODELS\n\n"
        "FplugModelRegistry = _ModelRegistry(\n"
        "    {\n"
        "        arch: _LazyRegisteredModel(\n"
        '            "fplug.models.{}.{}".format(folder, relname), cls_name\n'
        "        )\n"
        "        for arch, (folder, relname, cls_name) in _MODELS.items()\n"
        "    }\n"
        ")\n"
    ),
    "fplug/models/talker/__init__.py": "",
    "fplug/models/talker/talker_model.py": PATCH_STEP,
    "fplug/models/vocoder/__init__.py": "",
    "fplug/models/vocoder/vocoder_model.py": PATCH_STEP,
    # In no table, but its name fits the computed names: the trees cannot tell.
    "fplug/models/spare/__init__.py": "",
    "fplug/models/spare/spare_model.py": PATCH_STEP,
    "fplug/codecs/__init__.py": (
        "import importlib\n\n"
        "from fplug.codecs.names import CODECS\n\n\n"
        "def load_codecs():\n"
        "    for name in CODECS:\n"
        '        importlib.import_module("fplug.codecs.%s" % name)\n'
    ),
    "fplug/codecs/names.py": 'CODECS = ("wav",)\n',
    "fplug/codecs/wav.py": PATCH_RUN,
    # Fits no computed name and nothing imports it.
    "fplug/unused.py": PATCH_RUN,
}

ALIASES = (
    "import sys\n\n\n"
    "def step(x):\n    return x\n\n\n"
    '_MODULES = ("vllm.engine", "vllm.v1.engine.core")\n\n'
    "for _name in _MODULES:\n"
    "    _mod = sys.modules[_name]\n"
    "    _mod.step = step\n\n"
    'worker = sys.modules.get("vllm.worker")\n'
    'setattr(worker, "execute", step)\n'
    "worker.run = step\n"
    "worker = None\n"
    "worker.other = step\n"
    'own = sys.modules["fplug.patch"]\n'
    "own.step = step\n"
)


def test_names_built_by_sum_format_and_percent_from_another_modules_table(
    plugin_trees: TreeWriter,
) -> None:
    trees = plugin_trees.write("fplug", FPLUG, UPSTREAM)
    result = trees.audit()
    assert activation_decisions(result) == [
        ("fplug/codecs/wav.py", "vllm.engine.run", "conditional", "retain"),
        ("fplug/models/spare/spare_model.py", "vllm.engine.step", "never-imported", "look"),
        ("fplug/models/talker/talker_model.py", "vllm.engine.step", "conditional", "retain"),
        ("fplug/models/vocoder/vocoder_model.py", "vllm.engine.step", "conditional", "retain"),
        ("fplug/unused.py", "vllm.engine.run", "never-imported", "remove"),
    ]
    wav, talker, vocoder = (result.entries[i].entry.activation for i in (0, 2, 3))
    assert wav is not None and talker is not None and vocoder is not None
    assert wav.chain == (
        "entry point vllm.general_plugins:codecs = fplug.codecs:load_codecs (pyproject.toml)",
        "computed fplug.codecs.wav (fplug/codecs/__init__.py:8)",
    )
    assert [c.described() for c in wav.conditions] == [
        "computed-import 'fplug.codecs.%s' % name names it (imported when that name is asked for)"
    ]
    assert talker.chain == (
        "entry point vllm.general_plugins:register_models = fplug.register:register_models "
        "(pyproject.toml)",
        "computed fplug.models.talker.talker_model (fplug/register.py:11)",
    )
    assert vocoder.chain == (
        "entry point vllm.general_plugins:register_models = fplug.register:register_models "
        "(pyproject.toml)",
        "import fplug.models.registry (fplug/register.py:1)",
        "computed fplug.models.vocoder.vocoder_model (fplug/models/registry.py:8)",
    )
    assert [c.described() for c in vocoder.conditions] == [
        "computed-import 'fplug.models.{}.{}'.format(folder, relname) names it (imported "
        "when that name is asked for)"
    ]
    assert result.entries[1].drift.evidence[0] == (
        "not reached by an import the trees show, but it may be imported by a computed "
        'module name f"fplug.models.{}.{}" (fplug/register.py:11): the trees cannot '
        "tell which modules that name takes; find out whether it runs before removing it"
    )


def test_a_name_bound_to_an_item_of_sys_modules_names_that_module(tmp_path: Path) -> None:
    plugin = write_files(tmp_path / "fplug", {"fplug/__init__.py": "", "fplug/patch.py": ALIASES})
    inventory = take_inventory(None, plugin=plugin, package="fplug", patch_directory="fplug")
    assert swaps(inventory) == [
        (12, "vllm.engine.step", "assignment", "fplug.patch:step", "vllm.engine"),
        (12, "vllm.v1.engine.core.step", "assignment", "fplug.patch:step", "vllm.v1.engine.core"),
        (15, "vllm.worker.execute", "setattr", "fplug.patch:step", "vllm.worker"),
        # Bound to None below: no longer the module.
        (16, "vllm.worker.run", "assignment", "fplug.patch:step", "vllm.worker"),
    ]


# ``tplug`` keeps its module-name templates apart from the ``format`` that fills them (in the
# shape of vllm-mindspore's model registry: one template per backend, handed in a list to a
# function that formats each with the rows of that backend's table), and reads a table of
# codec names that a package re-exports from the module defining it.
TPLUG = {
    "pyproject.toml": pyproject(
        "tplug",
        {"register_models": "tplug.register:register_models", "codecs": "tplug.codecs:load_codecs"},
    ),
    "tplug/__init__.py": "",
    "tplug/register.py": (
        "from vllm.model_executor.models.registry import _LazyRegisteredModel\n\n"
        '_NATIVE_MODELS = {"LlamaForCausalLM": ("llama", "LlamaForCausalLM")}\n'
        '_ONE_MODELS = {"TalkerForGeneration": ("talker", "TalkerForGeneration")}\n\n\n'
        "def _register(backends, paths):\n"
        "    found = {}\n"
        "    for backend, model_dir in zip(backends, paths):\n"
        "        for arch, (relname, cls_name) in backend.items():\n"
        "            found[arch] = _LazyRegisteredModel(model_dir.format(relname), cls_name)\n"
        "    return found\n\n\n"
        "def register_models():\n"
        "    return _register(\n"
        '        [_NATIVE_MODELS, _ONE_MODELS], ["tplug.models.{}", "tplug.models.one.{}"]\n'
        "    )\n"
    ),
    "tplug/models/__init__.py": "",
    "tplug/models/llama.py": PATCH_STEP,
    "tplug/models/one/__init__.py": "",
    "tplug/models/one/talker.py": PATCH_STEP,
    "tplug/codecs/__init__.py": (
        "import importlib\n\n"
        "from tplug.names import CODECS\n\n\n"
        "def load_codecs():\n"
        "    for name in CODECS:\n"
        '        importlib.import_module(f"tplug.codecs.{name}")\n'
    ),
    "tplug/names/__init__.py": "from tplug.names.table import CODECS\n",
    "tplug/names/table.py": 'CODECS = ("wav",)\n',
    "tplug/codecs/wav.py": PATCH_RUN,
    # Fits no computed name and nothing imports it.
    "tplug/unused.py": PATCH_RUN,
}


def test_a_template_formatted_elsewhere_and_a_re_exported_table(plugin_trees: TreeWriter) -> None:
    trees = plugin_trees.write("tplug", TPLUG, UPSTREAM)
    result = trees.audit()
    assert [
        (
            a.entry.file,
            a.entry.activation.status.value,
            a.entry.activation.chain[-1:],
            [c.described() for c in a.entry.activation.conditions],
            a.drift.decision,
        )
        for a in result.entries
        if a.entry.activation is not None
    ] == [
        (
            "tplug/codecs/wav.py",
            "conditional",
            ("computed tplug.codecs.wav (tplug/codecs/__init__.py:8)",),
            [
                "computed-import f'tplug.codecs.{name}' names it (imported when that name is "
                "asked for)"
            ],
            "retain",
        ),
        (
            "tplug/models/llama.py",
            "conditional",
            ("computed tplug.models.llama (tplug/register.py:17)",),
            ["computed-import 'tplug.models.{}' names it (imported when that name is asked for)"],
            "retain",
        ),
        (
            "tplug/models/one/talker.py",
            "conditional",
            ("computed tplug.models.one.talker (tplug/register.py:17)",),
            [
                "computed-import 'tplug.models.one.{}' names it (imported when that name is "
                "asked for)"
            ],
            "retain",
        ),
        ("tplug/unused.py", "never-imported", (), [], "remove"),
    ]
