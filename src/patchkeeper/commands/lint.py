"""``lint``: check the headers, the series, hand edits, the knob rule and the other entries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import click

from patchkeeper.commands.cli import DIRECTORY_PATH, Settings, emit
from patchkeeper.commands.options import (
    checkout_option,
    json_option,
    markdown_option,
    upstream_option,
)
from patchkeeper.config import Config, spelt_for
from patchkeeper.ledger.lint import LintResult, lint_downstream


def run(
    config: Config,
    *,
    output_format: str = "text",
    checkout: Path | None = None,
    upstream: Path | None = None,
    foreign_checkouts: Mapping[str, Path] | None = None,
) -> LintResult:
    """Lint the downstream; ``output_format`` is ``"text"`` or ``"github"``.

    Raises: as :func:`patchkeeper.ledger.lint.lint_downstream`.
    """
    result = lint_downstream(
        config,
        output_format=output_format,
        checkout=checkout,
        upstream=upstream,
        foreign_checkouts=foreign_checkouts,
    )
    hint = spelt_for(result.hint, config.source)  # [headers] in a patchkeeper.toml
    return replace(result, cwd=_below_root(config.root), hint=hint)


def _below_root(root: Path) -> str:
    """The current directory relative to ``root`` when it is below it, else ``""``."""
    try:
        inside = Path.cwd().resolve().relative_to(root.resolve()).as_posix()
    except (OSError, ValueError):
        return ""
    return "" if inside == "." else inside


def _checkouts(values: tuple[str, ...]) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep:
            name, path = "", value
        out[name] = Path(path).resolve()
    return out


@click.command("lint")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "github"]),
    default="text",
    help="text: file:line: code message; github: workflow annotations.",
)
@checkout_option("An upstream git checkout: compare each patch with a re-export of its commit.")
@upstream_option(
    "A pristine upstream tree: knobs its registry names count as registered.",
    type=DIRECTORY_PATH,
)
@click.option(
    "--foreign-checkout",
    "foreign",
    multiple=True,
    metavar="[NAME=]PATH",
    help="A checkout for foreign diffs and vendored trees (all, or the entry NAME).",
)
@markdown_option("Also write the findings as Markdown.")
@json_option
@click.pass_obj
def command(
    settings: Settings,
    output_format: str,
    checkout: Path | None,
    upstream: Path | None,
    foreign: tuple[str, ...],
    markdown: Path | None,
    as_json: bool,
) -> None:
    """Check headers, the series, hand edits, the knob rule and the other entries."""
    result = run(
        settings.config(),
        output_format=output_format,
        checkout=checkout,
        upstream=upstream,
        foreign_checkouts=_checkouts(foreign),
    )
    emit(result, as_json, markdown)
