"""Progress notes for steps that can take more than a second (a download, a tree scan).

Operations call :func:`note`; only ``main`` decides where notes go (standard error, when it is
a terminal), so nothing below ``main`` prints.
"""

from __future__ import annotations

from collections.abc import Callable

_sink: Callable[[str], None] | None = None


def set_sink(sink: Callable[[str], None] | None) -> None:
    """Send notes to ``sink`` (``None``: drop them)."""
    global _sink
    _sink = sink


def note(message: str) -> None:
    """Report a step that may take a while, e.g. ``fetching vllm==0.28.0 (sdist)``."""
    if _sink is not None:
        _sink(message)
