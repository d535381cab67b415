"""Result objects as JSON: the one conversion the ``--json`` output and the evidence store share.

Dataclasses, enums, paths, bytes, tuples and dicts become JSON-ready values
(:func:`to_jsonable`); :func:`json_text` writes them with undecodable bytes kept.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import re
import typing
from collections.abc import Callable
from pathlib import Path, PurePath
from types import MappingProxyType
from typing import Any

#: A character that stands for an undecodable byte: text decoded with ``surrogateescape``
#: (a Latin-1 ``What: caf\xe9`` header reads as ``"caf\udce9"``).
ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


#: Values that are JSON as they are (exact types: a ``str`` enum is converted by its value).
_PLAIN = frozenset({str, int, float, bool, type(None)})


#: The metadata of a dataclass field that is left out of the JSON form while its value is
#: ``None``: a member that some results of a type have and others lack (as the process that
#: answers writes them), read back as ``None`` by :func:`from_jsonable`;
#: ``field(default=None, metadata=ABSENT_WHEN_NONE)``.
ABSENT_WHEN_NONE = MappingProxyType({"jsonable": "absent when None"})
_ABSENT = ABSENT_WHEN_NONE["jsonable"]

#: The metadata of a dataclass field that holds a file name (a series entry, a patch's path;
#: ``str``, ``str | None`` or a tuple of them) read with ``surrogateescape``: its JSON form
#: is the name as every output shows it (:func:`patchkeeper.system.names.shown_name`: git's quoted
#: form when it is not valid UTF-8), which :func:`from_jsonable` reads back to the very
#: bytes; ``field(metadata=FILE_NAME)``.
FILE_NAME = MappingProxyType({"jsonable": "file name"})
_FILE_NAME = FILE_NAME["jsonable"]

#: The metadata of a dataclass field that is never in the JSON form: a value the code reads
#: that the JSON form says in other members (a failure's words in its ``note``); read back
#: by :func:`from_jsonable` as the field's default, which it must have;
#: ``field(default=None, metadata=NOT_IN_JSON)``.
NOT_IN_JSON = MappingProxyType({"jsonable": "not in JSON"})
_NOT_IN_JSON = NOT_IN_JSON["jsonable"]


@functools.cache
def _public_fields(cls: type) -> tuple[tuple[str, ...], frozenset[str], frozenset[str]]:
    """A dataclass's field names, those starting with ``_`` and those marked
    :data:`NOT_IN_JSON` left out, and the names among them marked :data:`ABSENT_WHEN_NONE`
    and :data:`FILE_NAME` (once per class)."""
    public = [
        f
        for f in dataclasses.fields(cls)
        if not f.name.startswith("_") and f.metadata.get("jsonable") != _NOT_IN_JSON
    ]
    absent = (f.name for f in public if f.metadata.get("jsonable") == _ABSENT)
    named = (f.name for f in public if f.metadata.get("jsonable") == _FILE_NAME)
    return tuple(f.name for f in public), frozenset(absent), frozenset(named)


def _names(value: Any, convert: Callable[[str], str]) -> Any:
    """``value`` of a :data:`FILE_NAME` field with ``convert`` applied to each name in it (a
    string, or the strings of a tuple or list; ``None`` kept)."""
    if isinstance(value, str):
        return convert(value)
    if isinstance(value, (list, tuple)):
        return type(value)(convert(item) if isinstance(item, str) else item for item in value)
    return value


def to_jsonable(value: Any) -> Any:
    """Turn dataclasses, enums, paths, bytes, tuples and dicts into JSON-ready values.

    Bytes are decoded as UTF-8 with replacement; a dataclass field whose name starts with
    ``_`` or that is marked :data:`NOT_IN_JSON` is left out, and so is one marked
    :data:`ABSENT_WHEN_NONE` while it is ``None``;
    one marked :data:`FILE_NAME` holds its names as they are shown;
    a :class:`JsonReady` gives the values its JSON text holds.
    """
    if type(value) in _PLAIN:
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names, absent, named = _public_fields(type(value))
        if not absent and not named:
            return {name: to_jsonable(getattr(value, name)) for name in names}
        if named:
            from patchkeeper.system.names import shown_name
        members = ((name, getattr(value, name)) for name in names)
        return {
            name: _names(item, shown_name) if name in named else to_jsonable(item)
            for name, item in members
            if item is not None or name not in absent
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
    if isinstance(value, JsonReady):  # its JSON text read back (the same values)
        import json

        return json.loads(value.body)
    return value


def has_surrogates(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (an undecodable byte kept by
    ``surrogateescape`` is one): its UTF-8 encoding fails, found at C speed, where a search
    with :data:`ESCAPED_BYTE` walks a long non-ASCII text character by character.

    >>> has_surrogates("caf\\u00e9"), has_surrogates("caf\\udce9")
    (False, True)
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def json_text(data: Any, indent: int = 2, *, latin1: bool = False) -> str:
    """``data`` as JSON text; non-ASCII characters as they are, an undecodable byte kept by
    ``surrogateescape`` as its ``\\udcXX`` escape (valid JSON, and Python's ``json.loads``
    gives the same string back, so ``.encode("utf-8", "surrogateescape")`` restores the byte:
    the evidence store's round trip).

    With ``latin1`` (the ``--json`` output, docs/json.md), such a byte is the Latin-1
    character of that byte instead (``\\udce9`` -> ``é``): a lone surrogate is no Unicode
    character, and strict readers refuse it (it cannot be encoded as UTF-8).

    >>> json_text({"what": "caf\\udce9 \u00e9"}, indent=0)
    '{\\n"what": "caf\\\\udce9 \u00e9"\\n}'
    >>> json_text({"what": "caf\\udce9"}, indent=0, latin1=True)
    '{\\n"what": "caf\u00e9"\\n}'
    """
    return escaped(raw_json(data, indent), latin1=latin1)


def raw_json(data: Any, indent: int = 2) -> str:
    """``data`` as indented JSON text, an undecodable byte kept by ``surrogateescape`` still
    a lone surrogate (:func:`escaped` writes it): :func:`indented_json`, or
    :func:`json.dumps` for a value it does not know."""
    try:
        return indented_json(data, indent)
    except TypeError:  # a value the fast path does not know: the standard library's
        import json

        return json.dumps(data, indent=indent, ensure_ascii=False)


def escaped(text: str, *, latin1: bool = False) -> str:
    """:func:`raw_json`'s ``text`` with each undecodable byte written as :func:`json_text`
    writes it: its ``\\udcXX`` escape, or with ``latin1`` its Latin-1 character."""
    if not has_surrogates(text):
        return text  # nothing to replace (the common case: no regular-expression pass)
    if latin1:
        return ESCAPED_BYTE.sub(lambda found: chr(ord(found.group()) - 0xDC00), text)
    return ESCAPED_BYTE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def indented_json(data: Any, indent: int) -> str:
    """``json.dumps(data, indent=indent, ensure_ascii=False)``, the same text, about twice
    as fast: the standard library indents with its pure-Python encoder (its C encoder has
    no indentation), this writes the layout in one recursive pass over dicts (string keys),
    lists, tuples, strings, integers, floats, booleans and ``None``, each string escaped by
    the C encoder's :func:`json.encoder.encode_basestring`.

    Raises:
        TypeError: a value of another type, or a dict key that is not a string (the caller
            falls back to :func:`json.dumps`).

    >>> indented_json({"a": [1, 2.5, None, True], "b": {}, "c": []}, 2)
    '{\\n  "a": [\\n    1,\\n    2.5,\\n    null,\\n    true\\n  ],\\n  "b": {},\\n  "c": []\\n}'
    """
    from json import dumps
    from json.encoder import encode_basestring

    chunks: list[str] = []
    write = chunks.append

    def value(item: Any, depth: int) -> None:
        kind = type(item)
        if kind is str:
            write(encode_basestring(item))
        elif kind is dict:
            if not item:
                write("{}")
                return
            inner = "\n" + " " * (indent * (depth + 1))
            separator = "{" + inner
            for key, member in item.items():
                if type(key) is not str:
                    raise TypeError(f"a key of type {type(key).__name__}")
                write(separator + encode_basestring(key) + ": ")
                separator = "," + inner
                value(member, depth + 1)
            write("\n" + " " * (indent * depth) + "}")
        elif kind is list or kind is tuple:
            if not item:
                write("[]")
                return
            inner = "\n" + " " * (indent * (depth + 1))
            separator = "[" + inner
            for member in item:
                write(separator)
                separator = "," + inner
                value(member, depth + 1)
            write("\n" + " " * (indent * depth) + "]")
        elif item is None:
            write("null")
        elif item is True:
            write("true")
        elif item is False:
            write("false")
        elif kind is int:
            write(int.__repr__(item))
        elif kind is float:
            write(dumps(item))  # NaN and Infinity as the standard library writes them
        else:
            raise TypeError(f"a value of type {kind.__name__}")

    value(data, 0)
    return "".join(chunks)


def joined_json(head: dict[str, Any], body: str, key: str | None = None, indent: int = 2) -> str:
    """The indented JSON text of ``head`` with the object whose indented JSON text
    (:func:`raw_json`, the same ``indent``) is ``body`` joined on without decoding it: its
    members after ``head``'s (``key`` ``None``: :func:`raw_json` of ``head | body``), or
    the whole object as the value of ``key`` (:func:`raw_json` of ``head | {key: body}``).

    >>> joined_json({"a": 1}, '{\\n  "b": [\\n    2\\n  ]\\n}')
    '{\\n  "a": 1,\\n  "b": [\\n    2\\n  ]\\n}'
    >>> joined_json({"a": 1}, '{\\n  "b": 2\\n}', "r")
    '{\\n  "a": 1,\\n  "r": {\\n    "b": 2\\n  }\\n}'
    """
    text = raw_json(head, indent)
    if key is not None:  # one level deeper: JSON text has no line break inside a string
        member = f"{' ' * indent}{raw_json(key)}: " + body.replace("\n", "\n" + " " * indent)
        return text[:-2] + ",\n" + member + "\n}" if head else "{\n" + member + "\n}"
    if body == "{}":
        return text
    return text[:-2] + "," + body[1:] if head else body


def member_json(head: dict[str, Any], key: str, value: Any) -> str:
    """The JSON text (:func:`json_text`'s) of ``head`` with ``value`` as the value of its
    member ``key``: a :class:`JsonReady` value's JSON joined on as it is written (not
    encoded again, :func:`joined_json`), any other value converted (:func:`to_jsonable`).

    >>> member_json({"a": 1}, "r", JsonReady(0, '{\\n  "b": 2\\n}', ("b",), False))
    '{\\n  "a": 1,\\n  "r": {\\n    "b": 2\\n  }\\n}'
    >>> member_json({"a": 1}, "r", [2])
    '{\\n  "a": 1,\\n  "r": [\\n    2\\n  ]\\n}'
    """
    if isinstance(value, JsonReady):
        return escaped(joined_json(head, value.body, key))
    return json_text({**head, key: to_jsonable(value)})


class JsonReady:
    """A result with its JSON form already written: what ``--json`` prints and the evidence
    store keeps without converting and encoding the result again (a remembered result,
    :mod:`patchkeeper.runtime.remembered`).

    Attributes:
        exit_code: the result's exit code.
        body: :func:`raw_json` of :func:`to_jsonable` of the result (indent 2).
        fields: the result's top-level keys, in order.
        plain: whether the envelope is the usual head and these keys, as they are: no
            ``target`` or ``command`` key, no ``envelope_target`` (render/envelope.py).
    """

    __slots__ = ("_load", "_result", "body", "exit_code", "fields", "plain")

    def __init__(self, exit_code: int, body: str, fields: tuple[str, ...], plain: bool) -> None:
        self.exit_code = exit_code
        self.body = body
        self.fields = fields
        self.plain = plain
        self._result: Any = None
        self._load: Callable[[], Any] | None = None

    @classmethod
    def of(cls, result: Any) -> JsonReady:
        """``result`` (a result dataclass) with its JSON written now."""
        data = to_jsonable(result)
        fields = tuple(data) if isinstance(data, dict) else ()
        plain = isinstance(data, dict) and not {"target", "command"} & set(fields)
        plain = plain and not hasattr(result, "envelope_target")
        ready = cls(int(getattr(result, "exit_code", 0)), raw_json(data), fields, plain)
        ready._result = result
        return ready

    def set_loader(self, load: Callable[[], Any]) -> None:
        """How to compute the result object when it is asked for (:attr:`result`)."""
        self._load = load

    @property
    def result(self) -> Any:
        """The result object (computed once, by the loader, when it was not given)."""
        if self._result is None:
            if self._load is None:
                raise LookupError("a JSON-ready result without its result object")
            self._result = self._load()
        return self._result


T = typing.TypeVar("T")


class DecodeError(ValueError):
    """A JSON value that does not fit the type it is read as (:func:`from_jsonable`)."""


def from_jsonable(cls: type[T], data: Any, names: dict[str, Any] | None = None) -> T:
    """The object of type ``cls`` whose JSON form (:func:`to_jsonable`) is ``data``: the
    reading of a result saved as JSON back into the result type that made it.

    A dataclass is built from the object's members, field by field and by the field's type;
    a member the object lacks takes the field's default (a result saved by an older
    patchkeeper), and so does a field marked :data:`NOT_IN_JSON`; a member the type lacks
    is ignored. Enums are made from their values,
    tuples and lists from arrays, ``X | None`` from ``null`` or an ``X``, paths from strings;
    ``Any`` and types it does not know are kept as they are. ``names`` gives the types that
    ``cls``'s module names only for the type checker (``if TYPE_CHECKING:`` imports).

    Raises:
        DecodeError: ``data`` does not fit ``cls``: an object expected and something else
            given, a field without a default missing, a value no member of the enum.

    >>> @dataclasses.dataclass
    ... class Point:
    ...     x: int
    ...     tags: tuple[str, ...] = ()
    >>> from_jsonable(Point, {"x": 1, "tags": ["a"], "extra": 2})
    Point(x=1, tags=('a',))
    """
    return typing.cast(T, _decode(cls, data, names or {}))


@functools.cache
def _hints(cls: type, names: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    import sys

    module = sys.modules.get(cls.__module__)
    known = dict(vars(module)) if module is not None else {}
    return typing.get_type_hints(cls, globalns=known, localns=dict(names))


def _decode(hint: Any, data: Any, names: dict[str, Any]) -> Any:
    import types

    if hint is Any or hint is object:
        return data
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        options = [option for option in typing.get_args(hint) if option is not type(None)]
        if data is None:
            return None
        for option in options[:-1]:
            try:
                return _decode(option, data, names)
            except (DecodeError, TypeError, ValueError):
                continue
        return _decode(options[-1], data, names) if options else data
    if origin in (tuple, list, set, frozenset):
        if not isinstance(data, list):
            raise DecodeError(f"an array expected for {hint}, not {type(data).__name__}")
        args = typing.get_args(hint)
        if origin is tuple and args and (len(args) != 2 or args[1] is not Ellipsis):
            return tuple(_decode(a, item, names) for a, item in zip(args, data))
        item = args[0] if args else Any
        return origin(_decode(item, member, names) for member in data)
    if origin is dict:
        if not isinstance(data, dict):
            raise DecodeError(f"an object expected for {hint}, not {type(data).__name__}")
        value = typing.get_args(hint)[1] if typing.get_args(hint) else Any
        return {key: _decode(value, member, names) for key, member in data.items()}
    if not isinstance(hint, type):
        return data  # a Literal, a TypeVar, a Callable: kept as it is
    if dataclasses.is_dataclass(hint):
        return _decode_dataclass(hint, data, names)
    if issubclass(hint, enum.Enum):
        try:
            return hint(data)
        except ValueError:
            raise DecodeError(f"{data!r} is no {hint.__name__}") from None
    if issubclass(hint, PurePath):
        return hint(data)
    if hint is float and isinstance(data, int) and not isinstance(data, bool):
        return float(data)
    return data


def _decode_dataclass(cls: type, data: Any, names: dict[str, Any]) -> Any:
    if not isinstance(data, dict):
        raise DecodeError(f"an object expected for {cls.__name__}, not {type(data).__name__}")
    hints = _hints(cls, tuple(sorted(names.items(), key=lambda item: item[0])))
    values = {}
    for field in dataclasses.fields(cls):
        if not field.init or field.metadata.get("jsonable") == _NOT_IN_JSON:
            continue  # a field the JSON form never holds takes its default
        if field.name in data:
            value = _decode(hints.get(field.name, Any), data[field.name], names)
            if field.metadata.get("jsonable") == _FILE_NAME:
                from patchkeeper.system.names import unquoted_name

                value = _names(value, unquoted_name)
            values[field.name] = value
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise DecodeError(f"{cls.__name__} without its {field.name!r}")
    return cls(**values)
