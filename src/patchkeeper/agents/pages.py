"""A result too large for an agent's context, cut into pages the agent asks for one by one.

An envelope can be megabytes (the audit of a long series, the runtime inventory of a large
plugin): a client puts a tool's result whole into the model's context, which cannot take that.
The server returns at most :data:`MAX_RESULT_CHARS` characters of JSON text a call. A larger
envelope is kept in the server's memory and cut into pages: each page holds every key of the
envelope whole (the summary, the counts, the target) except its lists (those of the objects in
it too: ``inventory.entries``), of which it holds a run of items, and a ``page`` key says which
items of which list it holds, of how many, and the ``next_cursor`` that the ``result_page``
tool takes for the next page. A page of one item larger than the limit (an entry holding a long
diff) cuts that item's long texts to their first characters and lists each in ``page.cut`` with
a cursor of its own, which gives the rest of the text, part by part. Nothing is left out
silently, and nothing is run again for a page: the pages are one run's result, whether the tool
reads or writes. The server keeps the last :data:`KEPT` results cut into pages, for as long as
it runs.
"""

from __future__ import annotations

import itertools
import json
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from patchkeeper.jsonable import json_text

#: The most characters of JSON text one call's result holds before it is cut into pages:
#: about 15,000 tokens, a part of an agent's context a result may take.
MAX_RESULT_CHARS = 50_000
#: The least a server may be told to return (``patchkeeper mcp --max-result-chars``): room
#: for an envelope's keys besides its lists, and an item or two.
MIN_RESULT_CHARS = 2_000
#: How many results cut into pages the server keeps for ``result_page``.
KEPT = 8
#: The tool that returns the next page of a result.
PAGE_TOOL = "result_page"

#: The JSON schema of an envelope's ``page`` key.
PAGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Present when the result was larger than a call returns: which items of "
    "each list this page holds; every other key is whole.",
    "required": ["size", "limit", "lists", "next_cursor", "hint"],
    "properties": {
        "size": {"type": "integer", "description": "characters of the whole result's JSON"},
        "limit": {"type": "integer", "description": "characters a call returns at most"},
        "lists": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["total", "start", "count"],
                "properties": {
                    "total": {"type": "integer"},
                    "start": {"type": "integer"},
                    "count": {"type": "integer"},
                },
            },
        },
        "next_cursor": {"type": ["string", "null"]},
        "hint": {"type": "string"},
        "cut": {
            "type": "array",
            "description": "On a page of one item larger than the limit: its texts cut to "
            "their first characters, each with the cursor result_page takes for the rest.",
            "items": {
                "type": "object",
                "required": ["place", "length", "held", "cursor"],
                "properties": {
                    "place": {"type": "string"},
                    "length": {"type": "integer"},
                    "held": {"type": "integer"},
                    "cursor": {"type": "string"},
                },
            },
        },
    },
}


