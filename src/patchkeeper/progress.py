"""Progress notes and bars for steps that can take more than a second (a download, a tree
scan), and warnings about a step that failed without failing the command (evidence not saved).

Operations call :func:`note`, :func:`track` and :func:`warn`; only ``main`` decides where they
go (notes and bars to standard error when it is a terminal, warnings to standard error), so
nothing below ``main`` prints. The bar itself (``rich.progress``) is drawn by
:mod:`patchkeeper.render.console`; this module only holds the hooks, so that the low layers
that report progress import nothing of ``rich``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol

_sink: Callable[[str], None] | None = None
_clear: Callable[[], None] | None = None
_warning_sink: Callable[[str], None] | None = None
#: The warnings given since the last :func:`take_warnings`, for the ``--json`` envelope.
_given: list[str] = []


class Advance(Protocol):
    """What a running step reports: ``advance(amount)`` after each piece of work (bytes
    downloaded, files scanned)."""

    def __call__(self, amount: int = 1) -> None: ...


#: ``factory(description, total, unit)`` opens a bar: ``total`` is ``None`` when unknown,
#: ``unit`` is ``"bytes"`` or ``"files"``; the context manager yields its :class:`Advance`.
BarFactory = Callable[[str, "int | None", str], AbstractContextManager[Advance]]

_bar_factory: BarFactory | None = None


def set_sink(sink: Callable[[str], None] | None, clear: Callable[[], None] | None = None) -> None:
    """Send notes to ``sink`` (``None``: drop them); ``clear()`` takes the last one off the
    screen (a note is a transient status line: see :func:`clear_note`)."""
    global _sink, _clear
    _sink = sink
    _clear = clear


def note(message: str) -> None:
    """Report a step that may take a while, e.g. ``fetching vllm==0.28.0 (sdist)``; it
    stands until the next note, a bar, a warning or the command's output replaces it."""
    if _sink is not None:
        _sink(message)


def clear_note() -> None:
    """Take the last note off the screen: ``main`` calls it before it prints a warning, the
    result or an error, and when the command ends, so that no status line is left behind."""
    if _clear is not None:
        _clear()


def set_bar_factory(factory: BarFactory | None) -> None:
    """Draw progress bars with ``factory`` (``None``: draw none, the default)."""
    global _bar_factory
    _bar_factory = factory


def _ignore(amount: int = 1) -> None:
    """The :class:`Advance` of a step nobody watches."""


@contextmanager
def track(description: str, total: int | None, unit: str = "files") -> Iterator[Advance]:
    """Report the progress of one long step: ``with track("downloading x.tar.gz", size,
    "bytes") as advance: ... advance(len(chunk))``.

    Args:
        description: what the step does, ``"scanning vllm-0.28.0"``.
        total: how many units the step has in all (bytes, files); ``None`` when unknown.
        unit: ``"bytes"`` (a bar shows bytes and rate) or ``"files"`` (a count).

    Without a bar factory (standard error is not a terminal, or a test) the step runs
    unwatched and nothing is printed.
    """
    if _bar_factory is None:
        yield _ignore
        return
    with _bar_factory(description, total, unit) as advance:
        yield advance


def set_warning_sink(sink: Callable[[str], None] | None) -> None:
    """Send warnings to ``sink`` (``None``: drop them), from a command's start: the
    warnings kept for its envelope start empty."""
    global _warning_sink
    _warning_sink = sink
    _given.clear()


def warn(message: str) -> None:
    """Report something the user should know that does not fail the command, e.g. ``the
    evidence was not saved: ...``: on standard error (the sink ``main`` sets) and, kept
    here, in the ``--json`` envelope's ``warnings`` (:func:`take_warnings`). A result never
    carries a warning in its text, which is the command's answer on standard output."""
    _given.append(message)
    if _warning_sink is not None:
        _warning_sink(message)


def take_warnings() -> tuple[str, ...]:
    """The warnings given since the command started (or since the last call), in order;
    the list starts empty again."""
    taken = tuple(_given)
    _given.clear()
    return taken
