"""Progress notes for steps that can take more than a second (a download, a tree scan), and
warnings about a step that failed without failing the command (evidence not saved).

Operations call :func:`note` and :func:`warn`; only ``main`` decides where they go (notes to
standard error when it is a terminal, warnings to standard error), so nothing below ``main``
prints.
"""

from __future__ import annotations

from collections.abc import Callable

_sink: Callable[[str], None] | None = None
_warning_sink: Callable[[str], None] | None = None


def set_sink(sink: Callable[[str], None] | None) -> None:
    """Send notes to ``sink`` (``None``: drop them)."""
    global _sink
    _sink = sink


def note(message: str) -> None:
    """Report a step that may take a while, e.g. ``fetching vllm==0.28.0 (sdist)``."""
    if _sink is not None:
        _sink(message)


def set_warning_sink(sink: Callable[[str], None] | None) -> None:
    """Send warnings to ``sink`` (``None``: drop them)."""
    global _warning_sink
    _warning_sink = sink


def warn(message: str) -> None:
    """Report something the user should know that does not fail the command, e.g. ``the
    evidence was not saved: ...``."""
    if _warning_sink is not None:
        _warning_sink(message)
