"""``sys.modules`` keys that name only the plugin's own modules are no entries: an import
proxy that serves ``fplug.vllm.x`` as ``vllm.x`` (its finder accepts only names under
``f"{__name__}.vllm"``, its loader stores the module under the name it was given) and an
alias of a plugin module redirect the plugin's own imports, which no upstream release
changes. A loader whose finder accepts upstream names, or one the file builds outside a
finder, still makes a computed-key entry. The plugin files are written by the test in the
shape of lmcache-vllm's import proxy."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_trees import pyproject

from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

PROXY = """import importlib
import importlib.machinery
import sys
import types


class ProxyLoader:
    def __init__(self, fullname):
        self.fullname = fullname
        self.module = None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__dict__.update(self.load_module(self.fullname).__dict__)

    def load_module(self, fullname):
        if self.module is None:
            self.module = importlib.import_module(fullname.replace(__name__ + ".", "", 1))
        sys.modules[fullname] = self.module
        return self.module


class ProxyFinder:
    def find_spec(self, fullname, path, target=None):
        prefix = f"{__name__}.vllm"
        if fullname.startswith(prefix):
            return importlib.machinery.ModuleSpec(fullname, ProxyLoader(fullname))
        return None


sys.meta_path.insert(0, ProxyFinder())
sys.modules["fplug.compat"] = types.ModuleType("fplug.compat")
sys.modules["vllm.engine"] = types.ModuleType("vllm.engine")
"""

UPSTREAM_PROXY = """import importlib
import importlib.machinery
import sys


class SwapLoader:
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        pass

    def load_module(self, fullname):
        sys.modules[fullname] = importlib.import_module("fplug.engine")
        return sys.modules[fullname]


class SwapFinder:
    def find_spec(self, fullname, path, target=None):
        if fullname.startswith("vllm.engine"):
            return importlib.machinery.ModuleSpec(fullname, SwapLoader())
        return None


class OwnLoader:
    def load_module(self, fullname):
        sys.modules[fullname] = importlib.import_module("fplug.impl")
        return sys.modules[fullname]


class OwnFinder:
    def find_spec(self, fullname, path, target=None):
        if fullname.startswith("fplug.extra."):
            return importlib.machinery.ModuleSpec(fullname, OwnLoader())
        return None


sys.meta_path.insert(0, SwapFinder())
sys.meta_path.insert(0, OwnFinder())
LOOSE = OwnLoader()
"""


def _inventory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str) -> list[tuple]:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("fplug", {"f": "fplug:register"}),
        "fplug/__init__.py": module + "\n\ndef register():\n    pass\n",
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    inventory = take_inventory(None, plugin=tmp_path, package="fplug")
    return [(e.line, e.target, e.key, e.mechanism.value) for e in inventory.entries]


def test_a_proxy_of_the_plugins_own_modules_and_an_alias_of_one_are_no_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _inventory(tmp_path, monkeypatch, PROXY) == [
        (35, "vllm.engine", None, "sys-modules"),
    ]


def test_a_loader_for_upstream_names_or_built_outside_a_finder_stays_an_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SwapLoader serves vllm.engine; OwnLoader's finder accepts only fplug.extra. names,
    # but the module also builds one itself (LOOSE), which may be handed any name.
    assert _inventory(tmp_path, monkeypatch, UPSTREAM_PROXY) == [
        (14, "sys.modules", "fullname", "sys-modules"),
        (27, "sys.modules", "fullname", "sys-modules"),
    ]
