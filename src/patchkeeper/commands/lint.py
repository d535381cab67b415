"""``lint``: check the headers, the series, hand edits, the knob rule and the other entries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

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
