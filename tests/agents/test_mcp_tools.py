"""The MCP tools without a server: the schemas read from the click commands, the command line
a call runs, the root and write rules, the contract shipped in the package, and ``mcp``
without the SDK."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import click
import pytest

from helpers import REPO, Example
from patchkeeper.agents.calls import (
    ENVIRONMENT_PROBE,
    CallRefused,
    check_arguments,
    check_configured_places,
    check_environment,
    check_installed_target,
    check_paths,
    check_write,
    command_line,
)
from patchkeeper.agents.schemas import SCHEMA_FILE, output_schema
from patchkeeper.agents.tools import TOOLS, ToolSpec, find_tool, input_schema, read_only_refusal
from patchkeeper.main import cli


def tool(name: str) -> ToolSpec:
    found = find_tool(name)
    assert found is not None
    return found


def test_the_package_ships_the_docs_json_schema_byte_for_byte() -> None:
    """The server reads the contract from the package (an installed wheel has no docs/); the
    copy must be the very file docs/ publishes: change docs/json-schema.json, then copy it to
    src/patchkeeper/json-schema.json."""
    docs = (REPO / "docs" / SCHEMA_FILE).read_bytes()
    assert (REPO / "src" / "patchkeeper" / SCHEMA_FILE).read_bytes() == docs


def test_an_output_schema_keeps_the_commands_entries_and_the_error_entry() -> None:
    schema = output_schema("audit")
    kept = [entry["if"] for entry in schema["allOf"]]
    assert kept[0] == {"required": ["error"]}
    assert {entry["properties"]["command"]["const"] for entry in kept[1:]} == {"audit"}
    assert len(kept) == 4  # the error, one release, a range (listed twice in the contract)
    assert schema["$defs"] == output_schema("verify")["$defs"]


def test_every_tool_names_a_command_and_places_every_parameter() -> None:
    for spec in TOOLS:
        schema = input_schema(spec, cli)  # raises on a parameter without a path rule
        assert schema["additionalProperties"] is False
        assert ("write" in schema["properties"]) is spec.writes, spec.name
        assert spec.name.startswith("write_") is spec.writes, spec.name


def test_a_text_option_without_a_path_rule_is_refused() -> None:
    group = click.Group("patchkeeper", commands=[click.Command("new", params=[
        click.Option(["--somewhere"], help="A place.")])])  # fmt: skip
    with pytest.raises(ValueError) as raised:
        input_schema(ToolSpec("new", ("new",)), group)
    assert str(raised.value) == (
        "the parameter 'somewhere' has no path rule: add it to _TEXT_RULES"
    )
    # a tool's note about a parameter it does not have is refused the same way
    group = click.Group("patchkeeper", commands=[click.Command("new")])
    with pytest.raises(ValueError) as raised:
        input_schema(ToolSpec("new", ("new",), notes=(("to", "(A range.)"),)), group)
    assert str(raised.value) == "tool new: a note names no parameter of it: 'to'"


def test_a_blank_positional_argument_is_refused_as_the_command_line_refuses_it() -> None:
    """A tool whose command takes a positional argument (a patch, a file) refuses it blank,
    by the command line's rule (:func:`patchkeeper.system.option_values.refuses_blank`),
    before the command would read ``" "`` as a name; a name is let through."""
    group = click.Group("patchkeeper", commands=[click.Command("new", params=[
        click.Argument(["patch"], type=click.Path())])])  # fmt: skip
    new = ToolSpec("new", ("new",))
    for value in ("", " ", "\t"):
        with pytest.raises(CallRefused) as raised:
            check_arguments(new, group, {"patch": value})
        assert (raised.value.message, raised.value.hint) == (
            "patch needs a value",
            "give patch a value (tools/list describes it)",
        )
    assert check_arguments(new, group, {"patch": "fix.patch"}) is None


def test_the_command_line_of_a_call() -> None:
    assert command_line(tool("write_port_continue"), cli, {"directory": "down", "write": True}) == [
        "-C",
        "down",
        "port",
        "--continue",
        "--json",
    ]
    arguments = {
        "config": "down/patchkeeper.toml",
        "foreign_checkout": ["a=../x", "../y"],
        "upstream": "-odd",
    }
    assert command_line(tool("lint"), cli, arguments) == [
        "--config=down/patchkeeper.toml",
        "lint",
        "--upstream=-odd",
        "--foreign-checkout=a=../x",
        "--foreign-checkout=../y",
        "--json",
    ]
    port = {"to": "x==2", "in_place": True, "retire": False, "write": True}
    assert command_line(tool("write_port_start"), cli, port) == [
        "port",
        "--to=x==2",
        "--in-place",
        "--json",
    ]
    # save_evidence false keeps nothing, whatever the configuration says
    port["save_evidence"] = False
    assert command_line(tool("write_port_start"), cli, port) == [
        "port",
        "--to=x==2",
        "--in-place",
        "--no-save-evidence",
        "--json",
    ]
    assert command_line(tool("verify"), cli, {"target": "t"}) == [
        "verify",
        "--no-save-evidence",
        "--target=t",
        "--json",
    ]


def test_a_read_only_tool_refuses_the_options_that_write_a_file() -> None:
    """Refused saying so where the command has the option; elsewhere the schema refuses it
    as any argument it does not list."""
    assert read_only_refusal(tool("runtime_audit"), cli, "evidence") == (
        "runtime_audit is read-only and writes nothing: it takes no evidence",
        "it keeps no evidence, whatever evidence = true in the configuration says; to keep "
        "the result in .patchkeeper/evidence/, run 'patchkeeper runtime audit "
        "--save-evidence' in a terminal",
    )
    assert read_only_refusal(tool("lint"), cli, "markdown") == (
        "lint is read-only and writes nothing: it takes no markdown",
        "the call's result is the JSON envelope; to write the Markdown report, run "
        "'patchkeeper lint --markdown FILE' in a terminal",
    )
    assert read_only_refusal(tool("horizon"), cli, "evidence", "vllm>=0.28,<0.34") == (
        "horizon is read-only and writes nothing: it takes no evidence",
        "a range's audit keeps no evidence in a terminal either: --save-evidence keeps one "
        "release's audit; to keep one release's in .patchkeeper/evidence/, run 'patchkeeper "
        "audit --to vllm==VERSION --save-evidence' in a terminal",
    )
    assert read_only_refusal(tool("runtime_audit"), cli, "evidence", "vllm>=0.28") == (
        read_only_refusal(tool("runtime_audit"), cli, "evidence")  # it takes no range
    )
    assert read_only_refusal(tool("status"), cli, "save_evidence") is None
    assert read_only_refusal(tool("report_check"), cli, "evidence") is None
    assert read_only_refusal(tool("write_port_start"), cli, "save_evidence") is None
    assert read_only_refusal(tool("verify"), cli, "target") is None


def test_a_read_only_tool_of_an_evidence_command_runs_it_keeping_nothing() -> None:
    """Every read-only tool whose command can keep evidence gives ``--no-save-evidence``, so
    that ``evidence = true`` in a configuration does not make it write; the others give no
    such option, and a writing tool leaves the choice to the call."""
    keeping = {
        spec.name
        for spec in TOOLS
        if not spec.writes and "--no-save-evidence" in command_line(spec, cli, {})
    }
    assert keeping == {"audit", "horizon", "verify", "runtime_inventory", "runtime_audit"}
    assert "--no-save-evidence" not in command_line(tool("write_port_start"), cli, {})


def test_what_the_root_takes_and_refuses(example: Example, tmp_path: Path) -> None:
    root = example.root.resolve()
    audit = tool("audit")
    # requirements and ranges are not paths; directories inside the root are taken
    for to in ("urllib3==1.26.20", "minihttp>=1.0,<1.2", "../upstream/minihttp-1.1"):
        check_paths(audit, cli, {"directory": "downstream", "to": to}, root)
    # an interpreter whose link leads out, in an environment inside the root
    venv = root / "downstream" / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").symlink_to(sys.executable)
    check_paths(tool("verify"), cli, {"python": "downstream/.venv/bin/python"}, root)
    runtime = tool("runtime_audit")
    check_paths(runtime, cli, {"from": "a==1", "to": "a==2", "patch_dir": "pkg/patch"}, root)

    def refused(spec: ToolSpec, arguments: dict) -> str:
        with pytest.raises(CallRefused) as raised:
            check_paths(spec, cli, arguments, root)
        return f"{raised.value.path}: {raised.value.message}"

    assert refused(tool("verify"), {"python": sys.executable}) == (
        f"{sys.executable}: python leads outside the server's root {root}"
    )
    assert refused(runtime, {"from": "a==1", "to": "a==2", "patch_dir": "../x"}) == (
        "../x: patch_dir must be a relative path inside its directory, without '..'"
    )
    assert refused(audit, {"to": "minihttp @ file:///etc/minihttp"}) == (
        "None: to 'minihttp @ file:///etc/minihttp' is a direct reference (NAME @ URL), "
        "which may name a file outside the server's root"
    )
    with pytest.raises(CallRefused) as raised:
        check_paths(audit, cli, {"to": "./a\0b"}, root)
    assert raised.value.message == "to is not a usable path: embedded null byte"
    assert refused(audit, {"to": "~"}) == f"~: to leads outside the server's root {root}"
    assert refused(
        tool("write_runtime_port"),
        {"from": "a==1", "to": "a==2", "output": str(tmp_path / "d.diff")},
    ) == (f"{tmp_path / 'd.diff'}: output leads outside the server's root {root}")


def test_a_configuration_that_writes_outside_the_root_is_refused(
    example: Example, tmp_path: Path
) -> None:
    """A call names paths inside the root only, but the downstream's configuration (a file
    inside the root an agent can edit) could put the series outside it: ``write_port_start``
    then wrote the ported patches there. A writing tool is refused before it runs; a
    read-only one is not, since it writes nothing."""
    root = example.root.resolve()
    config = root / "downstream" / "patchkeeper.toml"
    outside = tmp_path / "elsewhere"
    shutil.copytree(root / "downstream" / "patches", outside / "patches")
    arguments = {"directory": "downstream", "to": "../upstream/minihttp-1.1", "write": True}
    check_configured_places(tool("write_port_start"), arguments, root)  # as the example is
    text = config.read_text()
    assert 'series = "patches/series"' in text
    config.write_text(
        text.replace('series = "patches/series"', f'series = "{outside}/patches/series"')
    )
    with pytest.raises(CallRefused) as raised:
        check_configured_places(tool("write_port_start"), arguments, root)
    assert (raised.value.path, raised.value.message, raised.value.hint) == (
        outside / "patches",
        f"write_port_start: the series (series) is outside the server's root {root}",
        "set it to a path inside the root in the downstream's configuration, or start the "
        "server with a --root that holds it",
    )
    check_configured_places(tool("audit"), arguments, root)
    # the decisions file, through a relative path leading out of the root
    config.write_text(text + '\n[report]\ndecisions-file = "../../decisions.toml"\n')
    with pytest.raises(CallRefused) as raised:
        check_configured_places(tool("write_decide"), {"directory": "downstream"}, root)
    assert raised.value.message.startswith("write_decide: the decisions file (decisions-file")
    assert raised.value.path == (root / "downstream" / "../../decisions.toml").resolve()


def test_a_write_to_the_installed_upstream_is_refused(tmp_path: Path) -> None:
    """``write_apply`` without ``target`` patched the upstream installed in the server's own
    environment (its site-packages, outside the root); ``verify`` reads it, and may. A link
    in the root to an interpreter outside it writes outside it too; a virtual environment
    inside the root is taken."""
    import venv

    root = (tmp_path / "root").resolve()
    venv.create(root / "env", with_pip=False)
    (root / "bin").mkdir()
    (root / "bin" / "python").symlink_to(sys.executable)

    def probe(python: str) -> None:
        interpreter = check_installed_target(tool("write_apply"), cli, {"python": python}, root)
        assert interpreter == root / python
        done = subprocess.run(
            [str(interpreter), *ENVIRONMENT_PROBE], capture_output=True, text=True, check=True
        )
        check_environment(tool("write_apply"), interpreter, done.stdout, root)

    with pytest.raises(CallRefused) as raised:
        probe("bin/python")
    assert raised.value.message.startswith(
        "write_apply: --python installs into /"
    ) and raised.value.message.endswith(f", outside the server's root {root}")
    assert raised.value.path == root / "bin" / "python"
    probe("env/bin/python")
    with pytest.raises(CallRefused) as raised:
        check_installed_target(tool("write_apply"), cli, {"directory": "downstream"}, root)
    assert (raised.value.message, raised.value.hint) == (
        "write_apply without target writes to the upstream installed in the server's own "
        "environment, outside the root",
        "pass target (a tree inside the root, such as a copy of the release) or python (the "
        "interpreter of an environment inside the root)",
    )
    assert check_installed_target(tool("write_apply"), cli, {"target": "t"}, root) is None
    assert check_installed_target(tool("verify"), cli, {"directory": "downstream"}, root) is None
    assert (
        check_installed_target(tool("write_decide"), cli, {"directory": "downstream"}, root) is None
    )


def test_the_write_rule() -> None:
    check_write(tool("audit"), {})
    check_write(tool("write_apply"), {"write": True})
    for arguments in ({}, {"write": False}, {"write": "true"}):
        with pytest.raises(CallRefused):
            check_write(tool("write_apply"), arguments)


def test_mcp_without_the_sdk_says_how_to_install_it(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # what an environment without it imports
    run = cli("mcp", "--root", str(tmp_path), cwd=tmp_path)
    assert (run.code, run.out) == (2, "")
    # not "pip install 'patchkeeper[mcp]'": no package index holds patchkeeper
    assert run.err == (
        "patchkeeper: error: the MCP server needs the mcp package, an optional extra of "
        f"patchkeeper\n  hint: install it into the environment patchkeeper runs in: "
        f"{sys.executable} -m pip install 'mcp<3,>=2.3' (installed with pipx: pipx inject "
        "patchkeeper 'mcp<3,>=2.3'; or install patchkeeper again with its mcp extra, as "
        "docs/agents.md shows)\n"
    )


def test_mcp_refuses_a_root_that_is_not_a_directory(cli, tmp_path: Path) -> None:
    run = cli("mcp", "--root", str(tmp_path / "nope"), cwd=tmp_path)
    assert run.code == 2
    assert run.err == (
        f"patchkeeper: error: {tmp_path / 'nope'}: the server's root is not a directory\n"
        "  hint: pass --root a directory that exists (default: the current directory)\n"
    )
    assert os.listdir(tmp_path) == []


def test_mcp_refuses_a_root_that_is_a_file(cli, tmp_path: Path) -> None:
    """A file given for ``--root`` is refused in the form of every other error, naming it
    and saying what to pass (click's own check answered with its usage text)."""
    (tmp_path / "patchkeeper.toml").write_text('upstream = "minihttp"\n')
    run = cli("mcp", "--root", "patchkeeper.toml", cwd=tmp_path)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        "patchkeeper: error: patchkeeper.toml: the server's root is a file, not a directory\n"
        "  hint: pass --root the directory the tools work in, such as the downstream's "
        "(default: the current directory)\n",
    )
    assert os.listdir(tmp_path) == ["patchkeeper.toml"]


@pytest.mark.slow
def test_a_built_wheel_carries_the_contract(tmp_path: Path) -> None:
    """The server reads its output schemas from the installed package: the wheel holds
    ``patchkeeper/json-schema.json`` (built from a copy of the project, so the work tree gets
    no ``build/``; pip fetches the build backend as for any install)."""
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, project / name)
    shutil.copytree(REPO / "src", project / "src", ignore=shutil.ignore_patterns("*.egg-info",
                    "__pycache__"))  # fmt: skip
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path / "dist"),
         str(project)],
        check=True, capture_output=True,
    )  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("patchkeeper-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        data = archive.read("patchkeeper/json-schema.json")
    assert data == (REPO / "docs" / SCHEMA_FILE).read_bytes()
