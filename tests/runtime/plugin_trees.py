"""A small plugin project and the two upstream releases it is audited against, written by a
test.

The runtime tests that audit or inventory a plugin of their own take the ``plugin_trees``
fixture (``tests/runtime/conftest.py``): a :class:`TreeWriter` that writes the plugin's
files under ``tmp_path/<package>`` and the upstream releases as ``tmp_path/up-1.0`` and
``tmp_path/up-2.0``, with a private cache. Most plugins are the shape :func:`patch_plugin`
builds: a ``pyproject.toml`` declaring one entry point (:func:`pyproject`), a ``register()``
that imports the patch module, and a ``patch`` package of patch modules.

Importable from the runtime tests as ``from plugin_trees import patch_plugin, pyproject``
(pytest puts the test's own folder first on the import path).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from helpers import write_files
from patchkeeper.config import Config, load_config
from patchkeeper.runtime.inventory.runtime_inventory import take_inventory
from patchkeeper.runtime.judge.runtime_audit import RuntimeAudit, audit_runtime
from patchkeeper.runtime.model import (
    Activation,
    ActivationStatus,
    Condition,
    Inventory,
    Mechanism,
    PatchEntry,
)

#: ``vllm/engine.py`` of the made-up upstream: the two functions most patches replace.
ENGINE = "def step(x):\n    return x\n\n\ndef run(x):\n    return x\n"

#: A patch module that replaces ``vllm.engine.step`` by its own ``step``.
PATCH_STEP = "import vllm.engine\n\n\ndef step(x):\n    return x\n\n\nvllm.engine.step = step\n"

#: A patch module that replaces ``vllm.engine.run`` by its own ``run``.
PATCH_RUN = "import vllm.engine\n\n\ndef run(x):\n    return x\n\n\nvllm.engine.run = run\n"

#: ``vllm/model_executor/models/__init__.py`` of the made-up upstream: it hands the model
#: registry on.
MODELS_INIT = (
    'from vllm.model_executor.models.registry import ModelRegistry\n\n__all__ = ["ModelRegistry"]\n'
)

#: The two classes of vLLM's lazy model registry, as the made-up upstream's
#: ``vllm/model_executor/models/registry.py`` defines them after its imports (it imports
#: ``importlib``) and before it builds its ``ModelRegistry``.
REGISTRY_CLASSES = (
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
)


def pyproject(
    package: str,
    entry_points: dict[str, str],
    *,
    group: str = "vllm.general_plugins",
    version: str = "1",
    upstream: str = "",
) -> str:
    """A plugin project's ``pyproject.toml``: its name ``package`` and ``version``, and
    ``entry_points`` (entry name -> ``module:function``) in the entry point ``group``; with
    ``upstream``, the configuration of a plugin of that upstream package (its runtime
    package ``package``, its entry point ``group``)."""
    points = "".join(f'{name} = "{target}"\n' for name, target in entry_points.items())
    text = (
        f'[project]\nname = "{package}"\nversion = "{version}"\n\n'
        f'[project.entry-points."{group}"]\n{points}'
    )
    if not upstream:
        return text
    return (
        f'{text}\n[tool.patchkeeper]\nupstream = "{upstream}"\n\n'
        f'[tool.patchkeeper.runtime]\npackage = "{package}"\n'
        f'entry-point-groups = ["{group}"]\nupstream-packages = ["{upstream}"]\n'
    )


def patch_plugin(
    package: str,
    patches: dict[str, str],
    *,
    entry: str,
    group: str = "vllm.general_plugins",
    register: str = "",
    version: str = "1",
    upstream: str = "",
) -> dict[str, str]:
    """The files of a plugin project (relative path -> text): :func:`pyproject` (``version``,
    ``upstream``) with the one entry point ``entry = "<package>:register"`` in ``group``;
    ``<package>/__init__.py``,
    ``register`` or else a ``register()`` that imports the first of ``patches``; an empty
    ``<package>/patch/__init__.py``; and each of ``patches`` (module name -> text) as
    ``<package>/patch/<name>.py``."""
    first = next(iter(patches))
    return {
        "pyproject.toml": pyproject(
            package,
            {entry: f"{package}:register"},
            group=group,
            version=version,
            upstream=upstream,
        ),
        f"{package}/__init__.py": register
        or f"def register():\n    from {package}.patch import {first}  # noqa: F401\n",
        f"{package}/patch/__init__.py": "",
        **{f"{package}/patch/{name}.py": text for name, text in patches.items()},
    }


def mup_plugin(files: dict[str, str], imports: str = "mplug.patch") -> dict[str, str]:
    """The files of the plugin ``mplug`` 0.1 of the made-up upstream ``mup`` (relative path ->
    text): its ``pyproject.toml`` (:func:`pyproject`: the entry point ``mplug =
    "mplug:register"`` in the group ``mup.plugins``, configured for the upstream ``mup``), a
    ``mplug/__init__.py`` whose ``register()`` imports the module ``imports``, and ``files``."""
    return {
        "pyproject.toml": pyproject(
            "mplug",
            {"mplug": "mplug:register"},
            group="mup.plugins",
            version="0.1",
            upstream="mup",
        ),
        "mplug/__init__.py": f"def register():\n    import {imports}  # noqa: F401\n",
        **files,
    }


def audit_fixture(trees: Path, plugin: str, upstream: str) -> RuntimeAudit:
    """The runtime audit of the plugin project ``trees/<plugin>``, with its configuration,
    from ``trees/<upstream>-1.0`` to ``trees/<upstream>-2.0``: a fixture copied under
    ``trees`` (``runtime_trees / NAME``) or trees a test wrote there."""
    return audit_runtime(
        load_config(trees / plugin / "pyproject.toml"),
        old=str(trees / f"{upstream}-1.0"),
        new=str(trees / f"{upstream}-2.0"),
    )


def activation_decisions(result: RuntimeAudit) -> list[tuple[str, str, str, str]]:
    """``(file, target, activation status, decision)`` of each audited entry whose activation
    the inventory traced, in the audit's order."""
    return [
        (a.entry.file, a.entry.target, a.entry.activation.status.value, a.drift.decision)
        for a in result.entries
        if a.entry.activation is not None
    ]


