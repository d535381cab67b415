"""Result objects as JSON: the one conversion the ``--json`` output and the evidence store share.

Dataclasses, enums, paths, bytes, tuples and dicts become JSON-ready values
(:func:`to_jsonable`); :func:`json_text` writes them with undecodable bytes kept.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from pathlib import Path, PurePath
from typing import Any

#: A character that stands for an undecodable byte: text decoded with ``surrogateescape``
#: (a Latin-1 ``What: caf\xe9`` header reads as ``"caf\udce9"``).
ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


#: Scalars returned as they are (exact classes: an enum deriving from ``str`` is converted).
_SCALARS = frozenset({str, int, float, bool, type(None)})
#: Per dataclass, the names of its fields that are not left out (``_``-prefixed).
_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls) if not f.name.startswith("_"))
        _FIELDS[cls] = names
    return names


def to_jsonable(value: Any) -> Any:
    """Turn dataclasses, enums, paths, bytes, tuples and dicts into JSON-ready values.

    Bytes are decoded as UTF-8 with replacement; a dataclass field whose name starts with
    ``_`` is left out.
    """
    cls = value.__class__
    if cls in _SCALARS:
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: to_jsonable(getattr(value, name)) for name in _field_names(cls)}
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
