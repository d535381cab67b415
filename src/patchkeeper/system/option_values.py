"""Which options refuse an empty value as "needs a value": one rule for the command line
(:func:`patchkeeper.commands.cli.refuse_option_as_value`) and the MCP server's check of a
call's arguments (:func:`patchkeeper.agents.calls.check_arguments`), so that ``--python ''``,
``--python=' '`` and ``python: " "`` are refused in the same words: a value is empty when it
is blank (:func:`blank`), however it was given."""

from __future__ import annotations

import click

from patchkeeper.constants import (
    OPTION_AT,
    OPTION_FROM,
    OPTION_PRISTINE,
    OPTION_PYTHON,
    OPTION_TARGET,
    OPTION_TO,
    OPTION_UPSTREAM,
    OPTION_WHY,
)

#: Options whose command refuses an empty value in its own words, which say more than "needs
#: a value": ``retire --why ''`` and ``--at ''`` name what the Retired table records and give
#: an example built from the downstream's upstream and pin.
JUDGED_WHEN_EMPTY = frozenset({OPTION_WHY, OPTION_AT})

#: The options that take a release (a requirement or a directory) without a path type
#: (``--at`` is not one: ``retire --at`` takes a version and says what it records).
RELEASE_OPTIONS = frozenset(
    {
        OPTION_TO,
        OPTION_FROM,
        OPTION_PRISTINE,
        OPTION_PYTHON,
        OPTION_TARGET,
        OPTION_UPSTREAM,
    }
)


def refuses_empty(option: click.Option) -> bool:
    """Whether an empty value of ``option`` is refused as "needs a value": a path, a
    release, or a name (a branch, a tag, a package), but not the options of
    :data:`JUDGED_WHEN_EMPTY`, a flag or a counter. An empty path is the current directory
    to ``pathlib``, an empty release no requirement at all, and an empty name reads as the
    option left out."""
    if option.is_flag or option.count:
        return False
    return bool(
        isinstance(option.type, click.Path)
        or (option.type is click.STRING and not set(option.opts) & JUDGED_WHEN_EMPTY)
        or set(option.opts) & RELEASE_OPTIONS
    )


def blank(value: str) -> bool:
    """Whether ``value`` is empty or only whitespace (``''``, ``' '``, a tab): a value no
    option that :func:`refuses_empty` takes means as it is given. A blank path is a file or
    directory named by spaces, which no one meant; a blank release, name or interpreter is
    none at all.

    >>> blank(""), blank(" \\t"), blank(" x ")
    (True, True, False)
    """
    return not value.strip()


def refuses_blank(argument: click.Argument) -> bool:
    """Whether a blank value (:func:`blank`) of the positional ``argument`` is refused: every
    one that names a patch, a file, a commit or a definition (one word, text or a path), not
    a command line handed on as it is (``record -- CMD ...``). A blank name is none: ``retire
    ' '`` said `` is not in the series``, ``runtime same-code ' ' x`` that `` `` cannot be
    read."""
    return argument.nargs == 1 and (
        argument.type is click.STRING or isinstance(argument.type, click.Path)
    )


def refuse_blank_argument(ctx: click.Context, param: click.Parameter, value: object) -> object:
    """``value`` as given, once checked: the callback of every positional argument that
    :func:`refuses_blank` (:func:`patchkeeper.main.prepare` sets it), so that a blank one is
    refused as a blank option's value is, naming the argument.

    Raises:
        click.BadArgumentUsage: ``NAME needs a value`` (exit 2).
    """
    if isinstance(value, str) and blank(value):
        raise click.BadArgumentUsage(f"{param.human_readable_name} needs a value", ctx)
    return value
