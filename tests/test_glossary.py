"""The glossary (``docs/glossary.md``) defines each word once: one word for one thing, and
one place that says what it is.

A word is defined where it is written in bold (``**word**``); a later use of a defined word
is plain or in italics. The same word in bold twice is two definitions that can drift apart
(or one word with two meanings), so the test fails on it.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

GLOSSARY = Path(__file__).resolve().parent.parent / "docs" / "glossary.md"

#: ``**word**``, possibly over a line break, possibly in code quotes (``**`RECORD`**``).
BOLD = re.compile(r"\*\*(?P<word>[^*]+?)\*\*")


def defined_words(text: str) -> list[str]:
    """The words ``text`` defines (in bold), lower case, spaces and line breaks as one space,
    code quotes left out, in order.

    >>> defined_words("a **Patch**: one file; the **file\\n  diff** and **`RECORD`**")
    ['patch', 'file diff', 'record']
    """
    return [
        " ".join(found.group("word").strip("`").lower().split()) for found in BOLD.finditer(text)
    ]


def test_the_glossary_defines_each_word_once() -> None:
    words = defined_words(GLOSSARY.read_text(encoding="utf-8"))
    twice = sorted(word for word, count in Counter(words).items() if count > 1)
    assert len(words) > 60, words  # the page is read: it defines its words in bold
    assert twice == [], f"defined more than once in {GLOSSARY.name}: {twice}"


def test_a_word_defined_twice_is_found() -> None:
    text = "- **conflict**: a hunk fails.\n- later in **Conflict**, a *conflict* again\n"
    assert Counter(defined_words(text)) == Counter({"conflict": 2})
