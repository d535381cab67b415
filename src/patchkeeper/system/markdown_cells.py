"""Text for one cell of a Markdown table, as every Markdown form of patchkeeper writes it:
the ledger's table, ``audit``'s, ``port``'s, ``upgrade``'s, the runtime commands' and the
lint and branch reports.

A value goes into a GitHub-flavoured pipe table (GFM spec, "Tables (extension)") and must
show as written: no ``|`` or line break of it may end the cell or the row, and no tag of it
may reach the rendered page (``Subject: Escape <script> in titles``, an evidence line quoting
code). :func:`escape_cell` writes

- a ``|`` as ``\\|``, a line break as ``<br>``;
- a ``<`` that would start raw HTML (CommonMark "Raw HTML": a tag, a closing tag, a
  comment, a declaration) as ``&lt;``, and a ``&`` that would start an entity or character
  reference as ``&amp;`` (:func:`escape_html`); a ``<`` or ``&`` before anything else
  (``a < b``, ``R&D``) is text and stays;
- a backslash that would escape the character after it (one before ASCII punctuation, or
  at a line's end, before the ``<br>``) as two, so it shows and a ``\\|`` of the value does
  not end the cell.

Code spans (text between single backquotes) are code: a renderer shows their text as it is,
so in them only ``|`` is escaped, as the table needs. :func:`unescape_cell` reads a cell
back (the ledger's rows are read to find the patches' names). The same value in a paragraph
has its HTML escaped alone (:func:`escape_inline`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: A code span: text between single backquotes on one line (the text its group).
CODE_SPAN = re.compile(r"`([^`\n]+)`")
#: A ``<`` a Markdown renderer reads as the start of raw HTML (CommonMark "Raw HTML": an
#: open or closing tag, a comment, a declaration, a processing instruction): ``<script>``,
#: ``</b>``, ``<!--``, ``<?``. A ``<`` before anything else (``a < b``, ``a<2``) is text.
_HTML_START = re.compile(r"<(?=[A-Za-z/!?])")
#: A ``&`` a renderer reads as the start of an entity or character reference (``&lt;``,
#: ``&#60;``); a ``&`` before anything else (``R&D``, ``a & b``) is text.
_REFERENCE_START = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
#: What :func:`escape_html` writes for ``<`` and ``&``, read back by :func:`unescape_cell`.
_REFERENCES = {"&lt;": "<", "&amp;": "&"}
_REFERENCE = re.compile("|".join(_REFERENCES))
#: A backslash CommonMark reads as escaping the character after it (ASCII punctuation), or
#: one at the end of a line's text (the ``<br>`` follows it): written twice.
_ESCAPING_BACKSLASH = re.compile(r"\\(?=[!-/:-@\[-`{-~]|$)")
#: A backslash :func:`escape_cell` wrote twice.
_DOUBLED_BACKSLASH = re.compile(r"\\\\(?=[!-/:-@\[-`{-~]|$)")
#: The line break of a cell.
BREAK = "<br>"

_Map = Callable[[str], str]


def escape_html(text: str) -> str:
    """``text`` with every ``<`` that would start raw HTML written ``&lt;`` and every ``&``
    that would start an entity written ``&amp;``: a renderer shows it as written.

    >>> escape_html("drop <script> & &lt; at a<2")
    'drop &lt;script> & &amp;lt; at a<2'
    """
    return _HTML_START.sub("&lt;", _REFERENCE_START.sub("&amp;", text))


def escape_inline(text: str) -> str:
    """``text`` for a paragraph of Markdown: :func:`escape_html` outside its code spans.

    >>> escape_inline("<b> in `a<b>`")
    '&lt;b> in `a<b>`'
    """
    return _map_text(text, escape_html, str)


def escape_cell(value: str) -> str:
    """``value`` as the text of one Markdown table cell (see the module's docstring): its
    lines stripped and joined with ``<br>``, HTML and escaping backslashes written as text,
    ``|`` as ``\\|``; in code spans only ``|`` escaped.

    >>> escape_cell("a | b\\nc")
    'a \\\\| b<br>c'
    >>> escape_cell("drop <script> & &lt; at a<2")
    'drop &lt;script> & &amp;lt; at a<2'
    >>> escape_cell("C:\\\\dir \\\\| `x<T> | y`")
    'C:\\\\dir \\\\\\\\\\\\| `x<T> \\\\| y`'
    """
    text = value.replace("\r\n", "\n").replace("\r", "\n").strip()
    return BREAK.join(
        _map_text(line.strip(), _escape_text, _escape_code) for line in text.split("\n")
    )


def unescape_cell(cell: str) -> str:
    """The value of one table cell :func:`escape_cell` wrote (its ``<br>`` left as it is).

    >>> unescape_cell("drop &lt;script> & &amp;lt; \\\\| a<2")
    'drop <script> & &lt; | a<2'
    >>> unescape_cell("C:\\\\dir \\\\\\\\\\\\| `x<T> \\\\| y`")
    'C:\\\\dir \\\\| `x<T> | y`'
    """
    return BREAK.join(_map_text(part, _unescape_text, _unescape_code) for part in cell.split(BREAK))


def _map_text(line: str, text: _Map, code: _Map) -> str:
    """``line`` with ``code`` applied to its code spans and ``text`` to the rest."""
    out, last = [], 0
    for match in CODE_SPAN.finditer(line):
        out += [text(line[last : match.start()]), code(match.group())]
        last = match.end()
    out.append(text(line[last:]))
    return "".join(out)


def _escape_text(text: str) -> str:
    return _ESCAPING_BACKSLASH.sub(r"\\\\", escape_html(text)).replace("|", "\\|")


def _escape_code(code: str) -> str:
    return code.replace("|", "\\|")


def _unescape_text(text: str) -> str:
    text = _DOUBLED_BACKSLASH.sub(r"\\", text.replace("\\|", "|"))
    return _REFERENCE.sub(lambda match: _REFERENCES[match.group()], text)


def _unescape_code(code: str) -> str:
    return code.replace("\\|", "|")
