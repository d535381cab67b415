"""``runtime check`` in a real virtual environment: tinyup 1.0 and the plugin, pip-installed,
activated through the plugin's real entry point."""

from __future__ import annotations

import subprocess
import venv
from pathlib import Path

import pytest

from json_schema_check import output
from patchkeeper import __version__
from patchkeeper.config import load_config
from patchkeeper.runtime import check


@pytest.mark.network
def test_live_check_in_a_real_venv(runtime_trees: Path, tmp_path: Path, cli) -> None:
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    for project in ("upstream-1.0", "plugin"):
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", str(runtime_trees / project)],
            check=True,
            capture_output=True,
        )
    plugin = runtime_trees / "plugin"
    result = check.check_live(load_config(plugin / "pyproject.toml"), python=python)
    assert result.python == str(python)
    assert [(a["name"], a["status"]) for a in result.activation] == [("metaplug", "ok")]
    assert [(e.target, e.status) for e in result.entries] == [
        ("tinyup.sampler.sample", "replaced"),
        ("tinyup.scheduler.Scheduler.schedule", "replaced"),
        ("tinyup.scheduler.Scheduler.make", "replaced"),
        ("tinyup.scheduler.Scheduler.create", "replaced"),
    ]
    assert result.stale == ()  # tinyup.engine is not imported by the plugin's activation
    assert result.package_files["metaplug"].startswith(str(env_dir))
    assert result.package_files["tinyup"].startswith(str(env_dir))
    run = cli("runtime", "check", "--python", str(python), cwd=plugin)
    assert run.code == 0
    assert f"interpreter {python}" in run.out
    data = output(cli("runtime", "check", "--python", str(python), "--json", cwd=plugin).out)
    assert tuple(data.items())[:3] == (
        ("command", "runtime check"),
        ("patchkeeper_version", __version__),
        ("exit_code", 0),
    )
    assert sorted(data["package_files"]) == ["metaplug", "tinyup"]


@pytest.mark.network
def test_live_check_names_the_module_of_an_import_error(runtime_trees: Path, tmp_path: Path):
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    init = runtime_trees / "plugin/metaplug/__init__.py"
    init.write_text("def register():\n    import metaplug.patch.nowhere  # noqa: F401\n")
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", str(runtime_trees / "plugin")],
        check=True,
        capture_output=True,
    )
    result = check.check_live(load_config(runtime_trees / "plugin/pyproject.toml"), python=python)
    assert [(a["status"], a["module"]) for a in result.activation] == [
        ("import-error", "tinyup")  # metaplug.patch imports tinyup, not installed here
    ]
    assert result.exit_code == 1
