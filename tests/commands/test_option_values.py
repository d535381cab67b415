"""An option that takes a value, given none before another option of the same command
(``runtime audit --from --to X``), is refused as a usage error naming both: click would
take ``--to`` as the value of ``--from`` (:func:`patchkeeper.commands.cli.refuse_option_as_value`).
Run through the real group with click's runner, before any command does anything."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from patchkeeper.commands.cli import refuse_option_as_value, refuse_other_tools_format_option
from patchkeeper.errors import TargetError
from patchkeeper.main import cli as group
from patchkeeper.system.option_values import blank, refuses_blank, refuses_empty
from patchkeeper.upstream.requirements import check_release_option


def _invoke(*args: str) -> tuple[int, str, str]:
    """``patchkeeper ARGS`` in-process: (exit code, standard output, standard error)."""
    result = CliRunner().invoke(group, list(args), prog_name="patchkeeper")
    return result.exit_code, result.stdout, result.stderr


def _usage_error(usage: str, message: str) -> str:
    """click's usage error of the command whose usage line is ``patchkeeper USAGE``."""
    command = usage.partition("[")[0].strip()
    return (
        f"Usage: patchkeeper {usage}\n"
        f"Try 'patchkeeper {command + ' ' if command else ''}--help' for help.\n\n"
        f"Error: {message}\n"
    )


def test_an_option_taken_as_the_value_of_another_is_refused() -> None:
    assert _invoke("runtime", "audit", "--from", "--to", "vllm==0.9.0") == (
        2,
        "",
        _usage_error("runtime audit [OPTIONS]", "--from needs a value; got the option --to"),
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("port", "--to", "--from=1.0"), "--to needs a value; got the option --from=1.0"),
        (("audit", "--to", "--json"), "--to needs a value; got the option --json"),
        (("apply", "--target", "-C"), "--target needs a value; got the option -C"),
    ],
)
def test_the_option_is_named_as_given(args: tuple[str, ...], message: str) -> None:
    """A value written as an option with its own value (``--from=1.0``) is refused too, as
    is a late ``-C`` (the group's, which every command also takes)."""
    code, out, err = _invoke(*args)
    assert (code, out, err.splitlines()[-1]) == (2, "", f"Error: {message}")


def test_the_value_is_looked_for_past_an_argument() -> None:
    """``retire NAME --at --why TEXT``: the argument before them is no option's value."""
    assert _invoke("retire", "fix.patch", "--at", "--why", "gone") == (
        2,
        "",
        _usage_error("retire [OPTIONS] NAME", "--at needs a value; got the option --why"),
    )


def test_the_groups_own_options() -> None:
    """``patchkeeper -C --config FILE apply``: the group's ``-C`` is refused the same way;
    the words after the command are the command's, not read for the group."""
    assert _invoke("-C", "--config", "x.toml", "apply") == (
        2,
        "",
        _usage_error("[OPTIONS] COMMAND [ARGS]...", "-C needs a value; got the option --config"),
    )


def test_a_command_line_after_the_arguments_is_not_read() -> None:
    """``record`` takes no option after its first argument (the validation command, whose
    own options follow): ``record pytest -C --json`` gives ``-C --json`` to pytest."""
    command = group.get_command(click.Context(group, info_name="patchkeeper"), "record")
    assert command is not None
    settings = command.context_settings  # as the group makes the command's context
    ctx = click.Context(command, info_name="record", parent=click.Context(group), **settings)
    assert refuse_option_as_value(ctx, ["pytest", "-C", "--json"]) is None
    with pytest.raises(click.BadOptionUsage) as refused:
        refuse_option_as_value(ctx, ["-C", "--json", "pytest"])
    assert refused.value.message == "-C needs a value; got the option --json"


