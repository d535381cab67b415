"""``runtime audit`` and ``runtime port`` run where there is no configuration when every input
is on the command line, as ``runtime inventory`` does (user report: "no patchkeeper
configuration here" for the README's example, because the subcommands share the names of the
series commands ``audit`` and ``port``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture
def bare(runtime_trees: Path) -> Path:
    """The fixture plugin with no ``[tool.patchkeeper]`` table, and an empty working directory."""
    pyproject = runtime_trees / "plugin" / "pyproject.toml"
    text = pyproject.read_text()
    pyproject.write_text(text[: text.index("[tool.patchkeeper]")])
    (runtime_trees / "elsewhere").mkdir()
    return runtime_trees


def _args(command: str) -> tuple[str, ...]:
    return ("runtime", command, "--plugin", "../plugin", "--package", "metaplug",
            "--from", "../upstream-1.0", "--to", "../upstream-2.0")  # fmt: skip


@pytest.mark.parametrize("command", ["audit", "port"])
def test_runtime_commands_need_no_configuration(bare: Path, cli, command: str) -> None:
    for version in ("1.0", "2.0"):  # no configuration: the upstream packages are vllm's
        shutil.copytree(bare / f"upstream-{version}/tinyup", bare / f"upstream-{version}/vllm")
    run = cli(*_args(command), cwd=bare / "elsewhere")
    assert run.code == 1
    if command == "audit":
        # Its entry point is in tinyup's group, not in vLLM's (the groups without a
        # configuration): nothing declares the plugin to vLLM, so what runs is untraced and
        # the entry neither its import nor that entry point reaches (its import commented
        # out) is to look at, never to remove; the entry point is another program's
        # loading all the same (tinyup reads its group), so the seven it reaches are audited.
        assert (run.err, run.out.splitlines()[-1]) == ("", "decision: look 1, retain 7")
    else:  # the entry not reached is left by hand; the files of the others are reviewed
        assert run.err.splitlines()[-1] == (
            "runtime port 1.0 -> 2.0: by hand 1, nothing to do 7; not written (--write applies it)"
        )
        assert run.out.count("Reviewed against 2.0.") == 4


@pytest.mark.parametrize("command", ["audit", "port"])
def test_a_tree_without_the_upstream_package_names_the_keys(bare: Path, cli, command: str) -> None:
    run = cli(*_args(command), cwd=bare / "elsewhere")
    assert run.code == 2
    assert run.err == (
        f"patchkeeper: error: {bare / 'upstream-1.0'}: no vllm package in this upstream tree\n"
        "  hint: give the directory holding the upstream package (an unpacked sdist); the "
        "packages looked for are [runtime] upstream-packages in the configuration (default: "
        'the import name of the configured upstream = "NAME", else vllm)\n'
    )