def activation_conditions(
    inventory: Inventory,
) -> list[tuple[str, str, list[tuple[str, str, int]]]]:
    """``(target, activation status, [(kind, text, line) of each condition])`` of each entry
    whose activation the inventory traced, in its order."""
    return [
        (
            e.target,
            e.activation.status.value,
            [(c.kind, c.text, c.line) for c in e.activation.conditions],
        )
        for e in inventory.entries
        if e.activation
    ]


def swaps(inventory: Inventory) -> list[tuple[int, str, str, str, str]]:
    """``(line, target, mechanism, replacement, module hint)`` of each entry of ``inventory``,
    in its order."""
    return [
        (e.line, e.target, e.mechanism.value, e.replacement, e.module_hint)
        for e in inventory.entries
    ]


def findings(inventory: Inventory) -> list[tuple[str, int, str]]:
    """``(code, line, message)`` of each finding of ``inventory`` but ``header-missing`` (a
    made-up patch file has no header), in its order."""
    return [(f.code, f.line, f.message) for f in inventory.findings if f.code != "header-missing"]


def uncompared_loop_swap(line: int, name: str) -> tuple[str, int, str]:
    """The finding of a loop over ``sys.modules`` at ``line`` that sets ``name``
    (``module.NAME``) in every module that has it, where no test of the loop compares it with
    an upstream object: :func:`findings`' form."""
    return (
        "setattr-name",
        line,
        f"{name} is set in every module of a loop over sys.modules that has it, and no test "
        f"of the loop compares it with an upstream object: that patch is not listed; compare "
        f"{name} with the original it replaces (== or is)",
    )


@dataclass(frozen=True)
class Trees:
    """What :meth:`TreeWriter.write` wrote: the plugin project's folder, its package, and the
    two upstream releases' folders (``""`` where none was written)."""

    plugin: Path
    package: str
    old: str = ""
    new: str = ""

    def audit(self) -> RuntimeAudit:
        """The runtime audit of the plugin from the old release to the new one, the plugin
        and its package given as options (no configuration)."""
        return audit_runtime(
            None, old=self.old, new=self.new, plugin=self.plugin, package=self.package
        )

    def inventory(self) -> Inventory:
        """The plugin's inventory, the plugin and its package given as options."""
        return take_inventory(None, plugin=self.plugin, package=self.package)

    def config(self) -> Config:
        """The plugin project's configuration, read from its ``pyproject.toml``."""
        return load_config(self.plugin / "pyproject.toml")


@dataclass(frozen=True)
class TreeWriter:
    """Writes plugin projects and upstream releases under ``root`` (a test's ``tmp_path``,
    whose ``cache`` folder the ``plugin_trees`` fixture makes the private cache)."""

    root: Path

    def write(
        self,
        package: str,
        plugin: dict[str, str],
        old: dict[str, str] | None = None,
        new: dict[str, str] | None = None,
    ) -> Trees:
        """``plugin`` (relative path -> text) under ``root/<package>``; with ``old``, the
        releases ``root/up-1.0`` (``old``) and ``root/up-2.0`` (``new``, or ``old`` again
        when ``new`` is ``None``: an upstream the same at both releases)."""
        written = write_files(self.root / package, plugin)
        if old is None:
            return Trees(written, package)
        return Trees(
            written,
            package,
            str(write_files(self.root / "up-1.0", old)),
            str(write_files(self.root / "up-2.0", old if new is None else new)),
        )


def conditional_entry(target: str, *conditions: Condition) -> PatchEntry:
    """A module-level assignment of ``target`` in the plugin file ``p.py`` (module ``p``,
    line 9), reached only under ``conditions``."""
    return PatchEntry(
        file="p.py",
        line=9,
        module="p",
        scope="<module>",
        target=target,
        mechanism=Mechanism.ASSIGNMENT,
        activation=Activation(ActivationStatus.CONDITIONAL, conditions=conditions),
    )
