"""Renderers: result objects -> terminal text, Markdown or JSON.

Operations return frozen dataclasses; nothing below ``main`` prints. A result type gets its
terminal and Markdown forms by registering functions with :func:`text_renderer` and
:func:`markdown_renderer`; JSON works for every dataclass through
:func:`patchkeeper.jsonable.to_jsonable`, inside the one envelope of
:mod:`patchkeeper.render.envelope` (docs/json.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from patchkeeper.jsonable import ESCAPED_BYTE, JsonReady, escaped, has_surrogates, json_text

_TEXT: dict[type, Callable[[Any], str]] = {}
_MARKDOWN: dict[type, Callable[[Any], str]] = {}
_PAYLOAD: dict[type, Callable[[Any], str | None]] = {}


#: Modules that register renderers for result types, in the order they are tried.
RENDERER_MODULES = (
    "patchkeeper.render.terminal",
    "patchkeeper.render.markdown",
    "patchkeeper.render.audit",
    "patchkeeper.render.horizon",
    "patchkeeper.render.runtime",
    "patchkeeper.render.runtime_update",
    "patchkeeper.render.ledger",
    "patchkeeper.render.port",
    "patchkeeper.render.record",
    "patchkeeper.render.start",
    "patchkeeper.render.upgrade",
)


def load_renderers(result: Any, markdown: bool) -> None:
    """Import renderer modules (:data:`RENDERER_MODULES`), in order, until ``result`` has a
    terminal form (and a Markdown one with ``markdown``): only the ones needed, since a
    renderer module imports its feature's code."""
    import importlib

    for module in RENDERER_MODULES:
        if has_renderer(result, markdown=markdown):
            return
        importlib.import_module(module)


def text_renderer(kind: type) -> Callable[[Callable[[Any], str]], Callable[[Any], str]]:
    """Register ``function(result) -> str`` as the terminal form of ``kind``."""

    def register(function: Callable[[Any], str]) -> Callable[[Any], str]:
        _TEXT[kind] = function
        return function

    return register


def markdown_renderer(kind: type) -> Callable[[Callable[[Any], str]], Callable[[Any], str]]:
    """Register ``function(result) -> str`` as the Markdown form of ``kind``."""

    def register(function: Callable[[Any], str]) -> Callable[[Any], str]:
        _MARKDOWN[kind] = function
        return function

    return register


def payload_renderer(
    kind: type,
) -> Callable[[Callable[[Any], str | None]], Callable[[Any], str | None]]:
    """Register ``function(result) -> str | None`` as the payload of ``kind``: text printed
    on standard output exactly as it is (a diff, for ``> update.diff``), the terminal form
    then going to standard error, as ``git format-patch --stdout`` keeps its messages off
    the patch; an empty payload (nothing to change) prints nothing there, so a redirected
    file holds an empty diff, never the report. The function returns ``None`` when the
    result has no payload this time (it was written to a file): the terminal form then goes
    to standard output as usual."""

    def register(function: Callable[[Any], str | None]) -> Callable[[Any], str | None]:
        _PAYLOAD[kind] = function
        return function

    return register


def _object(result: Any) -> Any:
    """The result object itself: a :class:`JsonReady`'s result, computed when asked."""
    return result.result if isinstance(result, JsonReady) else result


def render_payload(result: Any) -> str | None:
    """The payload of ``result`` (:func:`payload_renderer`), ``None`` when it has none."""
    result = _object(result)
    for kind in type(result).__mro__:
        if kind in _PAYLOAD:
            return _PAYLOAD[kind](result)
    return None


def _lookup(table: dict[type, Callable[[Any], str]], result: Any) -> Callable[[Any], str]:
    for kind in type(result).__mro__:
        if kind in table:
            return table[kind]
    raise LookupError(f"no renderer for {type(result).__name__}")


def has_renderer(result: Any, markdown: bool = False) -> bool:
    """Whether ``result`` has a terminal form (and a Markdown form, if asked) registered."""
    kinds = type(_object(result)).__mro__
    text = any(kind in _TEXT for kind in kinds)
    return text and (not markdown or any(kind in _MARKDOWN for kind in kinds))


def render_text(result: Any) -> str:
    """Return the terminal form of ``result`` (plain text; colour only in the terminal)."""
    result = _object(result)
    return _lookup(_TEXT, result)(result)


def render_markdown(result: Any) -> str:
    """Return the Markdown form of ``result``."""
    result = _object(result)
    return _lookup(_MARKDOWN, result)(result)


def render_json(result: Any, command: str, warnings: Sequence[str] = ()) -> str:
    """Return ``result`` of ``command`` (its name as typed, ``"runtime audit"``) as the
    indented JSON text of its envelope (docs/json.md; keys in field order after the
    envelope's; a byte that is not UTF-8 is its Latin-1 character: see :func:`json_text`),
    with the ``warnings`` the command gave."""
    from patchkeeper.render.envelope import envelope, envelope_text

    if isinstance(result, JsonReady):
        text = envelope_text(command, result, warnings)
        if text is not None:
            return escaped(text, latin1=True)
        result = result.result
    return json_text(envelope(command, result, warnings), latin1=True)


def terminal_text(result: Any, stream: Any) -> tuple[str, bool]:
    """The terminal form of ``result`` made ready for ``stream`` (its width and colour,
    :func:`patchkeeper.render.console.detect`), without a trailing newline, and whether it
    is coloured. The renderer modules are imported first (:func:`load_renderers`)."""
    import os

    from patchkeeper.render import console

    load_renderers(result, False)
    terminal = console.detect(stream, os.environ)
    console.use(terminal)
    try:
        text = console.finish(render_text(result), terminal)
    finally:
        console.use(console.PLAIN)
    return text.rstrip("\n"), bool(terminal.colour)


def output_bytes(text: str, encoding: str | None) -> bytes | None:
    """The bytes to print for ``text`` when it holds bytes kept by ``surrogateescape`` (each
    printed as the byte it was, as ``cat`` prints a patch file), else ``None`` (print the
    text as it is).

    >>> output_bytes("caf\\udce9", "utf-8"), output_bytes("caf\u00e9", "utf-8")
    (b'caf\\xe9', None)
    """
    if not has_surrogates(text) or ESCAPED_BYTE.search(text) is None:
        return None
    return text.encode(encoding or "utf-8", "surrogateescape")