@pytest.mark.parametrize(
    ("args", "usage", "typed"),
    [
        (("status", "--format", "json"), "status [OPTIONS]", "--format json"),
        (("audit", "--to", "x==1", "--output=json"), "audit [OPTIONS]", "--output=json"),
        (("runtime", "audit", "-o", "JSON"), "runtime audit [OPTIONS]", "-o JSON"),
        (("lint", "--format", "json"), "lint [OPTIONS]", "--format json"),
    ],
)
def test_json_asked_for_as_other_tools_ask_for_it(
    args: tuple[str, ...], usage: str, typed: str
) -> None:
    """``status --format json`` answered "No such option '--format'", and ``lint --format
    json`` that json is not one of text and github: neither said that ``--json`` is the way."""
    command = usage.partition("[")[0].strip()
    assert _invoke(*args) == (
        2,
        "",
        _usage_error(
            usage,
            f"{typed}: JSON output is asked for with --json (patchkeeper {command} --json ...)",
        ),
    )


@pytest.mark.parametrize(
    ("args", "usage", "message"),
    [
        (
            ("runtime", "audit", "--format", "markdown"),
            "runtime audit [OPTIONS]",
            "--format markdown: a Markdown report is written to a file with --markdown "
            "(patchkeeper runtime audit --markdown FILE ...)",
        ),
        (
            ("runtime", "inventory", "--format=md"),
            "runtime inventory [OPTIONS]",
            "--format=md: a Markdown report is written to a file with --markdown "
            "(patchkeeper runtime inventory --markdown FILE ...)",
        ),
        (
            ("runtime", "lock", "-o", "text"),
            "runtime lock [OPTIONS]",
            "-o text: text is what the command prints without an option: leave -o text out",
        ),
        (
            ("runtime", "audit", "--format", "yaml"),
            "runtime audit [OPTIONS]",
            "No such option '--format'. Did you mean '--from'?",
        ),
    ],
)
def test_markdown_or_text_asked_for_as_other_tools_ask_for_it(
    args: tuple[str, ...], usage: str, message: str
) -> None:
    """``runtime audit --format markdown`` answered "No such option '--format'. Did you mean
    '--from'?", a release option that has nothing to do with it: the command says that the
    Markdown report is ``--markdown FILE``, and that text needs no option. A format no
    command writes (``yaml``) keeps click's answer."""
    assert _invoke(*args) == (2, "", _usage_error(usage, message))


def test_markdown_to_a_command_without_a_markdown_report_is_left_to_click() -> None:
    """``runtime same-code`` writes no Markdown: ``--format markdown`` is not turned into
    advice to use an option it does not have."""
    command = group.get_command(click.Context(group, info_name="patchkeeper"), "runtime")
    assert isinstance(command, click.Group)
    sub = command.get_command(click.Context(command), "same-code")
    assert sub is not None
    ctx = click.Context(sub, info_name="same-code", parent=click.Context(command))
    assert refuse_other_tools_format_option(ctx, ["--format", "markdown"]) is None


def test_an_option_that_takes_the_word_json_keeps_it(tmp_path: Path) -> None:
    """``export -o json`` writes a file named ``json``; ``lint --format github`` is lint's."""
    command = group.get_command(click.Context(group, info_name="patchkeeper"), "export")
    assert command is not None
    ctx = click.Context(command, info_name="export", parent=click.Context(group))
    assert refuse_other_tools_format_option(ctx, ["HEAD", "-o", "json"]) is None
    assert refuse_other_tools_format_option(ctx, ["--", "--format", "json"]) is None


def test_a_value_in_one_word_reaches_the_command(cli, tmp_path: Path) -> None:
    """``--from=--to`` is a value, written so on purpose; the command says what it makes of
    it (here: a release that is an option)."""
    run = cli("runtime", "audit", "--from=--to", "--to", "vllm==0.9.0", cwd=tmp_path)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        "patchkeeper: error: --from has no value: --to is an option, which --from took as its "
        "value\n  hint: give --from its release first, e.g. --from NAME==VERSION (or a "
        "directory), then the other options\n",
    )


def _commands(
    group: click.Group, ctx: click.Context, path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], click.Command, click.Context]]:
    out = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        sub = click.Context(command, info_name=name, parent=ctx)
        if isinstance(command, click.Group):
            out += _commands(command, sub, (*path, name))
        else:
            out.append(((*path, name), command, sub))
    return out


