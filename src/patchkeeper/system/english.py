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


def with_article(name: str) -> str:
    """``name`` after ``a`` or ``an``, by how a project name is read out: ``an`` before a
    vowel letter other than ``u`` (``an asyncssh``, ``an Ibis``), ``a`` otherwise (``a
    minihttp``, and ``a uvicorn``, ``a urllib3``: a leading ``u`` is read ``you``).

    >>> with_article("asyncssh"), with_article("Ibis"), with_article("minihttp")
    ('an asyncssh', 'an Ibis', 'a minihttp')
    >>> with_article("urllib3"), with_article("")
    ('a urllib3', 'a ')
    """
    return f"an {name}" if name[:1].lower() in ("a", "e", "i", "o") else f"a {name}"
