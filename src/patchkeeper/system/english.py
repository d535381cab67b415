"""English counts for the words every layer prints (a result's summary, a to-do, an
error): ``1 file`` but ``2 files``, never ``1 files``."""

from __future__ import annotations


def plural(count: int, noun: str) -> str:
    """``1 file``, ``2 files``; ``2 patches``, ``2 entries`` (English's ``-es`` after a
    sibilant, ``-ies`` for a consonant and ``y``); ``noun`` may be several words
    (``series patch``), the last one takes the ending.

    >>> plural(1, "upstream file"), plural(2, "entry"), plural(3, "more patch")
    ('1 upstream file', '2 entries', '3 more patches')
    """
    if count == 1:
        return f"{count} {noun}"
    if noun.endswith(("ch", "sh", "s", "x")):
        return f"{count} {noun}es"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return f"{count} {noun[:-1]}ies"
    return f"{count} {noun}s"
