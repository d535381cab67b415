"""``runtime check`` where upstream keeps lazy placeholder modules and the platform's runtime
library does not load (a plugin ``cplug`` and an upstream ``cup`` written by this test, put
in a real virtual environment by a ``.pth`` file and the plugin's entry points in a
``dist-info`` directory, as an installed wheel leaves them).

- ``cup.audio`` holds a placeholder for an optional extra that is not installed: any
  attribute of it raises ``ModuleNotFoundError`` (vLLM's ``PlaceholderModule``); the probe
  reads every loaded upstream module and must not stop on it.
- With the platform plugin's vendor library missing, importing ``cup.ops`` fails with one
  error: named once, whole, as the cause, not as one *missing* entry per target.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import venv_on_paths, write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.live import check

UPSTREAM = {
    "cup/__init__.py": "",
    "cup/utils.py": '''class PlaceholderModule:
    """Stands for an optional module that is not installed."""

    def __init__(self, name):
        self.__dict__["_name"] = name

    def __getattr__(self, key):
        raise ModuleNotFoundError(f"No module named {self._name!r}")
''',
    "cup/audio.py": """from cup.utils import PlaceholderModule

librosa = PlaceholderModule("librosa")


def load(x):
    return x
""",
    "cup/platforms.py": """import importlib
import importlib.metadata


def current():
    for ep in importlib.metadata.entry_points(group="cup.platform_plugins"):
        module, _, name = ep.load()().rpartition(".")
        return getattr(importlib.import_module(module), name)
    return None
""",
    "cup/ops.py": """import cup.audio
from cup.platforms import current

current_platform = current()


def scale(x, f):
    return x * f


def shift(x, by):
    return x + by
""",
}

PLUGIN = {
    "cplug/__init__.py": """def register():
    import cplug.patch.patch_ops  # noqa: F401


def platform_plugin():
    return "cplug.platform.NpuPlatform"
""",
    "cplug/platform.py": "class NpuPlatform:\n    pass\n",
    "cplug/patch/__init__.py": "",
    "cplug/patch/patch_ops.py": """import cup.ops


def scale(x, f):
    return x * f * 1


def shift(x, by):
    return x + by + 0


cup.ops.scale = scale
cup.ops.shift = shift
""",
    "pyproject.toml": """[project]
name = "cplug"
version = "0.1"

[project.entry-points."cup.general_plugins"]
cplug = "cplug:register"

[project.entry-points."cup.platform_plugins"]
cplug = "cplug:platform_plugin"

[tool.patchkeeper]
upstream = "cup"

[tool.patchkeeper.runtime]
package = "cplug"
entry-point-groups = ["cup.general_plugins", "cup.platform_plugins"]
upstream-packages = ["cup"]
""",
}

ENTRY_POINTS = """[cup.general_plugins]
cplug = cplug:register

[cup.platform_plugins]
cplug = cplug:platform_plugin
"""

VENDOR = """import ctypes

ctypes.CDLL("libcupvendor.so.1")


class NpuPlatform:
    pass
"""


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """``(plugin root, the environment's python)``: cup and cplug on the path of a fresh
    virtual environment, cplug's entry points registered there."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    write_files(tmp_path / "upstream", UPSTREAM)
    write_files(tmp_path / "plugin", PLUGIN)
    paths = [tmp_path / "upstream", tmp_path / "plugin"]
    python, _site = venv_on_paths(tmp_path / "env", paths, "cplug", ENTRY_POINTS)
    return tmp_path / "plugin", python


def _check(plugin: Path, python: Path) -> check.LiveCheck:
    return check.check_live(
        load_config(plugin / "pyproject.toml"), check.LiveCheckRequest(python=python)
    )


def test_a_placeholder_module_does_not_stop_the_probe(installed: tuple[Path, Path]) -> None:
    plugin, python = installed
    result = _check(plugin, python)
    assert [(a.name, a.status) for a in result.activation] == [
        ("cplug", "ok"),
        ("cplug", "ok"),
    ]
    assert [(e.target, e.status) for e in result.entries] == [
        ("cup.ops.scale", "replaced"),
        ("cup.ops.shift", "replaced"),
    ]
    assert (result.stale, result.cause, result.exit_code) == ((), "", 0)


def test_a_runtime_library_that_does_not_load_is_named_once(
    installed: tuple[Path, Path], cli
) -> None:
    plugin, python = installed
    (plugin / "cplug/platform.py").write_text(VENDOR, encoding="utf-8")
    result = _check(plugin, python)
    error = "OSError: libcupvendor.so.1: cannot open shared object file: No such file or directory"
    assert [(e.target, e.status, e.detail) for e in result.entries] == [
        ("cup.ops.scale", "not-checked", error),
        ("cup.ops.shift", "not-checked", error),
    ]
    cause = result.cause.splitlines()
    assert (cause[0], cause[1], cause[-1]) == (
        error,
        "Traceback (most recent call last):",
        error,
    )
    assert f'  File "{plugin / "cplug/platform.py"}", line 3, in <module>' in cause
    assert result.exit_code == 1
    run = cli("runtime", "check", "--python", str(python), cwd=plugin)
    lines = run.out.splitlines()
    assert run.code == 1
    assert [a.status for a in result.activation] == ["error", "error"]
    assert [line for line in lines if line.startswith("not checked")] == [
        "not checked (2 entries): importing their upstream modules fails with one error, the "
        "cause (a runtime library of the platform that does not load here?):"
    ]
    assert not any(line.startswith("missing") for line in lines)