@dataclass
class Pages:
    """The results cut into pages, the newest last, by their number (:data:`KEPT` at most),
    each with the length of its whole JSON text."""

    limit: int = MAX_RESULT_CHARS
    kept: OrderedDict[int, tuple[dict[str, Any], int]] = field(default_factory=OrderedDict)
    numbers: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def first(self, envelope: dict[str, Any]) -> dict[str, Any]:
        """``envelope`` as it is when its JSON text fits :attr:`limit` (or it is an error's,
        which is small), else its first page, the envelope kept for the next ones."""
        size = len(json_text(envelope, latin1=True))
        if "error" in envelope or size <= self.limit or not _lists(envelope):
            return envelope
        number = next(self.numbers)
        self.kept[number] = (envelope, size)
        while len(self.kept) > KEPT:
            self.kept.popitem(last=False)
        return self._page(number, envelope, 0, size)

    def next(self, cursor: str) -> dict[str, Any] | None:
        """The page ``cursor`` (a page's ``next_cursor``, or the cursor of a text a page cut)
        names, or ``None`` when no result kept has it (a cursor of an earlier server, or of
        a result since dropped)."""
        if cursor.count(":") == 4:
            return self._text(cursor)
        number_text, _, start_text = cursor.partition(":")
        if not (number_text.isdigit() and start_text.isdigit()):
            return None
        kept = self.kept.get(int(number_text))
        if kept is None or int(start_text) >= _units(kept[0]):
            return None
        envelope, size = kept
        return self._page(int(number_text), envelope, int(start_text), size)

    def _page(self, number: int, envelope: dict[str, Any], start: int, size: int) -> dict[str, Any]:
        """The page of ``envelope`` from its item ``start`` (counted across its lists, in
        order): as many items as fit :attr:`limit`, one at least."""
        total = _units(envelope)

        def page_to(end: int) -> dict[str, Any]:
            page = _slice(envelope, start, end)
            page["page"] = _describe(envelope, start, end, number, size, self.limit)
            return page

        end = min(total, start + 1)
        page = page_to(end)
        step = 1  # grow while the page's own text fits, by doubling steps
        while end < total:
            trial = min(total, end + step)
            candidate = page_to(trial)
            if len(json_text(candidate, latin1=True)) > self.limit:
                if step == 1:
                    break
                step = 1
                continue
            page, end = candidate, trial
            step *= 2
        if len(json_text(page, latin1=True)) > self.limit:  # one item larger than the limit
            self._cut_texts(number, envelope, start, page)
        return page

    def _cut_texts(
        self, number: int, envelope: dict[str, Any], start: int, page: dict[str, Any]
    ) -> None:
        """Cut the long texts of the one item of ``page`` (larger than the limit alone: a
        long diff) to their first :func:`_head` characters, each listed in the page's ``cut``
        with its place, length and the cursor of the rest; the hint says so, and, when the
        page is over the limit even then, its length."""
        place, index = _item_place(envelope, start)
        item = _at(envelope, place)[index]
        head = _head(self.limit)
        cut = []
        copy = _copied(item)
        for number_of, (where, text) in enumerate(_texts(item)):
            if len(text) <= head:
                continue
            _set(copy, where, text[:head])
            cursor = f"{number}:{start}:{number_of}:{head}:t"
            cut.append(
                {
                    "place": _name(place, index, where),
                    "length": len(text),
                    "held": head,
                    "cursor": cursor,
                }
            )
        _at(page, place)[0] = copy
        about = page["page"]
        about["cut"] = cut
        if cut:
            about["hint"] += (
                f" Its one item is larger than the limit: {len(cut)} of its texts are cut to "
                f"their first {head} characters (page.cut lists each, with the cursor that "
                f"gives {PAGE_TOOL} the rest)."
            )
        length = len(json_text(page, latin1=True))
        if length > self.limit:
            about["hint"] += (
                f" This page is {length} characters: its one item is larger than the limit."
            )

    def _text(self, cursor: str) -> dict[str, Any] | None:
        """The part of a text a page cut that ``cursor`` (``RESULT:ITEM:TEXT:START:t``)
        names: as many characters from ``START`` as fit the limit, with the cursor of the
        next part; ``None`` when no result kept has it."""
        parts = cursor.split(":")
        if parts[4] != "t" or not all(part.isdigit() for part in parts[:4]):
            return None
        number, item_start, which, offset = (int(part) for part in parts[:4])
        kept = self.kept.get(number)
        if kept is None or item_start >= _units(kept[0]):
            return None
        envelope, size = kept
        place, index = _item_place(envelope, item_start)
        texts = _texts(_at(envelope, place)[index])
        if which >= len(texts) or offset >= len(texts[which][1]):
            return None
        where, text = texts[which]
        count = len(text) - offset

        def part(count: int) -> dict[str, Any]:
            end = offset + count
            following = f"{number}:{item_start}:{which}:{end}:t" if end < len(text) else None
            name = _name(place, index, where)
            hint = (
                f"characters {offset + 1}-{end} of the {len(text)} of {name}, which a page of "
                "the result cut. "
            )
            hint += (
                f"Call {PAGE_TOOL} with cursor {json.dumps(following)} for the next part."
                if following is not None
                else "This is its last part."
            )
            return {
                "command": envelope.get("command"),
                "text": {
                    "place": name,
                    "length": len(text),
                    "start": offset,
                    "value": text[offset:end],
                },
                "page": {"size": size, "limit": self.limit, "next_cursor": following, "hint": hint},
            }

        answer = part(count)
        while count > 1 and len(json_text(answer, latin1=True)) > self.limit:
            count = max(1, count * self.limit // len(json_text(answer, latin1=True)) - 1)
            answer = part(count)
        return answer


#: Where a list is in an envelope: the keys that lead to it (``("inventory", "entries")``).
Place = tuple[str, ...]


def _lists(value: dict[str, Any], path: Place = ()) -> list[Place]:
    """The places of the lists with items in ``value`` (the envelope) that no list holds:
    its own lists and those of the objects in it (``("inventory", "entries")``), in key
    order; what a page cuts. An envelope's ``page`` key is none of them."""
    found: list[Place] = []
    for key, item in value.items():
        if not path and key == "page":
            continue
        if isinstance(item, list) and item:
            found.append((*path, key))
        elif isinstance(item, dict):
            found += _lists(item, (*path, key))
    return found


def _at(value: dict[str, Any], path: Place) -> Any:
    """The value at ``path`` in ``value``."""
    for key in path:
        value = value[key]
    return value


def _units(envelope: dict[str, Any]) -> int:
    """How many items the lists of ``envelope`` hold together."""
    return sum(len(_at(envelope, path)) for path in _lists(envelope))


def _ranges(envelope: dict[str, Any], start: int, end: int) -> dict[Place, tuple[int, int, int]]:
    """For each list of ``envelope``: ``(total, first item, count)`` of the items ``start``
    to ``end`` (counted across the lists) that fall in it."""
    ranges = {}
    offset = 0
    for path in _lists(envelope):
        total = len(_at(envelope, path))
        first = min(max(start - offset, 0), total)
        last = min(max(end - offset, 0), total)
        ranges[path] = (total, first, last - first)
        offset += total
    return ranges


def _objects(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` with each object in it copied (not its lists): a page's lists are set in
    the copy, the kept envelope left whole."""
    return {key: _objects(item) if isinstance(item, dict) else item for key, item in value.items()}


def _slice(envelope: dict[str, Any], start: int, end: int) -> dict[str, Any]:
    """``envelope`` with each list cut to its items among ``start`` to ``end``."""
    page = _objects({key: value for key, value in envelope.items() if key != "page"})
    for path, (_, first, count) in _ranges(envelope, start, end).items():
        _at(page, path[:-1])[path[-1]] = _at(envelope, path)[first : first + count]
    return page


def _describe(
    envelope: dict[str, Any], start: int, end: int, number: int, size: int, limit: int
) -> dict[str, Any]:
    """The ``page`` key of the page from ``start`` to ``end``: its lists' items (each list
    named by its place, ``inventory.entries`` for a list in an object), the next page's
    cursor and a sentence saying both."""
    ranges = {".".join(path): held for path, held in _ranges(envelope, start, end).items()}
    held = []
    for key, (total, first, count) in ranges.items():
        if count:
            held.append(f"{key} {first + 1}-{first + count} of {total}")
        else:
            held.append(f"none of the {total} {key}")
    following = f"{number}:{end}" if end < _units(envelope) else None
    hint = (
        f"the result is {size} characters of JSON, more than the {limit} a call returns, so it "
        f"comes in pages; this one holds {', '.join(held)}; every other key is whole. "
    )
    if following is not None:
        hint += f"Call {PAGE_TOOL} with cursor {json.dumps(following)} for the next page."
    else:
        hint += "This is the last page."
    return {
        "size": size,
        "limit": limit,
        "lists": {
            key: {"total": total, "start": first, "count": count}
            for key, (total, first, count) in ranges.items()
        },
        "next_cursor": following,
        "hint": hint,
    }


def _head(limit: int) -> int:
    """How many characters of a long text a page of one item larger than ``limit`` keeps."""
    return limit // 8


#: Where a text is in an item: the keys and indexes that lead to it.
Where = tuple[str | int, ...]


def _texts(value: Any, where: Where = ()) -> list[tuple[Where, str]]:
    """Every text in ``value`` (an item of a list), with where it is, in order."""
    if isinstance(value, str):
        return [(where, value)]
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in _texts(item, (*where, key))]
    if isinstance(value, list):
        return [found for n, item in enumerate(value) for found in _texts(item, (*where, n))]
    return []


def _copied(value: Any) -> Any:
    """``value`` with its objects and lists copied, so that a text in it can be set."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


def _set(value: Any, where: Where, text: str) -> None:
    """Set the text at ``where`` in ``value`` (copied by :func:`_copied`)."""
    for step in where[:-1]:
        value = value[step]
    value[where[-1]] = text


def _item_place(envelope: dict[str, Any], start: int) -> tuple[Place, int]:
    """The list and the index in it of the item ``start`` (counted across the lists)."""
    offset = 0
    for place in _lists(envelope):
        total = len(_at(envelope, place))
        if start < offset + total:
            return place, start - offset
        offset += total
    raise IndexError(start)


def _name(place: Place, index: int, where: Where) -> str:
    """A text's place as a page names it: ``entries[0].drift.downstream_diff``."""
    name = ".".join(place) + f"[{index}]"
    for step in where:
        name += f"[{step}]" if isinstance(step, int) else f".{step}"
    return name
