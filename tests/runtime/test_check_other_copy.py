"""``runtime check`` says when the interpreter imports another copy of the plugin than the
directory the entries come from, and which patch files differ (a new user's report: the
entries were read from the checkout while the interpreter imported an older installed
release; nothing said so).

The environment is a real virtual environment whose site-packages holds a ``.pth`` line
naming a directory with copies of the plugin and its upstream (what an installed copy is to
the interpreter), written by this test.
"""

from __future__ import annotations

import shutil
import venv
from pathlib import Path

from helpers import site_packages
from patchkeeper.config import load_config
from patchkeeper.runtime.live import check


def _environment(tmp_path: Path, runtime_trees: Path) -> tuple[Path, Path]:
    """A venv importing metaplug and tinyup from ``tmp_path/installed``; (python, copy)."""
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    purelib = site_packages(python)
    installed = tmp_path / "installed"
    shutil.copytree(runtime_trees / "plugin" / "metaplug", installed / "metaplug")
    shutil.copytree(runtime_trees / "upstream-1.0" / "tinyup", installed / "tinyup")
    Path(purelib, "copies.pth").write_text(f"{installed}\n")
    return python, installed / "metaplug"


def test_another_copy_with_other_patch_files_is_named(runtime_trees: Path, tmp_path, cli) -> None:
    python, copy = _environment(tmp_path, runtime_trees)
    plugin = runtime_trees / "plugin"
    config = load_config(plugin / "pyproject.toml")
    same = check.check_live(config, check.LiveCheckRequest(python=python))
    assert same.package_files["metaplug"] == str(copy / "__init__.py")
    assert same.other_copy == ()
    patch_dir = plugin / "metaplug" / "patch"
    edited = patch_dir / "bugfix" / "fix_sampler.py"
    edited.write_text(edited.read_text() + "\n# a newer checkout\n")
    (patch_dir / "bugfix" / "fix_new.py").write_text("")
    (copy / "patch" / "performance" / "kernels.py").unlink()
    result = check.check_live(config, check.LiveCheckRequest(python=python))
    assert result.other_copy == (
        "metaplug/patch/bugfix/fix_new.py",
        "metaplug/patch/bugfix/fix_sampler.py",
        "metaplug/patch/performance/kernels.py",
    )
    assert result.exit_code == 1
    run = cli("runtime", "check", "--python", str(python), cwd=plugin)
    assert run.code == 1
    assert run.out.splitlines()[-4:] == [
        "the interpreter imports another copy of the plugin, whose patch files differ from the "
        "ones the entries were read from (3 file(s)): install this directory there (pip "
        "install -e), or give --plugin the copy it imports (its file is listed above)",
        *(f"  {name}" for name in result.other_copy),
    ]


def test_the_plugin_directory_itself_is_no_other_copy(runtime_trees: Path, tmp_path) -> None:
    """An editable install imports the directory the entries come from."""
    python, copy = _environment(tmp_path, runtime_trees)
    shutil.rmtree(copy)
    pth = next((tmp_path / "env").glob("lib/python*/site-packages/copies.pth"))
    pth.write_text(f"{tmp_path / 'installed'}\n{runtime_trees / 'plugin'}\n")
    plugin = runtime_trees / "plugin"
    result = check.check_live(
        load_config(plugin / "pyproject.toml"), check.LiveCheckRequest(python=python)
    )
    assert result.package_files["metaplug"] == str(plugin / "metaplug" / "__init__.py")
    assert result.other_copy == ()
