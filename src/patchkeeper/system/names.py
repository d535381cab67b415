"""How a file name is shown: the one form for messages, the terminal, Markdown and JSON.

A file name is bytes; patchkeeper holds it as text decoded from UTF-8 with
``surrogateescape``, so a byte that is not part of valid UTF-8 (a Latin-1 ``café.patch``
has the byte ``0xe9``) is a lone surrogate (``"caf\\udce9.patch"``). Printed as it is, such
a name comes out three ways: the raw byte (which a UTF-8 terminal shows as ``�``), Python's
``\\udce9`` escape on standard error, or, in JSON, the Latin-1 character (``é``, which
names another file). :func:`shown_name` gives the one form every output uses instead:
git's quoted form (``"caf\\351.patch"``, as ``git status`` and ``git diff`` name such a
file), which a user can copy into a shell (``$'caf\\351.patch'``) and which
:func:`unquoted_name` (git's unquoting) maps back to the very bytes. A name that is valid
UTF-8 is shown as it is.
"""

from __future__ import annotations

import re

#: What makes a name quoted: a byte that is not valid UTF-8 (kept as a lone surrogate), or a
#: leading double quote (so that a quoted form never reads as a plain name).
_NEEDS_QUOTES = re.compile('[\udc80-\udcff]|^"')

#: The characters written as a backslash escape inside the quotes, as git writes them.
_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
}
_UNESCAPES = {value[1]: key for key, value in _ESCAPES.items()}


def shown_name(name: str) -> str:
    """``name`` (a file name or path, read with ``surrogateescape``) as every output shows
    it: as it is when it is valid UTF-8, else in git's quoted form, each byte that is not
    valid UTF-8 (and each control character) as a three-digit octal escape, ``"`` and ``\\``
    escaped with a backslash.

    >>> shown_name("café.patch"), shown_name("caf\\udce9.patch")
    ('café.patch', '"caf\\\\351.patch"')
    >>> print(shown_name('patches/caf\\udce9 "x".patch'))
    "patches/caf\\351 \\"x\\".patch"
    """
    if _NEEDS_QUOTES.search(name) is None:
        return name
    out = []
    for char in name:
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\{code - 0xDC00:03o}")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\{code:03o}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def unquoted_name(text: str) -> str:
    """Undo git's quoting of a name (:func:`shown_name`'s form, and the form of a ``diff
    --git`` line's names): ``"a/sp\\303\\251c"`` -> ``a/spéc``; a byte that is not valid
    UTF-8 comes back as its lone surrogate. Text that is not quoted is returned as it is.

    >>> unquoted_name('"caf\\\\351.patch"') == "caf\\udce9.patch", unquoted_name("x.patch")
    (True, 'x.patch')
    >>> all(unquoted_name(shown_name(n)) == n for n in ['"q', "a\\\\b\\udcff", "t\\tab"])
    True
    """
    if not (len(text) >= 2 and text[0] == '"' and text[-1] == '"'):
        return text
    body, out, index = text[1:-1], bytearray(), 0
    while index < len(body):
        char = body[index]
        if char == "\\" and index + 1 < len(body):
            nxt = body[index + 1]
            if nxt in "01234567":
                out.append(int(body[index + 1 : index + 4], 8) & 0xFF)
                index += 4
                continue
            out += _UNESCAPES.get(nxt, nxt).encode("utf-8", "surrogateescape")
            index += 2
            continue
        out += char.encode("utf-8", "surrogateescape")
        index += 1
    return out.decode("utf-8", "surrogateescape")
