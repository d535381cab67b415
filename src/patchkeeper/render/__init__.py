"""Renderers: result objects -> terminal text, Markdown or JSON.

Operations return frozen dataclasses; nothing below ``main`` prints. A result type gets its
terminal and Markdown forms by registering functions with :func:`text_renderer` and
:func:`markdown_renderer`; JSON works for every dataclass through :func:`to_jsonable`.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any

#: A character that stands for an undecodable byte: text decoded with ``surrogateescape``
#: (a Latin-1 ``What: caf\xe9`` header reads as ``"caf\udce9"``).
ESCAPED_BYTE = re.compile("[\udc80-\udcff]")

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
    """Return ``result`` as indented JSON text (keys in field order; see :func:`json_text`)."""
    return json_text(to_jsonable(result))


def json_text(data: Any, indent: int = 2) -> str:
    """``data`` as JSON text; non-ASCII characters as they are, an undecodable byte kept by
    ``surrogateescape`` as its ``\\udcXX`` escape (valid JSON, and Python's ``json.loads``
    gives the same string back, so ``.encode("utf-8", "surrogateescape")`` restores the byte).

    >>> json_text({"what": "caf\\udce9 \u00e9"}, indent=0)
    '{\\n"what": "caf\\\\udce9 \u00e9"\\n}'
    """
    import json

    text = json.dumps(data, indent=indent, ensure_ascii=False)
    return ESCAPED_BYTE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def output_bytes(text: str, encoding: str | None) -> bytes | None:
    """The bytes to print for ``text`` when it holds bytes kept by ``surrogateescape`` (each
    printed as the byte it was, as ``cat`` prints a patch file), else ``None`` (print the
    text as it is).

    >>> output_bytes("caf\\udce9", "utf-8"), output_bytes("caf\u00e9", "utf-8")
    (b'caf\\xe9', None)
    """
    if ESCAPED_BYTE.search(text) is None:
        return None
    return text.encode(encoding or "utf-8", "surrogateescape")
