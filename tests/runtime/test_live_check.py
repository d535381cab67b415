"""``runtime check`` in a real virtual environment: tinyup 1.0 and the plugin, pip-installed,
activated through the plugin's real entry point."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from helpers import site_packages
from json_schema_check import output
from patchkeeper import __version__
from patchkeeper.config import load_config
from patchkeeper.runtime.live import check


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
    result = check.check_live(
        load_config(plugin / "pyproject.toml"), check.LiveCheckRequest(python=python)
    )
    assert result.python == str(python)
    assert [(a.name, a.status) for a in result.activation] == [("metaplug", "ok")]
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
    # a module the upstream does not have (dropped by a release): a finding, exit 1; a
    # third-party module not installed would be exit 2 (test_live_check_plugin_dependency)
    init.write_text("def register():\n    import tinyup.missing_module  # noqa: F401\n")
    for project in ("upstream-1.0", "plugin"):
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", str(runtime_trees / project)],
            check=True,
            capture_output=True,
        )
    result = check.check_live(
        load_config(runtime_trees / "plugin/pyproject.toml"), check.LiveCheckRequest(python=python)
    )
    assert [(a.status, a.module) for a in result.activation] == [
        ("import-error", "tinyup.missing_module")  # the plugin's register() imports it
    ]
    assert result.exit_code == 1
    # the upstream is imported before the plugin's entry points, as the upstream imports
    # them: its file is named though the plugin's call failed
    from patchkeeper.render.runtime import check_text

    site = site_packages(python)
    assert f"file of tinyup: {site}/tinyup/__init__.py" in check_text(result).splitlines()


def test_an_interpreter_without_the_plugin_or_upstream_is_refused(runtime_trees: Path, cli):
    """patchkeeper's own interpreter has neither metaplug nor tinyup: exit 2 naming both, not
    one "missing" line per entry (user report: ~200 ImportError lines, exit 1)."""
    python = Path(sys.executable)
    run = cli("runtime", "check", "--python", str(python), cwd=runtime_trees / "plugin")
    version = ".".join(map(str, sys.version_info[:3]))
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {python}: metaplug and tinyup cannot be imported by this "
        f"interpreter (Python {version}): not installed in its environment, or not on its path\n"
        f"  hint: install them in that environment ({python} -m pip install ...), or give "
        "--python the interpreter of the environment where metaplug and tinyup are installed\n"
    )


def test_an_interpreter_with_upstream_alone_names_the_plugin_alone(
    runtime_trees: Path, tmp_path: Path, cli
) -> None:
    """An environment with upstream but not the plugin (vLLM installed, vllm-omni not) was
    told to "install them ... where vllm_omni are installed": one name is "it" and "is"."""
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    site = site_packages(python)
    Path(site, "tinyup.pth").write_text(f"{runtime_trees / 'upstream-1.0'}\n")
    run = cli("runtime", "check", "--python", str(python), cwd=runtime_trees / "plugin")
    version = ".".join(map(str, sys.version_info[:3]))
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {python}: metaplug cannot be imported by this interpreter "
        f"(Python {version}): not installed in its environment, or not on its path\n"
        f"  hint: install it in that environment ({python} -m pip install ...), or give "
        "--python the interpreter of the environment where metaplug is installed\n"
    )


def test_a_relative_interpreter_path_is_read_from_the_current_directory(
    runtime_trees: Path, cli
) -> None:
    """``--python ../env/bin/python`` names the file from where patchkeeper runs; the probe
    runs in another directory, where the same relative path named nothing (user report:
    "no such interpreter" for an interpreter that exists)."""
    plugin = runtime_trees / "plugin"
    (runtime_trees / "env" / "bin").mkdir(parents=True)
    os.symlink(sys.executable, runtime_trees / "env" / "bin" / "python")
    relative = "../env/bin/python"
    run = cli("runtime", "check", "--python", relative, cwd=plugin)
    version = ".".join(map(str, sys.version_info[:3]))
    assert (run.code, run.out) == (2, "")
    assert run.err.startswith(
        f"patchkeeper: error: {relative}: metaplug and tinyup cannot be imported by this "
        f"interpreter (Python {version}): "
    )


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("nan", "'nan' is not a number of seconds: give one above 0"),
        ("inf", "'inf' is not a number of seconds: give one above 0"),
        ("-1", "-1.0 is not in the range x>0."),
        ("0", "0.0 is not in the range x>0."),
        ("soon", "'soon' is not a valid number."),
    ],
)
def test_a_timeout_that_is_no_time_limit_is_refused(
    runtime_trees: Path, cli, given: str, said: str
) -> None:
    """``--timeout nan`` and ``inf`` failed inside the check (an internal error, exit 3), and
    ``-1`` or ``0`` ran it to say it "took more than -1 s"; each is refused before it runs."""
    run = cli("runtime", "check", "--python", sys.executable, "--timeout", given,
              cwd=runtime_trees / "plugin")  # fmt: skip
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines()[-1] == f"Error: Invalid value for '--timeout': {said}"


@pytest.mark.parametrize(
    ("init", "error", "fix"),
    [
        (
            "import torch_of_the_test  # noqa: F401\n",
            "ModuleNotFoundError: No module named 'torch_of_the_test'",
            "install torch_of_the_test in that environment ({python} -m pip install ...)",
        ),
        (
            'raise ImportError("libcuda.so.1: cannot open shared object file")\n',
            "ImportError: libcuda.so.1: cannot open shared object file",
            "make `{python} -c 'import tinyup'` work in that environment",
        ),
    ],
)
def test_an_upstream_found_but_failing_to_import_is_refused(
    runtime_trees: Path, tmp_path: Path, cli, init: str, error: str, fix: str
) -> None:
    """An upstream package the interpreter finds but whose import raises ``ImportError`` (a
    dependency missing) left every patch unchecked with "entry point ok" and exit 0 (or each
    entry "missing"): it is exit 2, naming the error, where it was raised and what to do."""
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    site = site_packages(python)
    fake = tmp_path / "fake"
    (fake / "tinyup").mkdir(parents=True)
    (fake / "tinyup" / "__init__.py").write_text(init)
    Path(site, "tinyup.pth").write_text(f"{fake}\n")
    Path(site, "metaplug.pth").write_text(f"{runtime_trees / 'plugin'}\n")
    run = cli("runtime", "check", "--python", str(python), cwd=runtime_trees / "plugin")
    version = ".".join(map(str, sys.version_info[:3]))
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {python}: tinyup is found but cannot be imported by this "
        f"interpreter (Python {version}): {error} (raised at {fake}/tinyup/__init__.py:1)\n"
        f"  hint: {fix.format(python=python)}, or give --python the interpreter of an "
        "environment where tinyup imports\n"
    )


def test_a_missing_interpreter_is_named_before_the_plugin(tmp_path: Path, cli) -> None:
    """In a directory with no plugin configured, ``--python`` given wrong was answered
    "the plugin package is not configured"; the interpreter the user typed is named first."""
    run = cli("runtime", "check", "--python", "env/bin/python", cwd=tmp_path)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        "patchkeeper: error: --python env/bin/python: no such file\n"
        "  hint: give --python the path of a Python executable (a virtual environment's "
        ".venv/bin/python)\n",
    )
