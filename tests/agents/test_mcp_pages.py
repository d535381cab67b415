"""A result larger than a call returns comes in pages, through the real client: every key but
the lists whole on each page, the lists' items in order across the pages, a ``page`` key and
a first text block saying which items a page holds and the cursor of the next."""

from __future__ import annotations

import json
from typing import Any

from mcp import ClientSession
from mcp_support import talk, texts

from helpers import Example

AUDIT = {"directory": "downstream", "to": "../upstream/minihttp-1.1"}
LIMIT = 6000


def test_a_large_result_comes_in_pages(example: Example) -> None:
    async def whole(client: ClientSession) -> Any:
        return await client.call_tool("audit", AUDIT)

    async def paged(client: ClientSession) -> list[Any]:
        pages = [await client.call_tool("audit", AUDIT)]
        while pages[-1].structured_content["page"]["next_cursor"] is not None:
            cursor = pages[-1].structured_content["page"]["next_cursor"]
            pages.append(await client.call_tool("result_page", {"cursor": cursor}))
        again = await client.call_tool("result_page", {"cursor": "1:0"})
        pages.append(again)
        return pages

    full = talk(example.root, whole).structured_content
    *pages, again = talk(example.root, paged, "--max-result-chars", str(LIMIT))
    assert "page" not in full  # 12,979 characters: under the default limit
    size = len(json.dumps(full, indent=2, ensure_ascii=False))
    verdicts = len(full["verdicts"])
    assert (verdicts, len(pages)) == (7, 3)
    for page in pages:
        content = page.structured_content
        assert page.is_error is False
        assert len(texts(page)[1]) <= LIMIT
        assert json.loads(texts(page)[1]) == content
        assert {k: v for k, v in content.items() if k not in ("verdicts", "page")} == {
            k: v for k, v in full.items() if k != "verdicts"
        }
        assert texts(page)[0] == f"patchkeeper: {content['page']['hint']}"
    held = [page.structured_content["page"]["lists"]["verdicts"] for page in pages]
    assert held == [
        {"total": 7, "start": 0, "count": 2},
        {"total": 7, "start": 2, "count": 3},
        {"total": 7, "start": 5, "count": 2},
    ]
    first = pages[0].structured_content["page"]
    assert first == {
        "size": size,
        "limit": LIMIT,
        "lists": {"verdicts": {"total": 7, "start": 0, "count": 2}},
        "next_cursor": "1:2",
        "hint": f"the result is {size} characters of JSON, more than the {LIMIT} a call "
        "returns, so it comes in pages; this one holds verdicts 1-2 of 7; every other key is "
        'whole. Call result_page with cursor "1:2" for the next page.',
    }
    assert pages[-1].structured_content["page"]["hint"].endswith("This is the last page.")
    assert [v for page in pages for v in page.structured_content["verdicts"]] == full["verdicts"]
    # a cursor is read again as often as asked: the first page, as it was
    assert again.structured_content == pages[0].structured_content


def test_a_cursor_no_result_is_kept_for_is_refused(example: Example) -> None:
    async def conversation(client: ClientSession) -> list[Any]:
        return [
            await client.call_tool("result_page", {"cursor": "7:10"}),
            await client.call_tool("result_page", {}),
        ]

    unknown, empty = talk(example.root, conversation)
    assert unknown.is_error is True
    assert unknown.structured_content["error"] == {
        "message": "no result is kept for the cursor '7:10'",
        "file": None,
        "line": None,
        "hint": "the server keeps the last 8 results cut into pages, for as long as it runs: "
        "call the tool again for its result and go on from that one's next_cursor",
    }
    assert empty.is_error is True
    assert empty.structured_content["error"]["message"] == (
        "result_page takes one argument, cursor (a string)"
    )


def test_the_lists_inside_an_object_are_cut_too() -> None:
    """A runtime audit's ``inventory`` (an object holding the inventory's own lists) was
    repeated whole on every page, 447,000 characters of each; its lists are cut as the
    envelope's own are, named by their place."""
    from patchkeeper.agents.pages import Pages

    inventory = {"plugin": "p", "entries": [{"n": n, "text": "x" * 300} for n in range(12)]}
    envelope = {
        "command": "runtime audit",
        "exit_code": 0,
        "inventory": inventory,
        "entries": [{"n": n, "text": "y" * 300} for n in range(6)],
        "counts": {"keep": 6},
    }
    pages = Pages(limit=2000)
    page = pages.first(envelope)
    seen = [page]
    while page["page"]["next_cursor"] is not None:
        page = pages.next(page["page"]["next_cursor"])
        assert page is not None
        seen.append(page)
    assert all(len(json.dumps(p, indent=2, ensure_ascii=False)) <= 2000 for p in seen)
    assert [e for p in seen for e in p["inventory"]["entries"]] == inventory["entries"]
    assert [e for p in seen for e in p["entries"]] == envelope["entries"]
    assert all(p["inventory"]["plugin"] == "p" and p["counts"] == {"keep": 6} for p in seen)
    assert list(seen[0]["page"]["lists"]) == ["inventory.entries", "entries"]
    assert envelope["inventory"]["entries"] == inventory["entries"]  # the kept one is whole
    assert len(inventory["entries"]) == 12


def test_the_long_texts_of_an_item_larger_than_the_limit_come_in_parts() -> None:
    """One entry of vllm-ascend's runtime audit holds a 140,635-character diff: its page was
    178,537 characters. The item's long texts are cut to their first characters, each named
    in ``page.cut`` with the cursor of its rest, which comes in parts under the limit."""
    from patchkeeper.agents.pages import Pages

    diff = "".join(f"+line {n}\n" for n in range(1500))
    envelope = {
        "command": "runtime audit",
        "entries": [{"name": "a", "drift": {"diff": diff, "note": "short"}}, {"name": "b"}],
    }
    pages = Pages(limit=4000)
    first = pages.first(envelope)
    assert first["entries"] == [{"name": "a", "drift": {"diff": diff[:500], "note": "short"}}]
    assert first["page"]["cut"] == [
        {
            "place": "entries[0].drift.diff",
            "length": len(diff),
            "held": 500,
            "cursor": "1:0:1:500:t",
        }
    ]
    assert first["page"]["hint"].endswith(
        "Its one item is larger than the limit: 1 of its texts are cut to their first 500 "
        "characters (page.cut lists each, with the cursor that gives result_page the rest)."
    )
    assert len(json.dumps(first, indent=2, ensure_ascii=False)) <= 4000
    parts = []
    part = pages.next("1:0:1:500:t")
    while part is not None:
        assert len(json.dumps(part, indent=2, ensure_ascii=False)) <= 4000
        parts.append(part["text"]["value"])
        cursor = part["page"]["next_cursor"]
        part = pages.next(cursor) if cursor else None
    assert diff[:500] + "".join(parts) == diff
    second = pages.next(first["page"]["next_cursor"])
    assert second is not None and second["entries"] == [{"name": "b"}]
    assert "cut" not in second["page"]
    assert envelope["entries"][0]["drift"]["diff"] == diff  # the kept result is whole
