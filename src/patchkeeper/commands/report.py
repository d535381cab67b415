"""``report``: the audit record (:mod:`patchkeeper.record.report`)."""

from __future__ import annotations

from pathlib import Path

import click

from patchkeeper.commands.cli import Settings, emit
from patchkeeper.commands.options import check_option, json_option, python_option
from patchkeeper.config import Config
from patchkeeper.record.report import write_report
from patchkeeper.record.results import ReportResult


def run(
    config: Config, *, python: Path | None = None, html: bool = False, check: bool = False
) -> ReportResult:
    """As :func:`patchkeeper.record.report.write_report`."""
    return write_report(config, python=python, html=html, check=check)


@click.command("report")
@python_option(
    "The audited interpreter (default: [tool.patchkeeper.report] python, else this one)."
)
@click.option("--html", is_flag=True, help="Also write the record as one self-contained page.")
@check_option("Write nothing; exit 1 if the record is stale or false.")
@json_option
@click.pass_obj
def command(
    settings: Settings, python: Path | None, html: bool, check: bool, as_json: bool
) -> None:
    """Write the audit record (AUDIT.md): environment, decisions with evidence, validation."""
    emit(run(settings.config(), python=python, html=html, check=check), as_json)
