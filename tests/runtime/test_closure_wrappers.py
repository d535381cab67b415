"""A wrapper whose original is kept in a local of the function that installs it (``orig =
Cls.meth``, a nested ``def wrapped`` that calls ``orig``, ``Cls.meth = wrapped``, all in a
``register()`` run once) is a *wrapper*, as the same lines at module level are: the shape of
a general plugin that patches ``EngineArgs`` from its entry point. A function of the same
name elsewhere in the module does not decide it. The plugin is written by the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_trees import pyproject

from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

PLUGIN = """from vllm.engine import arg_utils
from vllm.engine.arg_utils import EngineArgs

_orig_model = EngineArgs.create_model_config


def _model(self, *args, **kwargs):
    return _orig_model(self, *args, **kwargs)


def wrapped(self, *args, **kwargs):
    return None


def _patch_engine():
    orig = EngineArgs.create_engine_config

    def wrapped(self, *args, **kwargs):
        config = orig(self, *args, **kwargs)
        return config

    EngineArgs.create_engine_config = wrapped


def _patch_cli():
    orig = arg_utils.EngineArgs.from_cli_args

    def wrapped(cls, *args, **kwargs):
        return orig(*args, **kwargs)

    arg_utils.EngineArgs.from_cli_args = classmethod(wrapped)


class Installer:
    def install(self):
        orig = EngineArgs.add_cli_args

        def wrapped(parser):
            return orig(parser)

        EngineArgs.add_cli_args = staticmethod(wrapped)


def register():
    EngineArgs.create_model_config = _model
    EngineArgs.validate = wrapped
    _patch_engine()
    _patch_cli()
    Installer().install()
"""


def test_a_local_original_makes_a_wrapper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("wplug", {"w": "wplug:register"}),
        "wplug/__init__.py": PLUGIN,
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    inventory = take_inventory(None, plugin=tmp_path, package="wplug")
    assert [(e.line, e.target, e.mechanism.value, e.replacement) for e in inventory.entries] == [
        (
            22,
            "vllm.engine.arg_utils.EngineArgs.create_engine_config",
            "wrapper",
            "wplug:_patch_engine.wrapped",
        ),
        (
            31,
            "vllm.engine.arg_utils.EngineArgs.from_cli_args",
            "wrapper",
            "wplug:_patch_cli.wrapped",
        ),
        (
            41,
            "vllm.engine.arg_utils.EngineArgs.add_cli_args",
            "wrapper",
            "wplug:Installer.install.wrapped",
        ),
        (
            45,
            "vllm.engine.arg_utils.EngineArgs.create_model_config",
            "wrapper",
            "wplug:_model",
        ),
        (46, "vllm.engine.arg_utils.EngineArgs.validate", "assignment", "wplug:wrapped"),
    ]
