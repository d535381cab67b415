"""A result too large for an agent's context, cut into pages the agent asks for one by one.

An envelope can be megabytes (the audit of a long series, the runtime inventory of a large
plugin): a client puts a tool's result whole into the model's context, which cannot take that.
The server returns at most :data:`MAX_RESULT_CHARS` characters of JSON text a call. A larger
envelope is kept in the server's memory and cut into pages: each page holds every key of the
envelope whole (the summary, the counts, the target) except its lists, of which it holds a run
of items, and a ``page`` key says which items of which list it holds, of how many, and the
``next_cursor`` that the ``result_page`` tool takes for the next page. Nothing is left out
silently, and nothing is run again for a page: the pages are one run's result, whether the
tool reads or writes. The server keeps the last :data:`KEPT` results cut into pages, for as
long as it runs.
"""

from __future__ import annotations

import copy
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
    """The results cut into pages, the newest last, by their number (:data:`KEPT` at most)."""

    limit: int = MAX_RESULT_CHARS
    kept: OrderedDict[int, dict[str, Any]] = field(default_factory=OrderedDict)
    numbers: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def first(self, envelope: dict[str, Any]) -> dict[str, Any]:
        """``envelope`` as it is when its JSON text fits :attr:`limit` (or it is an error's,
        which is small), else its first page, the envelope kept for the next ones."""
        size = len(json_text(envelope, latin1=True))
        if "error" in envelope or size <= self.limit or not _lists(envelope):
            return envelope
        number = next(self.numbers)
        self.kept[number] = envelope
        while len(self.kept) > KEPT:
            self.kept.popitem(last=False)
        return self._page(number, envelope, 0, size)

    def next(self, cursor: str) -> dict[str, Any] | None:
        """The page ``cursor`` (a page's ``next_cursor``) names, or ``None`` when no result
        kept has it (a cursor of an earlier server, or of a result since dropped)."""
        number_text, _, start_text = cursor.partition(":")
        if not (number_text.isdigit() and start_text.isdigit()):
            return None
        envelope = self.kept.get(int(number_text))
        if envelope is None or int(start_text) >= _units(envelope):
            return None
        size = len(json_text(envelope, latin1=True))
        return self._page(int(number_text), envelope, int(start_text), size)

    def _page(self, number: int, envelope: dict[str, Any], start: int, size: int) -> dict[str, Any]:
        """The page of ``envelope`` from its item ``start`` (counted across its lists, in
        key order): as many items as fit :attr:`limit`, one at least."""
        total = _units(envelope)
        end = min(total, start + 1)
        page = _slice(envelope, start, end)
        page["page"] = _describe(envelope, start, end, number, size, self.limit)
        # grow while the page fits; the page's own text is the measure
        step = 1
        while end < total:
            trial = min(total, end + step)
            candidate = _slice(envelope, start, trial)
            candidate["page"] = _describe(envelope, start, trial, number, size, self.limit)
            if len(json_text(candidate, latin1=True)) > self.limit:
                if step == 1:
                    break
                step = 1
                continue
            page, end = candidate, trial
            step *= 2
        return page


def _lists(envelope: dict[str, Any]) -> list[str]:
    """The keys of ``envelope`` whose values are lists with items: what a page cuts."""
    return [key for key, value in envelope.items() if isinstance(value, list) and value]


def _units(envelope: dict[str, Any]) -> int:
    """How many items the lists of ``envelope`` hold together."""
    return sum(len(envelope[key]) for key in _lists(envelope))


def _ranges(envelope: dict[str, Any], start: int, end: int) -> dict[str, tuple[int, int, int]]:
    """For each list of ``envelope``: ``(total, first item, count)`` of the items ``start``
    to ``end`` (counted across the lists) that fall in it."""
    ranges = {}
    offset = 0
    for key in _lists(envelope):
        total = len(envelope[key])
        first = min(max(start - offset, 0), total)
        last = min(max(end - offset, 0), total)
        ranges[key] = (total, first, last - first)
        offset += total
    return ranges


def _slice(envelope: dict[str, Any], start: int, end: int) -> dict[str, Any]:
    """``envelope`` with each list cut to its items among ``start`` to ``end``."""
    page = {key: value for key, value in envelope.items() if key != "page"}
    for key, (_, first, count) in _ranges(envelope, start, end).items():
        page[key] = copy.copy(envelope[key][first : first + count])
    return page


def _describe(
    envelope: dict[str, Any], start: int, end: int, number: int, size: int, limit: int
) -> dict[str, Any]:
    """The ``page`` key of the page from ``start`` to ``end``: its lists' items, the next
    page's cursor and a sentence saying both."""
    ranges = _ranges(envelope, start, end)
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
