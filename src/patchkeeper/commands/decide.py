"""``decide``: suggested decisions from the last evidence (:mod:`patchkeeper.record.decide`)."""

from __future__ import annotations

import click

from patchkeeper.commands.cli import Settings, emit
from patchkeeper.commands.options import json_option
from patchkeeper.config import Config
from patchkeeper.record.decide import decide
from patchkeeper.record.results import DecideResult


def run(config: Config) -> DecideResult:
    """As :func:`patchkeeper.record.decide.decide`."""
    return decide(config)


@click.command("decide")
@json_option
@click.pass_obj
def command(settings: Settings, as_json: bool) -> None:
    """Add suggested decisions from the last evidence; never change a decision that exists."""
    emit(run(settings.config()), as_json)
