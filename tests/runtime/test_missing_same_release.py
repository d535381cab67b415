"""Targets at a path neither upstream release defines, in the shape of vllm-mindspore
0.5.0's ``__init__.py`` (names it assigns into modules of vLLM 0.11.0 that no longer bind
them): a name the new release still defines under its own name elsewhere is not taken to be
renamed to another module's name with an underscore more (the registry instance
``ModelRegistry`` is not its class ``_ModelRegistry``); a subclass swap adds its name as an
assignment does; and when the old and the new upstream are the same release, nothing
upstream changed, so a target missing at its path is a fact and the decision *retain*,
unless the patch can never apply (the module it assigns into is in neither release).

The upstream releases and the plugin are written by the test."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import mup_plugin

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit as audit

UPSTREAM = {
    "pyproject.toml": '[project]\nname = "mup"\nversion = "{version}"\n',
    "mup/__init__.py": "",
    "mup/config.py": "class ModelConfig:\n    pass\n",
    "mup/platforms.py": "_current_platform = None\n",
    "mup/registry.py": ("class _ModelRegistry:\n    pass\n\n\nModelRegistry = _ModelRegistry()\n"),
    "mup/loader/__init__.py": "",
    "mup/loader/default_loader.py": "class DefaultLoader:\n    pass\n",
    "mup/loader/utils.py": (
        "def _get_model_architecture(config):\n    return config\n\n\n"
        "def get_model_architecture(config):\n    return _get_model_architecture(config)\n"
    ),
    "mup/engine/__init__.py": "",
    "mup/engine/utils.py": "class CoreEngine:\n    pass\n",
    "mup/serve.py": "def main():\n    return 0\n",
}

#: vllm-mindspore's ``__init__.py`` assignments, on ``mup``.
PATCH = """import mup.config
import mup.engine.utils
import mup.loader.default_loader
import mup.serve


class MsPlatform:
    pass


class MsRegistry:
    pass


class MsCoreEngine(mup.engine.utils.CoreEngine):
    pass


def ms_get_model_architecture(config):
    return config


mup.config.current_platform = MsPlatform()
mup.config.ModelRegistry = MsRegistry()
mup.loader.default_loader.get_model_architecture = ms_get_model_architecture
mup.serve.CoreEngine = MsCoreEngine
"""

#: An assignment into a module neither release has (its import guarded at run time).
NEVER = """import importlib

cli = importlib.import_module("mup.cli")


def parser():
    return None


cli.make_parser = parser
"""


def _plugin(root: Path) -> Path:
    write_files(
        root,
        mup_plugin(
            {
                "mplug/patch/__init__.py": (
                    "import mplug.patch.patch_init  # noqa: F401\n"
                    "import mplug.patch.patch_cli  # noqa: F401\n"
                ),
                "mplug/patch/patch_init.py": PATCH,
                "mplug/patch/patch_cli.py": NEVER,
            }
        ),
    )
    return root


def _audit(
    tmp_path: Path, old_version: str, new_version: str
) -> list[tuple[str, str, tuple[str, ...]]]:
    old = tmp_path / f"mup-{old_version}-a"
    new = tmp_path / f"mup-{new_version}-b"
    for root, version in ((old, old_version), (new, new_version)):
        write_files(root, {k: v.format(version=version) for k, v in UPSTREAM.items()})
    plugin = _plugin(tmp_path / "mplug")
    result = audit.audit_runtime(load_config(plugin / "pyproject.toml"), old=str(old), new=str(new))
    return [(a.entry.target, a.drift.decision, a.drift.evidence) for a in result.entries]


#: What the audit says of each target in an upgrade (two releases), by target.
UPGRADE = {
    "mup.cli.make_parser": (
        "look",
        "mup.cli.make_parser is in neither release, nor is mup.cli, the module or class it "
        "belongs to: the patch can never apply (a typo or a future name)",
    ),
    # the underscore rename in another module stands: current_platform is defined nowhere
    "mup.config.current_platform": (
        "update",
        "mup.config.current_platform is not at that path in either release; upstream has the "
        "name as mup.platforms._current_platform (renamed before the old release: the patch "
        "has not applied since): retarget to mup.platforms._current_platform",
    ),
    # ModelRegistry is still defined (mup.registry): _ModelRegistry is another object
    "mup.config.ModelRegistry": (
        "retain",
        "mup.config.ModelRegistry is not defined at that path in either release: the "
        "plugin's assignment adds it there (upstream defines the name at "
        "mup.registry.ModelRegistry (line 5); if it was meant to replace that, a wrong path)",
    ),
    "mup.loader.default_loader.get_model_architecture": (
        "retain",
        "mup.loader.default_loader.get_model_architecture is not defined at that path in "
        "either release: the plugin's assignment adds it there (upstream defines the name at "
        "mup.loader.utils.get_model_architecture (line 5); if it was meant to replace that, "
        "a wrong path)",
    ),
    # a subclass swap is an assignment of the plugin's class
    "mup.serve.CoreEngine": (
        "retain",
        "mup.serve.CoreEngine is not defined at that path in either release: the plugin's "
        "assignment adds it there (upstream defines the name at mup.engine.utils.CoreEngine "
        "(line 1); if it was meant to replace that, a wrong path)",
    ),
}


def test_names_missing_at_their_path_across_an_upgrade(tmp_path: Path) -> None:
    found = _audit(tmp_path, "1.0", "1.1")
    assert {target: (decision, said[0]) for target, decision, said in found} == UPGRADE
    assert [target for target, _decision, _first in found] == [
        "mup.cli.make_parser",
        "mup.config.current_platform",
        "mup.config.ModelRegistry",
        "mup.loader.default_loader.get_model_architecture",
        "mup.serve.CoreEngine",
    ]


def test_the_same_release_twice_retains_what_can_apply(tmp_path: Path) -> None:
    same = "the old and the new upstream are the same release (1.0): nothing upstream changed, "
    same += "so nothing calls for changing the entry; what follows of its target holds in "
    same += "both trees and was so before"
    audited = _audit(tmp_path, "1.0", "1.0")
    found = {target: (decision, said[0]) for target, decision, said in audited}
    assert found == {
        # never applies: broken before as after
        "mup.cli.make_parser": UPGRADE["mup.cli.make_parser"],
        "mup.config.current_platform": ("retain", same),
        "mup.config.ModelRegistry": UPGRADE["mup.config.ModelRegistry"],
        "mup.loader.default_loader.get_model_architecture": UPGRADE[
            "mup.loader.default_loader.get_model_architecture"
        ],
        "mup.serve.CoreEngine": UPGRADE["mup.serve.CoreEngine"],
    }
    # the fact stays, after the reason: the rename is older than the release both sides run
    said = dict((target, said) for target, _decision, said in audited)
    assert said["mup.config.current_platform"][1] == UPGRADE["mup.config.current_platform"][1]