def _value_options() -> list[tuple[tuple[str, ...], str]]:
    """(command path, option) for every option of every command that takes a value."""
    ctx = click.Context(group, info_name="patchkeeper")
    return [
        (path, option.opts[-1])
        for path, command, sub in _commands(group, ctx)
        for option in command.get_params(sub)
        if isinstance(option, click.Option) and not option.is_flag and not option.count
    ]


def test_every_command_taking_a_value_option_refuses() -> None:
    """Each value option of each command, given ``--help`` as its value, is refused by
    name: the refusal is the group's, for every command it loads."""
    found = _value_options()
    # 122 = each command's late -C and --config, and its own value options
    assert (len(found), (("runtime", "audit"), "--from") in found) == (122, True)
    refused = {(path, option): _invoke(*path, option, "--help")[::2] for path, option in found}
    assert {key: value for key, value in refused.items() if value[0] != 2} == {}
    assert {
        key: err.splitlines()[-1]
        for key, (_, err) in refused.items()
        if err.splitlines()[-1] != f"Error: {key[1]} needs a value; got the option --help"
    } == {}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("audit", "--to", ""), "--to needs a value"),
        (("audit", "--to="), "--to needs a value"),
        (("port", "--to", "minihttp==1.1", "--from", " "), "--from needs a value"),
        (("apply", "--target", ""), "--target needs a value"),
        (("upgrade", "--to", "x", "--markdown", ""), "--markdown needs a value"),
        (("init", "--upstream", ""), "--upstream needs a value"),
        (("-C", "", "status"), "-C needs a value"),
    ],
)
def test_an_empty_release_or_path_is_refused(args: tuple[str, ...], message: str) -> None:
    """An empty path is the current directory to ``pathlib`` and an empty release no
    requirement: the option is named as needing a value, before anything runs."""
    code, out, err = _invoke(*args)
    assert (code, out, err.splitlines()[-1]) == (2, "", f"Error: {message}")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("upgrade", "--to", "x", "--branch", ""), "--branch needs a value"),
        (("upgrade", "--to", "x", "--branch="), "--branch needs a value"),
        (("runtime", "inventory", "--package", " "), "--package needs a value"),
        (("runtime", "audit", "--to", "x", "--patch-dir", ""), "--patch-dir needs a value"),
        (("check-branch", "--tag", ""), "--tag needs a value"),
        (("export", "--range", ""), "--range needs a value"),
        (("lint", "--foreign-checkout", ""), "--foreign-checkout needs a value"),
    ],
)
def test_an_empty_name_is_refused(args: tuple[str, ...], message: str) -> None:
    """An empty branch, tag, package or range reads as the option left out (``upgrade
    --branch ''`` wrote on the branch checked out): refused as needing a value."""
    code, out, err = _invoke(*args)
    assert (code, out, err.splitlines()[-1]) == (2, "", f"Error: {message}")


@pytest.mark.parametrize(
    ("args", "usage", "option"),
    [
        (("verify", "--python= "), "verify [OPTIONS]", "--python"),
        (("verify", "--python", " "), "verify [OPTIONS]", "--python"),
        (("status", "--python=\t"), "status [OPTIONS]", "--python"),
        (("audit", "--to=  "), "audit [OPTIONS]", "--to"),
        (("upgrade", "--to", "x", "--branch= "), "upgrade [OPTIONS]", "--branch"),
        (("export", "-o", " "), "export [OPTIONS] [REV]", "-o"),
        (("-C ", "status"), "[OPTIONS] COMMAND [ARGS]...", "-C"),
        (("--config= ", "status"), "[OPTIONS] COMMAND [ARGS]...", "--config"),
    ],
)
def test_a_blank_value_is_refused_in_one_word_or_two(
    args: tuple[str, ...], usage: str, option: str
) -> None:
    """A value of spaces or a tab is no path, release or name: ``--python=' '`` is refused as
    ``--python ' '`` is, and as the MCP server refuses ``python: " "``."""
    assert _invoke(*args) == (2, "", _usage_error(usage, f"{option} needs a value"))


