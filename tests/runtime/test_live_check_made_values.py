"""``runtime check`` of patches whose replacement exists only once the plugin ran: a
wrapper defined inside the function that installs it (``functools.wraps`` gives it
upstream's name), and a literal the plugin puts in an attribute (a "patched" marker, a
setting). A plugin ``gplug`` and an upstream ``gup`` written by this test, put in a real
virtual environment by a ``.pth`` file and the plugin's entry point in a ``dist-info``
directory, as an installed wheel leaves them.

The wrapper cannot be fetched from the plugin module (``plugin:install.wrapper`` is a local
of ``install``): it is known by its code. A literal value names no module, so which module
it comes from cannot tell whether the plugin set it: the value the plugin's code assigns
can.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import venv_on_paths, write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.live import check

UPSTREAM = {
    "gup/__init__.py": "",
    "gup/config.py": """import os

LIMIT = 2
NAME = "gup"


def probe(model, tokenizer):
    return model, tokenizer
""",
    "gup/args.py": """from gup.config import probe


class EngineArgs:
    def create_config(self):
        return {}
""",
}

PLUGIN = {
    "gplug/__init__.py": "from gplug.plugin import register\n",
    "gplug/plugin.py": """import os
from functools import wraps

import gup.args as args_module
import gup.config as config_module
from gup.args import EngineArgs


def _patch_engine_args():
    if getattr(EngineArgs, "_gplug_patched", False):
        return
    original = EngineArgs.create_config

    @wraps(original)
    def create_config(self):
        return {"gplug": True, **original(self)}

    EngineArgs.create_config = create_config
    EngineArgs._gplug_patched = True


def _patch_probe():
    original = args_module.probe

    @wraps(original)
    def probe(model, tokenizer):
        return original(model, tokenizer)

    args_module.probe = probe
    setattr(config_module, "_gplug_probe_patched", True)


def _tune():
    config_module.LIMIT = 8
    config_module.NAME = os.environ.get("GPLUG_NAME", "gplug")


def register():
    _patch_engine_args()
    _patch_probe()
    _tune()
    config_module.LIMIT = 4
""",
    "pyproject.toml": """[project]
name = "gplug"
version = "0.1"

[project.entry-points."gup.general_plugins"]
gplug = "gplug:register"

[tool.patchkeeper]
upstream = "gup"

[tool.patchkeeper.runtime]
package = "gplug"
patch-directory = "gplug"
entry-point-groups = ["gup.general_plugins"]
upstream-packages = ["gup"]
""",
}

ENTRY_POINTS = "[gup.general_plugins]\ngplug = gplug:register\n"


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """``(plugin root, the environment's python)``: gup and gplug on the path of a fresh
    virtual environment, gplug's entry point registered there."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("GPLUG_NAME", raising=False)
    write_files(tmp_path / "upstream", UPSTREAM)
    write_files(tmp_path / "plugin", PLUGIN)
    paths = [tmp_path / "upstream", tmp_path / "plugin"]
    python, _site = venv_on_paths(tmp_path / "env", paths, "gplug", ENTRY_POINTS)
    return tmp_path / "plugin", python


def test_made_wrappers_and_literal_values_are_checked(installed: tuple[Path, Path]) -> None:
    plugin, python = installed
    result = check.check_live(
        load_config(plugin / "pyproject.toml"), check.LiveCheckRequest(python=python)
    )
    assert [(a.name, a.status) for a in result.activation] == [("gplug", "ok")]
    assert [(e.line, e.target, e.status, e.detail) for e in result.entries] == [
        (
            18,
            "gup.args.EngineArgs.create_config",
            "replaced",
            "live gplug.plugin:_patch_engine_args.create_config, made when the function "
            "around it ran",
        ),
        (19, "gup.args.EngineArgs._gplug_patched", "replaced", "live value True"),
        (
            29,
            "gup.args.probe",
            "replaced",
            "live gplug.plugin:_patch_probe.probe, made when the function around it ran",
        ),
        (30, "gup.config._gplug_probe_patched", "replaced", "live value True"),
        # a later line of the plugin sets another value: the live one is that line's
        (34, "gup.config.LIMIT", "original", "live value 4; the plugin sets 8"),
        (
            35,
            "gup.config.NAME",
            "error",
            "live value 'gplug': no module tells whether the plugin set it; not checked, "
            "look by hand",
        ),
        (42, "gup.config.LIMIT", "replaced", "live value 4"),
    ]
    assert result.exit_code == 1


def test_literal_values_of_assignments_and_setattr_calls(tmp_path: Path) -> None:
    """Only a literal is taken: a name, a call or an f-string is computed when the plugin
    runs."""
    write_files(tmp_path / "plugin", PLUGIN)
    plugin = tmp_path / "plugin"
    from patchkeeper.runtime.inventory.runtime_inventory import scan_plugin
    from patchkeeper.runtime.settings import PluginLocation, located_settings

    settings = located_settings(load_config(plugin / "pyproject.toml"), PluginLocation())
    entries = scan_plugin(settings).inventory.entries
    assert check.literal_values(plugin, entries) == {
        ("gplug/plugin.py", 19): "True",
        ("gplug/plugin.py", 30): "True",
        ("gplug/plugin.py", 34): "8",
        ("gplug/plugin.py", 42): "4",
    }
