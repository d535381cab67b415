"""A plugin whose packages live in the folder its project files name (setuptools'
``package-dir = {"" = "python"}`` or ``packages.find`` ``where``) is read as a ``src``
layout is: ``--plugin DIR`` finds the package under ``DIR/python``, and the entry points in
``DIR``'s project files.

Such a plugin's ``runtime inventory --plugin .`` (the command init's hint gives) stopped at
"the plugin package NAME is not under DIR", and with ``--plugin DIR/python`` its entry points
were not read: the loading of its patches was untraced.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import vllm_plugin_pyproject, write_files

PATCH_MODULE = (
    "from vllm.v1.engine.core import EngineCore\n\n_orig = EngineCore.__init__\n\n\n"
    "def core_init(self, *args, **kwargs):\n    _orig(self, *args, **kwargs)\n\n\n"
    "def register():\n    EngineCore.__init__ = core_init\n"
)
PYPROJECT = vllm_plugin_pyproject(
    "vllm-thaw", "0.6.0", 'thaw = "thaw_vllm.loader:register"', dependencies=("vllm==0.30.0",)
)
SETUPTOOLS = {
    "package-dir": '\n[tool.setuptools.package-dir]\n"" = "python"\n',
    "packages-find": '\n[tool.setuptools.packages.find]\nwhere = ["python"]\n',
}
SETUP_CFG = "[options]\npackage_dir =\n    =python\npackages = find:\n"


def plugin(tmp_path: Path, pyproject: str, extra: dict[str, str] | None = None) -> Path:
    root = tmp_path / "plugin"
    write_files(
        root,
        {
            "pyproject.toml": pyproject,
            "python/thaw_vllm/__init__.py": "",
            "python/thaw_vllm/loader.py": PATCH_MODULE,
            **(extra or {}),
        },
    )
    return root


EXPECTED = [
    "entry point vllm.general_plugins:thaw = thaw_vllm.loader:register (../pyproject.toml)",
    "thaw_vllm/loader.py:11  wrapper     vllm.v1.engine.core.EngineCore.__init__  <- "
    "thaw_vllm.loader:core_init",
    "    active",
]


@pytest.mark.parametrize("form", sorted(SETUPTOOLS))
def test_the_package_is_found_in_the_declared_folder(cli, tmp_path: Path, form: str) -> None:
    root = plugin(tmp_path, PYPROJECT + SETUPTOOLS[form])
    for given in (root, root / "python"):
        run = cli("runtime", "inventory", "--plugin", str(given), "--package", "thaw_vllm")
        lines = run.out.splitlines()
        assert (run.code, lines[0], lines[1:4]) == (
            1,  # the patch module has no Note/Affected versions/Remove at header
            f"plugin thaw_vllm ({root / 'python'}), patch directory thaw_vllm: 2 files, 1 entry",
            EXPECTED,
        )


def test_setup_cfg_names_the_folder_too(cli, tmp_path: Path) -> None:
    root = plugin(tmp_path, PYPROJECT, {"setup.cfg": SETUP_CFG})
    run = cli("runtime", "inventory", "--plugin", str(root), "--package", "thaw_vllm")
    assert (run.code, run.out.splitlines()[1:4]) == (1, EXPECTED)


def test_init_configures_it_and_the_inventory_runs_with_no_option(cli, tmp_path: Path) -> None:
    root = plugin(tmp_path, PYPROJECT + SETUPTOOLS["package-dir"])
    run = cli("init", cwd=root)
    assert (run.code, run.out.splitlines()[2]) == (
        0,
        "package thaw_vllm: the runtime commands read it",
    )
    run = cli("runtime", "inventory", cwd=root)
    assert (run.code, run.out.splitlines()[1:4]) == (1, EXPECTED)


def test_a_folder_outside_the_project_is_not_followed(cli, tmp_path: Path) -> None:
    root = plugin(tmp_path, PYPROJECT + '\n[tool.setuptools.package-dir]\n"" = "../python"\n')
    write_files(tmp_path, {"python/thaw_vllm/__init__.py": ""})
    run = cli("runtime", "inventory", "--plugin", str(root), "--package", "thaw_vllm")
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: the plugin package thaw_vllm is not under {root}",
    )
