"""A result too large for an agent's context, cut into pages the agent asks for one by one.

An envelope can be megabytes (the audit of a long series, the runtime inventory of a large
plugin): a client puts a tool's result whole into the model's context, which cannot take that.
The server returns at most :data:`MAX_RESULT_CHARS` characters of JSON text a call. A larger
envelope is kept in the server's memory and cut into pages: each page holds every key of the
envelope whole (the summary, the counts, the target) except its lists (those of the objects in
it too: ``inventory.entries``), of which it holds a run of items, and a ``page`` key says
which items of which list it holds, of how many, and the
``next_cursor`` that the ``result_page`` tool takes for the next page. Nothing is left out
silently, and nothing is run again for a page: the pages are one run's result, whether the
tool reads or writes. The server keeps the last :data:`KEPT` results cut into pages, for as
long as it runs.
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
        """The page ``cursor`` (a page's ``next_cursor``) names, or ``None`` when no result
        kept has it (a cursor of an earlier server, or of a result since dropped)."""
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
        length = len(json_text(page, latin1=True))
        if length > self.limit:  # one item larger than the limit: a page holds it whole
            page["page"]["hint"] += (
                f" This page is {length} characters: its one item is larger than the limit, "
                "and an item is never cut."
            )
        return page


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
