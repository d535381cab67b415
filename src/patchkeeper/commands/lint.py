"""``lint``: check the headers, the series, hand edits, the knob rule and the other entries."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from patchkeeper.commands.cli import config_of, emit
from patchkeeper.commands.options import (
    TreePath,
    checkout_option,
    json_option,
    markdown_option,
    request_from,
    upstream_option,
)
from patchkeeper.config import Config, spelt_for
from patchkeeper.ledger.lint import LintRequest, LintResult, lint_downstream


def run(config: Config, request: LintRequest) -> LintResult:
    """Lint the downstream as ``request`` says; the result's hint is spelt for the
    configuration file read, and says where the command ran from.

    Raises: as :func:`patchkeeper.ledger.lint.lint_downstream`.
    """
    result = lint_downstream(config, request)
    hint = spelt_for(result.hint, config.source)  # [headers] in a patchkeeper.toml
    return replace(result, cwd=_below_root(config.root), hint=hint)


def _below_root(root: Path) -> str:
    """The current directory relative to ``root`` when it is below it, else ``""``."""
    try:
        inside = Path.cwd().resolve().relative_to(root.resolve()).as_posix()
    except (OSError, ValueError):
        return ""
    return "" if inside == "." else inside


def _checkouts(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> dict[str, Path]:
    """``--foreign-checkout``'s values, ``[NAME=]PATH`` each, as ``{NAME or "": the
    resolved PATH}`` (a later one of the same name wins).

    Raises:
        click.BadParameter: a PATH that is not a directory (checked even when no entry
            needs a checkout, so a mistyped path is not ignored in silence).
    """
    out: dict[str, Path] = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep:
            name, path = "", value
        checkout = Path(path).resolve()
        if not checkout.is_dir():
            from patchkeeper.system.regular import not_a_directory

            there = not_a_directory(checkout) or "no such directory"
            raise click.BadParameter(
                f"{path}: {there.removeprefix('is ')}; give the checkout the foreign diffs and "
                "vendored trees are compared with"
            )
        out[name] = checkout
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
    type=TreePath("a pristine upstream is a tree (a directory)"),
)
@click.option(
    "--foreign-checkout",
    "foreign_checkouts",
    multiple=True,
    callback=_checkouts,
    metavar="[NAME=]PATH",
    help="A checkout for foreign diffs and vendored trees (all, or the entry NAME).",
)
@markdown_option("Also write the findings as Markdown.")
@json_option
@click.pass_context
def command(ctx: click.Context, /, markdown: Path | None, as_json: bool, **_: Any) -> None:
    """Check headers, the series, hand edits, the knob rule and the other entries."""
    emit(run(config_of(ctx), request_from(ctx, LintRequest)), as_json, markdown)
