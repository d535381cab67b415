"""``export REV`` / ``export --range BASE..BRANCH``: write topic commits as patch files."""

from __future__ import annotations

from typing import Any

import click

from patchkeeper.commands.cli import FILE_PATH, config_of, emit
from patchkeeper.commands.options import (
    checkout_option,
    json_option,
    output_option,
    request_from,
    tag_option,
)
from patchkeeper.config import Config
from patchkeeper.ledger.export import ExportRequest, ExportResult, export_topics


def run(config: Config, request: ExportRequest) -> ExportResult:
    """Export the commit ``request.rev`` (to ``request.output``, default: its series name)
    or every topic commit of ``request.rev_range``; exactly one of the two is given (the
    command checks). A patch file that exists keeps its form unless ``request.normalise``
    (git's form then).

    Raises: as :func:`patchkeeper.ledger.export.export_topics`.
    """
    return export_topics(config, request)


@click.command("export")
@click.argument("rev", required=False)
@click.option("--range", "rev_range", metavar="BASE..BRANCH", help="Export every topic commit.")
@output_option(
    "The patch file to write (default: the topic's patch in the series, <topic>.patch if new).",
    FILE_PATH,
    "-o",
)
@checkout_option()
@tag_option()
@click.option(
    "--normalise",
    is_flag=True,
    help="Write git's form (diff --git, full ids, an exported-from line), not the file's own.",
)
@json_option
@click.pass_context
def command(ctx: click.Context, /, as_json: bool, **_: Any) -> None:
    """Write a commit (or every topic commit of --range) as a patch file."""
    request = request_from(ctx, ExportRequest)
    if (request.rev is None) == (request.rev_range is None):
        raise click.UsageError("give either a commit or --range BASE..BRANCH")
    config = config_of(ctx)
    if request.rev_range is not None and request.output is not None:
        raise click.UsageError("-o goes with a single commit, not --range")
    emit(run(config, request), as_json)
