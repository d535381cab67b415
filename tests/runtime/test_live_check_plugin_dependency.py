"""``runtime check`` where an entry point of the plugin raises ``ImportError`` (a plugin
``dplug`` and an upstream ``dup`` written by this test, put in a real virtual environment by
a ``.pth`` file and the plugin's entry point in a ``dist-info`` directory, as an installed
wheel leaves them).

A third-party module the plugin imports that is not installed there (a vendor SDK) means the
plugin cannot be imported: no patch can be live, as when the upstream cannot be imported, so
it is exit 2 naming the error, where it was raised and what to install. It was the entry
point's ``import-error``, exit 1, as if the check had found something about the patches. An
``ImportError`` of the plugin's own modules, or of an upstream module the plugin expects, is
still the entry point's ``import-error`` (exit 1): that is a finding about the plugin.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from helpers import venv_on_paths, write_files

UPSTREAM = {
    "dup/__init__.py": "",
    "dup/engine.py": "def step(x):\n    return x\n",
}

PYPROJECT = """[project]
name = "dplug"
version = "0.1"

[project.entry-points."dup.general_plugins"]
dplug = "dplug:register"

[tool.patchkeeper]
upstream = "dup"

[tool.patchkeeper.runtime]
package = "dplug"
entry-point-groups = ["dup.general_plugins"]
upstream-packages = ["dup"]
"""

PATCH = """import dup.engine


def step(x):
    return x + 1


dup.engine.step = step
"""


def _register(imports: str) -> str:
    """The plugin's ``__init__.py``: ``register()`` makes ``imports`` first, then patches."""
    return f"def register():\n    {imports}\n    import dplug.patch.patch_engine  # noqa: F401\n"


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """``(plugin root, the environment's python)``: dup and dplug on the path of a fresh
    virtual environment, dplug's entry point registered there."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    write_files(tmp_path / "upstream", UPSTREAM)
    write_files(
        tmp_path / "plugin",
        {
            "pyproject.toml": PYPROJECT,
            "dplug/__init__.py": _register("pass"),
            "dplug/patch/__init__.py": "",
            "dplug/patch/patch_engine.py": PATCH,
        },
    )
    paths = [tmp_path / "upstream", tmp_path / "plugin"]
    entry_points = "[dup.general_plugins]\ndplug = dplug:register\n"
    python, _site = venv_on_paths(tmp_path / "env", paths, "dplug", entry_points)
    return tmp_path / "plugin", python


def test_a_plugin_dependency_not_installed_is_exit_2(installed: tuple[Path, Path], cli) -> None:
    plugin, python = installed
    (plugin / "dplug/__init__.py").write_text(_register("import vendor_sdk  # noqa: F401"))
    version = ".".join(map(str, sys.version_info[:3]))

    run = cli("runtime", "check", "--python", str(python), cwd=plugin)

    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {python}: dplug cannot be imported by this interpreter (Python "
        f"{version}): its entry point dup.general_plugins:dplug = dplug:register raises "
        "ModuleNotFoundError: No module named 'vendor_sdk' (raised at "
        f"{plugin / 'dplug/__init__.py'}:2)\n"
        f"  hint: install vendor_sdk in that environment ({python} -m pip install ...), or "
        "give --python the interpreter of an environment where dplug's dependencies are "
        "installed\n"
    )


def test_the_plugin_works_when_its_dependency_is_there(installed: tuple[Path, Path], cli) -> None:
    """The same plugin, the module it imports installed: every entry is live, exit 0."""
    plugin, python = installed
    (plugin / "dplug/__init__.py").write_text(_register("import vendor_sdk  # noqa: F401"))
    write_files(plugin, {"vendor_sdk.py": ""})  # on the .pth path: installed there

    run = cli("runtime", "check", "--python", str(python), cwd=plugin)

    assert run.code == 0
    assert [line for line in run.out.splitlines() if line.startswith("entry point")] == [
        "entry point dup.general_plugins:dplug = dplug:register: ok"
    ]


@pytest.mark.parametrize(
    ("imports", "module", "detail"),
    [
        # the plugin's own module: an error of its code
        ("import dplug.gone  # noqa: F401", "dplug.gone", "No module named 'dplug.gone'"),
        # an upstream module the plugin expects: the upstream dropped it
        ("import dup.gone  # noqa: F401", "dup.gone", "No module named 'dup.gone'"),
        # a name missing from a module that is installed: not a missing dependency
        (
            "from vendor_sdk import gone  # noqa: F401",
            "vendor_sdk",
            "cannot import name 'gone' from 'vendor_sdk' ({plugin}/vendor_sdk.py)",
        ),
    ],
)
def test_an_import_error_of_the_plugin_or_upstream_stays_a_finding(
    installed: tuple[Path, Path], cli, imports: str, module: str, detail: str
) -> None:
    plugin, python = installed
    (plugin / "dplug/__init__.py").write_text(_register(imports))
    write_files(plugin, {"vendor_sdk.py": ""})  # on the .pth path: installed there

    run = cli("runtime", "check", "--python", str(python), cwd=plugin)

    assert (run.code, run.err) == (1, "")
    assert [line for line in run.out.splitlines() if line.startswith("entry point")] == [
        "entry point dup.general_plugins:dplug = dplug:register: import-error "
        f"{module} {detail.format(plugin=plugin)}"
    ]
