"""Every command line a message of patchkeeper's tells a user to run (``run patchkeeper
audit --to NEW --save-evidence``, ``pass report --python ...``) names a command that exists
and options that command takes: the texts are read from the source (each string and
f-string outside a docstring) and checked against the real command line, so a hint naming a
command or option that was renamed or never existed fails here, whatever produces it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import click

from patchkeeper.main import cli as group

SOURCE = Path(__file__).resolve().parents[2] / "src" / "patchkeeper"

#: ``patchkeeper WORD ...``, or ``run WORD --option`` / ``pass WORD --option`` (a command
#: named without the program's name, then one of its options).
MENTION = re.compile(
    r"(?P<run>\b(?:run|pass) ['`]?)?\bpatchkeeper (?P<words>[a-z][\w-]*(?: [^;,.)(`'\"&#]*)?)"
    r"|\b(?:run|pass) (?P<bare>[a-z][\w-]*(?: [a-z][\w-]*)? --[^;,.)(`'\"&#]*)"
)
#: What follows "run patchkeeper" that is no command: "run patchkeeper with a UTF-8
#: locale", "run patchkeeper in the downstream".
NOT_COMMANDS = frozenset({"with", "in"})


def _texts() -> list[tuple[str, int, str]]:
    """(file, line, text) of every string and f-string in the source, docstrings left out;
    an f-string's replacement fields read as ``{}``."""
    out = []
    for path in sorted(SOURCE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                first = node.body[0] if node.body else None
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                    docstrings.add(id(first.value))
        skip = docstrings | {
            id(value)
            for node in ast.walk(tree)
            if isinstance(node, ast.JoinedStr)
            for value in node.values
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                text = "".join(
                    v.value if isinstance(v, ast.Constant) else "{}" for v in node.values
                )
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in skip
            ):
                text = node.value
            else:
                continue
            out.append((str(path.relative_to(SOURCE)), node.lineno, text))
    return out


def _commands() -> dict[str, click.Command]:
    ctx = click.Context(group, info_name="patchkeeper")
    out: dict[str, click.Command] = {}
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        out[name] = command
        if isinstance(command, click.Group):
            sub = click.Context(command, info_name=name, parent=ctx)
            for inner in command.list_commands(sub):
                found = command.get_command(sub, inner)
                assert found is not None
                out[f"{name} {inner}"] = found
    return out


def _options(command: click.Command) -> set[str]:
    return {
        name
        for param in command.params
        if isinstance(param, click.Option)
        for name in (*param.opts, *param.secondary_opts)
    } | {"--help", "-C", "--config", "--json"}


def _wrong(words: str, commands: dict[str, click.Command], after_run: bool) -> str:
    """What is wrong with the command line ``words`` (after "patchkeeper "), ``""`` when
    nothing is (or when it is no command line: "patchkeeper reads UTF-8"). An option the
    command does not take is wrong anywhere; a command line the message says to run
    (``after_run``) also names an existing command, and when it gives options, every
    option the command requires ("left by 'patchkeeper runtime port --write'" is a
    description, not a command line to run)."""
    parts = words.split()
    name = parts[0]
    if name not in commands:
        return f"no command {name!r}" if after_run and name not in NOT_COMMANDS else ""
    if isinstance(commands[name], click.Group):
        if len(parts) < 2 or f"{name} {parts[1]}" not in commands:
            # "run patchkeeper runtime audit and lock again": a group named with a word
            if len(parts) > 1 and parts[1].startswith("-"):
                return f"{name} takes no option {parts[1]}"
            return "" if len(parts) < 2 or not after_run else f"no command {name} {parts[1]!r}"
        name = f"{name} {parts[1]}"
        parts = parts[1:]
    options = _options(commands[name])
    given = set()
    for word in parts[1:]:
        if word in ("--", "&&") or word.startswith("#"):
            break
        option = word.partition("=")[0]
        if option.startswith("-") and "{" not in option and option not in options:
            return f"{name} takes no option {option}"
        given.add(option)
    required = {
        param.opts[-1]
        for param in commands[name].params
        if isinstance(param, click.Option) and param.required
    }
    if after_run and given & options and required - given:
        # a command line to run, with its options: it has every option the command needs
        return f"{name} needs {', '.join(sorted(required - given))}"
    return ""


def test_every_command_line_a_message_names_exists() -> None:
    commands = _commands()
    checked, wrong = 0, []
    for path, line, text in _texts():
        for match in MENTION.finditer(text):
            words = match.group("words") or match.group("bare")
            problem = _wrong(words, commands, bool(match.group("run")))
            checked += words.split()[0] in commands
            if problem:
                wrong.append(f"{path}:{line}: {match.group(0).strip()!r}: {problem}")
    assert wrong == []
    assert checked > 100  # the check reads the messages, not nothing
