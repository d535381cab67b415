"""A tool given a file where it takes a directory (a tree, a checkout, the releases): the
error names the file as the call gave it and says what to pass, in the command line's own
words (the server runs the command line), not click's "Directory 'x' is a file."."""

from __future__ import annotations

from mcp import ClientSession
from mcp_support import talk

from helpers import Example

DOWN = {"directory": "downstream"}
NEW = "../upstream/minihttp-1.1"
CALLS = [
    ("verify", {**DOWN, "target": "../notes.txt"}, "target"),
    ("lint", {**DOWN, "checkout": "../notes.txt"}, "checkout"),
    ("lint", {**DOWN, "upstream": "../notes.txt"}, "upstream"),
    ("horizon", {**DOWN, "to": "minihttp>=1.0", "releases": "../notes.txt"}, "releases"),
    (
        "write_port_start",
        {**DOWN, "to": NEW, "upstream_repo": "../notes.txt", "write": True},
        "upstream_repo",
    ),
    ("write_port_start", {**DOWN, "to": NEW, "output": "../notes.txt", "write": True}, "output"),
]
#: notes.txt is no archive: it is not told to be unpacked (an sdist is: test_option_requirements)
TREE = "a target is an upstream tree (a directory), not a file in it: pass that directory"
CHECKOUT = "pass the checkout's directory (the working tree git clone made), not a file in it"
EXPECTED = [
    TREE,
    CHECKOUT,
    "a pristine upstream is a tree (a directory), not a file in it: pass that directory",
    "pass the directory of releases that holds it (NAME-VERSION subdirectories, sdist and "
    "wheel files)",
    CHECKOUT,
    "the new series is written into a directory: pass a directory's path",
]


def test_a_file_for_a_directory_is_named_with_what_to_pass(example: Example) -> None:
    (example.root / "notes.txt").write_text("not a tree\n")

    async def conversation(client: ClientSession) -> list[tuple[bool, int, str]]:
        answers = []
        for name, arguments, _ in CALLS:
            result = await client.call_tool(name, arguments)
            data = result.structured_content
            answers.append((result.is_error, data["exit_code"], data["error"]["message"]))
        return answers

    assert talk(example.root, conversation) == [
        (True, 2, f"Invalid value for `{key}`: ../notes.txt is a file; {instead}")
        for (_, _, key), instead in zip(CALLS, EXPECTED, strict=True)
    ]


def test_the_command_line_says_the_same(cli, example: Example) -> None:
    notes = example.root / "notes.txt"
    notes.write_text("not a tree\n")
    run = cli("lint", "--checkout", str(notes), cwd=example.downstream)
    assert run.code == 2
    assert run.err.splitlines()[-1] == (
        f"Error: Invalid value for '--checkout': {notes} is a file; {CHECKOUT}"
    )
    run = cli("-C", str(notes), "status")
    assert run.code == 2
    assert run.err.splitlines()[-1] == (
        f"Error: Invalid value for '-C': {notes} is a file; pass the downstream's directory "
        "(the one holding its configuration), not a file in it"
    )
