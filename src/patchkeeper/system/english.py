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


def first_clause(text: str) -> str:
    """``text`` up to its first ``;`` that ends a clause: one outside a quoted line
    (``'...'``), a code span (between backquotes), parentheses and brackets, so a quoted
    changelog line or a parenthesis that holds a ``;`` is kept whole; all of ``text`` when it
    has no such ``;``. An apostrophe within a word (``release's``) opens no quote. When a
    quote or bracket is never closed, the first ``;`` of all.

    >>> first_clause("upstream has it (at 2 places; both fit); to do: retire")
    'upstream has it (at 2 places; both fit)'
    >>> first_clause("the release's changelog lists it: NEWS line 3: 'Fix a; b', new; more")
    "the release's changelog lists it: NEWS line 3: 'Fix a; b', new"
    """
    depth = 0
    quote = ""
    for index, char in enumerate(text):
        if quote:
            after = text[index + 1 : index + 2]
            if char == quote and (quote == "`" or not after.isalnum()):
                quote = ""
        elif char == "`" or (char == "'" and (index == 0 or text[index - 1] in " ([")):
            quote = char
        elif char in "([":
            depth += 1
        elif char in ")]" and depth:
            depth -= 1
        elif char == ";" and not depth:
            return text[:index]
    if quote or depth:
        return text.split(";")[0]
    return text
