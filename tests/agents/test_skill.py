"""The coding agents' skill (``skills/patchkeeper-upgrade/SKILL.md``) names only commands,
options and tools that exist: every ``patchkeeper ...`` command line in it (in a code block or
a code span) is parsed by the real command line's parser, so a renamed or removed option fails
here, and the MCP tools it lists are the server's."""

from __future__ import annotations

import re
import shlex

import click
import pytest
import yaml

from helpers import REPO
from patchkeeper.agents.tools import TOOLS
from patchkeeper.main import cli

SKILL = REPO / "skills" / "patchkeeper-upgrade" / "SKILL.md"
FENCE = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)
SPAN = re.compile(r"`(patchkeeper [^`]*)`")


def front_matter_and_body() -> tuple[dict, str]:
    text = SKILL.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    head, _, body = text[4:].partition("\n---\n")
    return yaml.safe_load(head), body


def command_lines(body: str) -> list[str]:
    """Every ``patchkeeper ...`` line of the ``sh`` blocks, then every code span."""
    lines = [
        line.strip()
        for block in FENCE.findall(body)
        for line in block.splitlines()
        if line.strip().startswith("patchkeeper ")
    ]
    return lines + SPAN.findall(FENCE.sub("", body))


def parse(line: str) -> click.Context:
    """Parse ``line`` as the command line does (no ``--help``, nothing run): the group's
    options, then each sub-command's, down to the command; the innermost context.

    Raises:
        click.UsageError: an unknown command or option, a missing value or required option.
    """
    words = shlex.split(line, comments=True)
    assert words[0] == "patchkeeper"
    context = cli.make_context("patchkeeper", words[1:])
    command: click.Command = cli
    while isinstance(command, click.Group):
        rest = [*getattr(context, "_protected_args", []), *context.args]
        name, sub, rest = command.resolve_command(context, rest)
        assert name is not None and sub is not None
        context = sub.make_context(name, rest, parent=context)
        command = sub
    return context


def test_the_skill_has_its_front_matter() -> None:
    meta, body = front_matter_and_body()
    assert sorted(meta) == ["description", "name"]
    assert meta["name"] == SKILL.parent.name == "patchkeeper-upgrade"
    assert 0 < len(meta["description"]) <= 1024
    assert body.lstrip().startswith("# Upgrading a downstream with patchkeeper")


def test_every_command_line_of_the_skill_parses() -> None:
    _, body = front_matter_and_body()
    lines = command_lines(body)
    commands = [parse(line).command_path for line in lines]
    assert commands == [
        "patchkeeper upgrade",
        "patchkeeper upgrade",
        "patchkeeper lint",
        "patchkeeper ledger",
        "patchkeeper audit",
        "patchkeeper audit",
        "patchkeeper port",
        "patchkeeper port",
        "patchkeeper port",
        "patchkeeper retire",
        "patchkeeper runtime inventory",
        "patchkeeper runtime audit",
        "patchkeeper runtime port",
        "patchkeeper runtime port",
        "patchkeeper runtime check",
        "patchkeeper apply",
        "patchkeeper verify",
        "patchkeeper ledger",
        "patchkeeper record",
        "patchkeeper decide",
        "patchkeeper report",
        "patchkeeper report",
        "patchkeeper ledger",
        "patchkeeper mcp",
    ]
    assert parse("patchkeeper port --continue").params["resume"] is True


@pytest.mark.parametrize(
    "line",
    ["patchkeeper audit --too X", "patchkeeper audit", "patchkeeper runtime sweep"],
)
def test_the_parser_refuses_what_the_command_line_refuses(line: str) -> None:
    with pytest.raises(click.UsageError):
        parse(line)


def test_the_skill_lists_the_servers_tools() -> None:
    _, body = front_matter_and_body()
    section = body.partition("## The same through MCP")[2]
    spans = set(re.findall(r"`([a-z_]+)`", section))
    assert {tool.name for tool in TOOLS} <= spans
    assert {span for span in spans if span.startswith("write_")} == {
        tool.name for tool in TOOLS if tool.writes
    }
