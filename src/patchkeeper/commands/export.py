"""``export REV`` / ``export --range BASE..BRANCH``: write topic commits as patch files."""

from __future__ import annotations

from pathlib import Path

import click

from patchkeeper.commands.cli import FILE_PATH, Settings, emit
from patchkeeper.commands.options import checkout_option, json_option, output_option, tag_option
from patchkeeper.config import Config
from patchkeeper.ledger.export import ExportResult, export_commit, export_range


def run(
    config: Config,
    *,
    rev: str | None = None,
    rev_range: str | None = None,
    checkout: Path | None = None,
    output: Path | None = None,
    tag: str | None = None,
    normalise: bool = False,
) -> ExportResult:
    """Export the commit ``rev`` (to ``output``, default: its series name) or every topic
    commit of ``rev_range``; exactly one of the two is given (``main`` checks). A patch file
    that exists keeps its form unless ``normalise`` (git's form then).

    Raises: as :func:`patchkeeper.ledger.export.export_commit` and
        :func:`patchkeeper.ledger.export.export_range`.
    """
    if rev_range is not None:
        return export_range(config, rev_range, checkout=checkout, tag=tag, normalise=normalise)
    return export_commit(
        config, str(rev), checkout=checkout, output=output, tag=tag, normalise=normalise
    )


@click.command("export")
@click.argument("rev", required=False)
@click.option("--range", "rev_range", metavar="BASE..BRANCH", help="Export every topic commit.")
@output_option("The patch file.", FILE_PATH, "-o")
@checkout_option()
@tag_option()
@click.option(
    "--normalise",
    is_flag=True,
    help="Write git's form (diff --git, full ids, an exported-from line), not the file's own.",
)
@json_option
@click.pass_obj
def command(
    settings: Settings,
    rev: str | None,
    rev_range: str | None,
    output: Path | None,
    checkout: Path | None,
    tag: str | None,
    normalise: bool,
    as_json: bool,
) -> None:
    """Write a commit (or every topic commit of --range) as a patch file."""
    if (rev is None) == (rev_range is None):
        raise click.UsageError("give either a commit or --range BASE..BRANCH")
    config = settings.config()
    if rev_range is not None and output is not None:
        raise click.UsageError("-o goes with a single commit, not --range")
    result = run(
        config,
        rev=rev,
        rev_range=rev_range,
        checkout=checkout,
        output=output,
        tag=tag,
        normalise=normalise,
    )
    emit(result, as_json)
