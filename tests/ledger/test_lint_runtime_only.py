"""A downstream of runtime patches alone, as ``init`` configures a vLLM plugin's source tree
(``[tool.patchkeeper]`` with ``upstream`` and ``pin``, ``[tool.patchkeeper.runtime]`` with the
package, no series): ``lint`` checks what it can without a series (the project's dependency
files against the pin, PK601), and the commands that read a series say that the downstream
has none and name the runtime commands. Before, every one of them stopped at
``patches/series: the series file does not exist`` with the advice to create it, so the
plugin's ``vllm==0.31.0`` requirement, left behind by an upgrade that moved the pin to 0.32.0,
was checked by nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import vllm_plugin_pyproject

#: A plugin's project file as ``init`` leaves it: the requirement the plugin is built
#: against, its entry point, and the keys the runtime commands read.
PYPROJECT = vllm_plugin_pyproject(
    "vllm-acme",
    "0.4.0",
    'acme = "vllm_acme:register"',
    dependencies=("vllm==0.31.0", "acme-kernels>=1.2"),
    package="vllm_acme",
    pin="{pin}",
    note="# patchkeeper settings, written by patchkeeper init (see docs/starting.md)",
)

PLUGIN = """\
def register() -> None:
    from vllm.engine.arg_utils import EngineArgs

    _orig = EngineArgs.create_model_config

    def _patched(self, *args, **kwargs):
        return _orig(self, *args, **kwargs)

    EngineArgs.create_model_config = _patched
"""

HINT = (
    "hint: no patch series here, runtime patches alone: lint checked the dependency files "
    "against the pin; 'patchkeeper runtime inventory' lists the runtime patches and their "
    "header findings"
)


def _plugin(root: Path, pin: str) -> Path:
    (root / "vllm_acme").mkdir(parents=True)
    (root / "vllm_acme" / "__init__.py").write_text(PLUGIN)
    (root / "pyproject.toml").write_text(PYPROJECT.format(pin=pin))
    return root


def test_lint_checks_the_dependency_files_of_a_runtime_plugin(cli, tmp_path: Path) -> None:
    plugin = _plugin(tmp_path / "vllm-acme", "0.32.0")
    run = cli("lint", cwd=plugin)
    assert (run.code, run.err) == (1, "")
    assert run.out.splitlines() == [
        'pyproject.toml:4: PK601 pins vllm==0.31.0, but pin = "0.32.0" in the '
        "[tool.patchkeeper] table of pyproject.toml: raise the requirement to 0.32.0 or lower "
        "pin in the [tool.patchkeeper] table of pyproject.toml, so that both name the release "
        "the project installs",
        "1 problem in 0 patches",
        HINT,
    ]
    data = json.loads(cli("lint", "--json", cwd=plugin).out)
    assert (data["exit_code"], data["patch_count"], data["unread"]) == (1, 0, [])
    assert [(f["code"], f["path"], f["line"]) for f in data["findings"]] == [
        ("PK601", "pyproject.toml", 4)
    ]


def test_lint_of_a_runtime_plugin_at_its_pin_passes(cli, tmp_path: Path) -> None:
    plugin = _plugin(tmp_path / "vllm-acme", "0.31.0")
    run = cli("lint", cwd=plugin)
    assert (run.code, run.out.splitlines(), run.err) == (0, ["no problems in 0 patches", HINT], "")


@pytest.mark.parametrize(
    "args",
    [
        ("status",),
        ("verify", "--target", "."),
        ("audit", "--to", "vllm==0.32.0"),
        ("port", "--to", "vllm==0.32.0"),
        ("ledger", "--check"),
        ("retire", "acme.patch", "--at", "0.32.0", "--why", "upstream"),
    ],
)
def test_series_commands_name_the_runtime_commands(
    cli, tmp_path: Path, args: tuple[str, ...]
) -> None:
    plugin = _plugin(tmp_path / "vllm-acme", "0.31.0")
    run = cli(*args, cwd=plugin)
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines() == [
        f"patchkeeper: error: {plugin / 'pyproject.toml'}:15: {args[0]} reads a patch series, "
        "and this downstream has none (patches/series does not exist): it carries the "
        "runtime patches of the package vllm_acme",
        "  hint: the runtime commands read them: 'patchkeeper runtime inventory', "
        "'patchkeeper runtime audit --to vllm==VERSION'; if the downstream carries a series "
        "as well, set 'series' in [tool.patchkeeper] to its file",
    ]
    assert sorted(p.name for p in plugin.iterdir()) == ["pyproject.toml", "vllm_acme"]


def test_a_series_set_and_missing_is_still_named(cli, tmp_path: Path) -> None:
    """A ``series`` the configuration sets is a setting gone wrong, not a runtime plugin's
    missing series: the error names that file, as before."""
    plugin = _plugin(tmp_path / "vllm-acme", "0.31.0")
    pyproject = plugin / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace('pin = "0.31.0"\n', 'pin = "0.31.0"\nseries = "p/s"\n')
    )
    run = cli("status", cwd=plugin)
    assert run.code == 2
    assert run.err.splitlines()[0] == (
        f"patchkeeper: error: {plugin / 'p' / 's'}: the series file does not exist"
    )
