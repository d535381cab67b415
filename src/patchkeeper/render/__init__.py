"""Renderers: result objects -> terminal text, Markdown or JSON.

Operations return frozen dataclasses; nothing below ``main`` prints. A result type gets its
terminal and Markdown forms by registering functions with :func:`text_renderer` and
:func:`markdown_renderer`; JSON works for every dataclass through :func:`to_jsonable`.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any

_TEXT: dict[type, Callable[[Any], str]] = {}
_MARKDOWN: dict[type, Callable[[Any], str]] = {}


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


def _lookup(table: dict[type, Callable[[Any], str]], result: Any) -> Callable[[Any], str]:
    for kind in type(result).__mro__:
        if kind in table:
            return table[kind]
    raise LookupError(f"no renderer for {type(result).__name__}")


def has_renderer(result: Any, markdown: bool = False) -> bool:
    """Whether ``result`` has a terminal form (and a Markdown form, if asked) registered."""
    kinds = type(result).__mro__
    text = any(kind in _TEXT for kind in kinds)
    return text and (not markdown or any(kind in _MARKDOWN for kind in kinds))


def render_text(result: Any) -> str:
    """Return the terminal form of ``result`` (plain text; colour only in the terminal)."""
    return _lookup(_TEXT, result)(result)


def render_markdown(result: Any) -> str:
    """Return the Markdown form of ``result``."""
    return _lookup(_MARKDOWN, result)(result)


def to_jsonable(value: Any) -> Any:
    """Turn dataclasses, enums, paths, bytes, tuples and dicts into JSON-ready values.

    Bytes are decoded as UTF-8 with replacement; a dataclass field whose name starts with
    ``_`` is left out.
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            field.name: to_jsonable(getattr(value, field.name))
            for field in dataclasses.fields(value)
            if not field.name.startswith("_")
        }
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (Path, PurePath)):
        return str(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, dict):
        return {str(key): to_jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return [to_jsonable(item) for item in items]
    return value


def render_json(result: Any) -> str:
    """Return ``result`` as indented JSON text (keys in field order)."""
    import json

    return json.dumps(to_jsonable(result), indent=2, ensure_ascii=False)
