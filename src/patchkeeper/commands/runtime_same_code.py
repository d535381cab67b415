"""``runtime same-code LEFT RIGHT``: two files or ``FILE::QUALNAME`` definitions compared as
syntax trees without docstrings."""

from __future__ import annotations

import click

from patchkeeper.commands.cli import emit
from patchkeeper.commands.options import json_option
from patchkeeper.runtime.judge.samecode import SameCode, same_code


def run(left: str, right: str) -> SameCode:
    """Compare ``left`` and ``right``.

    Raises: as :func:`patchkeeper.runtime.judge.samecode.same_code`.
    """
    return same_code(left, right)


@click.command("same-code")
@click.argument("left")
@click.argument("right")
@json_option
def command(left: str, right: str, as_json: bool) -> None:
    """Compare two files or FILE::QUALNAME definitions as ASTs without docstrings."""
    emit(run(left, right), as_json)