def test_every_option_refusing_an_empty_value_refuses_a_blank_one() -> None:
    """Each option that refuses ``''`` refuses ``' '`` and a tab too, given as one word
    (``--opt=' '``, ``-C' '``) or two: one rule (:func:`blank`) for the whole kind."""
    ctx = click.Context(group, info_name="patchkeeper")
    found = [
        (path, command, sub, option)
        for path, command, sub in _commands(group, ctx)
        for option in command.get_params(sub)
        if isinstance(option, click.Option) and refuses_empty(option)
    ]
    missed = []
    for path, command, sub, option in found:
        settings = command.context_settings
        here = click.Context(command, info_name=path[-1], parent=sub.parent, **settings)
        for name in option.opts:
            forms = [[name, " "], [name, "\t"]]
            forms += [[f"{name}= "], [f"{name}=\t"]] if name.startswith("--") else [[name + " "]]
            for words in forms:
                try:
                    refuse_option_as_value(here, words)
                except click.BadOptionUsage as exc:
                    if exc.message == f"{name} needs a value":
                        continue
                missed.append((path, words))
    # 116 = the 122 value options less lint --format, retire --at and --why, runtime lock
    # --at, runtime check --timeout and mcp --max-result-chars (a choice, the command's own
    # words, numbers)
    assert (len(found), missed) == (116, [])
    assert (blank(""), blank(" \t\n"), blank(" x ")) == (True, True, False)


@pytest.mark.parametrize(
    ("args", "usage", "argument"),
    [
        (("retire", " ", "--why", "gone"), "retire [OPTIONS] NAME", "NAME"),
        (("retire", "", "--why", "gone"), "retire [OPTIONS] NAME", "NAME"),
        (("export", " "), "export [OPTIONS] [REV]", "REV"),
        (("check-branch", "\t"), "check-branch [OPTIONS] [BRANCH]", "BRANCH"),
        (("runtime", "same-code", " ", "x.py"), "runtime same-code [OPTIONS] LEFT RIGHT", "LEFT"),
        (("runtime", "same-code", "x.py", ""), "runtime same-code [OPTIONS] LEFT RIGHT", "RIGHT"),
    ],
)
def test_a_blank_argument_is_refused_naming_it(
    args: tuple[str, ...], usage: str, argument: str
) -> None:
    """A blank patch name, commit or file reached the command, which said `` is not in the
    series`` (``retire ' '``) or that `` `` cannot be read: refused by the rule a blank
    option's value meets (:func:`blank`), naming the argument, before anything runs."""
    assert _invoke(*args) == (2, "", _usage_error(usage, f"{argument} needs a value"))


def test_every_argument_naming_something_refuses_a_blank_one() -> None:
    """Each positional argument of each command but a command line handed on (``record``'s)
    refuses a blank value: the group sets the rule on every command it loads."""
    ctx = click.Context(group, info_name="patchkeeper")
    arguments = [
        (path, argument.name, refuses_blank(argument))
        for path, command, sub in _commands(group, ctx)
        for argument in command.get_params(sub)
        if isinstance(argument, click.Argument)
    ]
    assert sorted(arguments) == [
        (("check-branch",), "branch", True),
        (("export",), "rev", True),
        (("record",), "command_line", False),
        (("retire",), "name", True),
        (("runtime", "same-code"), "left", True),
        (("runtime", "same-code"), "right", True),
    ]


def test_an_empty_release_from_python_is_refused() -> None:
    """The MCP tools call the commands' functions, past the command line's checks."""
    with pytest.raises(TargetError) as caught:
        check_release_option("", "--to", "minihttp", None)
    assert (caught.value.message, caught.value.hint) == (
        "--to needs a value",
        "give --to a release, e.g. --to minihttp==VERSION (or a directory)",
    )
