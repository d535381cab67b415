"""Markdown forms of the series commands (the audit report lives in ``render/audit.py``)."""

from __future__ import annotations

from patchkeeper.render import markdown_renderer, render_text
from patchkeeper.trees.results import ApplyResult, VerifyResult


@markdown_renderer(ApplyResult)
@markdown_renderer(VerifyResult)
def fenced_text(result: object) -> str:
    """The terminal text in a code block."""
    return "```\n" + render_text(result) + "\n```\n"
