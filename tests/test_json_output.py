"""Every command's ``--json`` on the bundled example is one envelope (docs/json.md) that
validates against docs/json-schema.json; an error under ``--json`` is JSON too."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from helpers import EXAMPLE_SERIES, Example
from json_schema_check import output, schema_errors
from patchkeeper import __version__


def _directory(path: Path, version: str | None) -> dict[str, str | None]:
    return {"kind": "directory", "path": str(path), "name": "minihttp", "version": version}


def _head(data: dict, count: int = 3) -> tuple:
    return tuple(data.items())[:count]


def test_every_example_command_prints_the_envelope(cli, example: Example) -> None:
    target = example.target()
    down = example.downstream
    runs = [
        ("apply", 0, cli("apply", "--target", str(target), "--json", cwd=down)),
        ("verify", 0, cli("verify", "--target", str(target), "--json", cwd=down)),
        ("status", 0, cli("status", "--target", str(target), "--json", cwd=down)),
        ("unapply", 0, cli("unapply", "--target", str(target), "--json", cwd=down)),
        ("audit", 1, cli("audit", "--to", str(example.new), "--json", cwd=down)),
        ("ledger", 0, cli("ledger", "--check", "--json", cwd=down)),
        ("lint", 0, cli("lint", "--json", cwd=down)),
        ("decide", 0, cli("decide", "--json", cwd=down)),
        ("report", 1, cli("report", "--check", "--json", cwd=down)),
        ("port", 1, cli("port", "--to", str(example.new), "--json", cwd=down)),
        ("record", 0, cli("record", "--json", "--", sys.executable, "-c", "pass", cwd=down)),
        (
            "retire",
            0,
            cli("retire", "retry-backoff-cap", "--at", "1.1", "--why", "taken", "--json", cwd=down),
        ),
    ]
    seen = {}
    for command, code, run in runs:
        data = output(run.out)
        assert (run.code, _head(data)) == (
            code,
            (("command", command), ("patchkeeper_version", __version__), ("exit_code", code)),
        )
        seen[command] = data
    for command in ("apply", "verify", "status", "unapply"):
        assert seen[command]["target"] == _directory(target, "1.0")
        assert seen[command]["target_label"] == f"directory {target}"
    for command in ("audit", "port"):
        assert seen[command]["target"] == _directory(example.new, "1.1")
        assert seen[command]["target_version"] == "1.1"
    assert seen["apply"]["patches"] == EXAMPLE_SERIES
    assert (seen["apply"]["action"], seen["verify"]["detailed"]) == ("apply", False)
    lint = seen["lint"]
    assert {key: lint[key] for key in ("patch_count", "entry_count", "findings")} == {
        "patch_count": 7,
        "entry_count": 0,
        "findings": [],
    }
    assert not {"patches", "entries", "output_format"} & set(lint)
    assert seen["report"]["written_files"] == [] and "written" not in seen["report"]
    assert seen["ledger"]["written"] is False
    assert [patch["name"] for patch in seen["port"]["patches"]] == EXAMPLE_SERIES
    assert seen["record"]["path"] == str(down / ".patchkeeper" / "evidence" / "recorded.json")
    assert (seen["retire"]["name"], seen["retire"]["at"]) == ("retry-backoff-cap", "1.1")


def test_an_sdist_target_has_the_version_of_its_pkg_info(cli, example: Example) -> None:
    sdist = example.root / "minihttp-1.1.post1"
    shutil.copytree(example.new, sdist)
    (sdist / "pyproject.toml").unlink()
    (sdist / "PKG-INFO").write_text(
        "Metadata-Version: 2.1\nName: minihttp\nVersion: 1.1.post1\nSummary: x\n"
    )
    run = cli("audit", "--to", str(sdist), "--json", cwd=example.downstream)
    data = output(run.out)
    assert (run.code, data["target"], data["target_version"]) == (
        1,
        _directory(sdist, "1.1.post1"),
        "1.1.post1",
    )


def test_an_error_under_json_is_json_on_standard_output(cli, example: Example) -> None:
    run = cli("retire", "nope", "--at", "1.1", "--why", "gone", "--json", cwd=example.downstream)
    assert run.code == 2
    assert output(run.out) == {
        "command": "retire",
        "patchkeeper_version": __version__,
        "exit_code": 2,
        "error": {
            "message": "nope is not in the series",
            "file": str(example.downstream / "patches" / "series"),
            "line": None,
            "hint": "give the name as the series lists it, with or without .patch",
        },
    }
    assert run.err.startswith("patchkeeper: error: ")


def test_a_missing_configuration_and_a_usage_error_are_json(cli, tmp_path: Path) -> None:
    run = cli("apply", "--target", str(tmp_path), "--json", cwd=tmp_path)
    data = output(run.out)
    assert (run.code, data["command"], data["exit_code"]) == (2, "apply", 2)
    assert data["error"]["message"].startswith("no patchkeeper configuration here")
    assert data["error"]["hint"].startswith("run patchkeeper in the downstream")
    run = cli("runtime", "audit", "--bogus", "--json", cwd=tmp_path)
    assert (run.code, output(run.out)["error"]) == (
        2,
        {
            "message": "No such option '--bogus'.",
            "file": None,
            "line": None,
            "hint": "run 'patchkeeper runtime audit --help' to see how to call it",
        },
    )
    assert output(run.out)["command"] == "runtime audit"
    run = cli("nosuch", "--json", cwd=tmp_path)
    assert (run.code, output(run.out)["command"], output(run.out)["error"]["message"]) == (
        2,
        "",
        "No such command 'nosuch'.",
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("lnt",), "No such command 'lnt'. Did you mean 'lint'?"),
        (("aduit", "--to", "x"), "No such command 'aduit'. Did you mean 'audit'?"),
        (("runtime", "invetory"), "No such command 'invetory'. Did you mean 'inventory'?"),
        (("nosuch",), "No such command 'nosuch'."),
    ],
)
def test_a_mistyped_command_is_told_the_closest_one(
    cli, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    """A mistyped option was told the closest one (click's "Did you mean '--json'?"), a
    mistyped command only "No such command"; it is told the closest command too."""
    run = cli(*args, cwd=tmp_path)
    assert (run.code, run.out, run.err.splitlines()[-1]) == (2, "", f"Error: {message}")
    run = cli(*args, "--json", cwd=tmp_path)
    assert (run.code, output(run.out)["error"]["message"]) == (2, message)


def test_without_json_an_error_prints_nothing_on_standard_output(cli, tmp_path: Path) -> None:
    run = cli("apply", "--target", str(tmp_path), cwd=tmp_path)
    assert (run.code, run.out) == (2, "")


def test_the_schema_refuses_a_result_without_its_keys() -> None:
    lint = {"command": "lint", "patchkeeper_version": "0.1.0", "exit_code": 0}
    assert schema_errors(lint) == [
        ": 'entry_count' is a required property",
        ": 'findings' is a required property",
        ": 'patch_count' is a required property",
        ": 'skipped' is a required property",
    ]
    leaky = lint | {"findings": [], "patch_count": 7, "entry_count": 0, "skipped": []}
    assert schema_errors(leaky) == []
    [leak] = schema_errors(leaky | {"output_format": "text"})
    assert leak.endswith("should not be valid under {'anyOf': [{'required': ['output_format']}]}")
    old_target = {"command": "x", "patchkeeper_version": "0.1.0", "exit_code": 0, "target": "d"}
    assert schema_errors(old_target) == ["target: 'd' is not valid under any of the given schemas"]
    assert schema_errors(leaky | {"patches": 7}) == ["patches: 7 is not of type 'array'"]


def test_the_schema_states_the_one_shape_of_a_finding() -> None:
    """A finding of any command is code, path, line (1-based or null), message, hint; the
    shapes before it (``kind``/``file``, ``line`` 0) are refused."""
    head = {"command": "lint", "patchkeeper_version": "0.1.0", "exit_code": 1}
    lint = head | {"patch_count": 1, "entry_count": 0, "skipped": []}
    finding = {"code": "PK202", "path": "p/x.patch", "line": None, "message": "m", "hint": ""}
    assert schema_errors(lint | {"findings": [finding, finding | {"line": 3}]}) == []
    old = {"kind": "syntax", "message": "m", "file": "p/x.py", "line": 0}
    assert schema_errors(lint | {"findings": [old]}) == [
        "findings/0/line: 0 is less than the minimum of 1",
        "findings/0: 'code' is a required property",
        "findings/0: 'hint' is a required property",
        "findings/0: 'path' is a required property",
    ]


def test_the_upgrade_horizon_prints_the_envelope(cli, example: Example) -> None:
    run = cli(
        "audit",
        "--to",
        "minihttp>=1.0",
        "--releases",
        "../upstream",
        "--json",
        cwd=example.downstream,
    )
    data = output(run.out)
    assert (run.code, schema_errors(data)) == (1, [])
    assert (data["command"], data["requirement"], data["next_pin"]) == (
        "audit",
        "minihttp>=1.0",
        "1.0",
    )
    assert [release["version"] for release in data["releases"]] == ["1.0", "1.1", "1.2"]
    assert (data["target"], data["target_label"]) == (
        {
            "kind": "requirement",
            "path": str(example.root / "upstream"),
            "name": "minihttp",
            "version": None,
            "range": ">=1.0",
        },
        "minihttp>=1.0",
    )
    no_range = data | {"target": {k: v for k, v in data["target"].items() if k != "range"}}
    assert schema_errors(no_range) == ["target: 'range' is a required property"]


@pytest.mark.parametrize(
    ("args", "command"),
    [
        (("retire", "x", "--at", "1.1", "--json"), "retire"),  # a missing option
        (("runtime", "audit", "--json"), "runtime audit"),  # of a subcommand
        (("lint", "--format", "nope", "--json"), "lint"),  # a value that is not a choice
        (("report", "--json", "--python"), "report"),  # an option without its value
        (("port", "--json", "--to"), "port"),  # one that names a release
        (("runtime", "inventory", "--json", "--plugin"), "runtime inventory"),
        (("-C", ".", "runtime", "audit", "--json", "--from"), "runtime audit"),
        (("audit", "--bogus", "--json"), "audit"),  # an unknown option
        (("-C", "nowhere", "lint", "--json"), "lint"),  # a bad value of a global option
    ],
)
def test_a_usage_error_says_in_json_what_the_text_says(
    cli, tmp_path: Path, args: tuple[str, ...], command: str
) -> None:
    """The ``error`` message of the JSON envelope is the sentence the text output gives
    after ``Error:`` (click's own wording, the option as typed), not another one; the
    envelope's ``command`` is the command the words name, also when click stopped before
    that command's context was made (an option missing its value)."""
    text = cli(*(arg for arg in args if arg != "--json"), cwd=tmp_path)
    data = output(cli(*args, cwd=tmp_path).out)
    [said] = [line for line in text.err.splitlines() if line.startswith("Error: ")]
    assert text.code == data["exit_code"] == 2
    assert (data["command"], data["error"]["message"]) == (command, said.removeprefix("Error: "))


def test_init_prints_the_envelope_and_its_refusal(cli, example: Example) -> None:
    tree = example.root / "tree"
    shutil.copytree(example.old, tree)
    shutil.copytree(example.downstream / "patches", tree / "patches")
    run = cli("init", "--directory", "minihttp", "--json", cwd=tree)
    data = output(run.out)
    assert (run.code, _head(data), data["form"], data["patch_count"]) == (
        0,
        (("command", "init"), ("patchkeeper_version", __version__), ("exit_code", 0)),
        "quilt",
        7,
    )
    assert data["written_files"] == [str(tree / "patchkeeper.toml"), str(tree / "PATCHES.md")]
    run = cli("init", "--json", cwd=example.downstream)
    data = output(run.out)
    assert (run.code, data["command"], data["error"]["file"]) == (
        2,
        "init",
        str(example.downstream / "patchkeeper.toml"),
    )


def test_upgrade_prints_the_envelope(cli, example: Example) -> None:
    down = example.downstream
    run = cli("upgrade", "--to", str(example.new), "--json", cwd=down)
    data = output(run.out)
    assert (run.code, _head(data), data["outcome"]) == (
        1,
        (("command", "upgrade"), ("patchkeeper_version", __version__), ("exit_code", 1)),
        "stopped",
    )
    assert [step["name"] for step in data["steps"]] == [
        "audit",
        "runtime audit",
        "decide",
        "runtime port",
        "port",
        "report",
    ]
    run = cli("upgrade", "--abort", "--json", cwd=down)
    data = output(run.out)
    assert (run.code, data["outcome"], data["conflicts"], data["verify"]) == (0, "aborted", [], [])
    no_steps = {k: v for k, v in data.items() if k != "steps"}
    assert schema_errors(no_steps) == [": 'steps' is a required property"]


@pytest.mark.parametrize(
    ("args", "command", "message"),
    [
        (
            ("--json", "audit", "--to", "x"),
            "audit",
            "--json is an option of each command, not of patchkeeper itself: put it after the "
            "command (patchkeeper audit --json ...)",
        ),
        (
            ("-C", ".", "--json", "runtime", "audit"),
            "runtime audit",
            "--json is an option of each command, not of patchkeeper itself: put it after the "
            "command (patchkeeper runtime audit --json ...)",
        ),
        (
            ("runtime", "--json", "lock"),
            "runtime lock",
            "--json is an option of each command, not of patchkeeper runtime itself: put it "
            "after the command (patchkeeper runtime lock --json ...)",
        ),
        (
            ("--json",),
            "",
            "--json is an option of each command, not of patchkeeper itself: put it after the "
            "command (patchkeeper COMMAND --json ...)",
        ),
    ],
)
def test_json_before_the_command_says_where_it_goes(
    cli, tmp_path: Path, args: tuple[str, ...], command: str, message: str
) -> None:
    """``patchkeeper --json audit`` (a global ``--json``, as some tools take it) answered
    "No such option: --json. Did you mean '--version'?": the usage error (exit 2) says to
    put it after the command, and is still the JSON envelope of that command."""
    run = cli(*args, cwd=tmp_path)
    group = "patchkeeper runtime" if args[0] == "runtime" else "patchkeeper"
    hint = f"run '{group} --help' to see how to call it"
    assert (run.code, output(run.out)) == (
        2,
        {
            "command": command,
            "patchkeeper_version": __version__,
            "exit_code": 2,
            "error": {"message": message, "file": None, "line": None, "hint": hint},
        },
    )
    assert run.err.splitlines()[-1] == f"Error: {message}"


def test_another_command_option_before_the_command_says_where_it_goes(cli, tmp_path: Path) -> None:
    run = cli("--target", "x", "apply", cwd=tmp_path)
    assert (run.code, run.out, run.err.splitlines()[-1]) == (
        2,
        "",
        "Error: --target is an option of 'apply', not of patchkeeper itself: put it after the "
        "command (patchkeeper apply --target ...)",
    )
    run = cli("--bogus", "apply", cwd=tmp_path)
    assert (run.code, run.err.splitlines()[-1]) == (2, "Error: No such option '--bogus'.")
