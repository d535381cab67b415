"""``report``: the audit record (:mod:`patchkeeper.record.report`)."""

from __future__ import annotations

from typing import Any

import click

from patchkeeper.commands.cli import config_of, emit
from patchkeeper.commands.options import check_option, json_option, python_option, request_from
from patchkeeper.config import Config
from patchkeeper.record.report import ReportRequest, write_report
from patchkeeper.record.results import ReportResult


def run(config: Config, request: ReportRequest | None = None) -> ReportResult:
    """As :func:`patchkeeper.record.report.write_report`; no ``request`` (``upgrade``'s last
    step) is the default one."""
    return write_report(config, request or ReportRequest())


@click.command("report")
@python_option(
    "The audited interpreter (default: [tool.patchkeeper.report] python, else this one)."
)
@click.option("--html", is_flag=True, help="Also write the record as one self-contained page.")
@check_option("Write nothing; exit 1 if the record is stale or false.")
@json_option
@click.pass_context
def command(ctx: click.Context, /, as_json: bool, **_: Any) -> None:
    """Write the audit record (AUDIT.md): environment, decisions with evidence, validation."""
    emit(run(config_of(ctx), request_from(ctx, ReportRequest)), as_json)
