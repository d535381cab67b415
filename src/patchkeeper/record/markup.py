"""A small document model rendered to Markdown and to one self-contained HTML page.

The audit record has one content and two forms (``--html`` writes a
single self-contained HTML page with the same content), so the record is built once as
blocks (:class:`Heading`, :class:`Paragraph`, :class:`Table`, :class:`Bullets`,
:class:`Preformatted`) and each form renders the same blocks. Text may hold code spans in
backquotes; everything else is escaped for its form. The HTML page has its CSS inline and no
external resource, so it reads the same from a file, a CI artifact or a mail attachment.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from patchkeeper.system.markdown_cells import CODE_SPAN, escape_html

#: A cell holds one line or several (joined with a line break).
Cell = str | tuple[str, ...]


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    anchor: str = ""


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]


@dataclass(frozen=True)
class Preformatted:
    text: str


@dataclass(frozen=True)
class Table:
    """A table; a non-empty cell in ``flag_column`` is marked (red in HTML); ``widths``
    (CSS lengths, one per column) fix the HTML column widths of a wide table."""

    headers: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    flag_column: int | None = None
    widths: tuple[str, ...] = field(default=())


Block = Heading | Paragraph | Bullets | Preformatted | Table


# --------------------------------------------------------------------------- Markdown


def _md_plain(text: str) -> str:
    for char in ("\\", "*", "_", "[", "]"):
        text = text.replace(char, "\\" + char)
    # the cells' HTML escape (an entity's & too), then every other < as well
    return escape_html(text).replace("<", "&lt;")


def md_inline(text: str) -> str:
    """Escape ``text`` for Markdown, keeping its code spans: its emphasis, link and escape
    characters written as text, and its HTML (:func:`patchkeeper.system.markdown_cells.escape_html`,
    then every ``<``).

    >>> md_inline("a_b `c_d` <e> &amp;")
    'a\\\\_b `c_d` &lt;e> &amp;amp;'
    """
    out, last = [], 0
    for match in CODE_SPAN.finditer(text):
        out.append(_md_plain(text[last : match.start()]))
        out.append(match.group(0))
        last = match.end()
    out.append(_md_plain(text[last:]))
    return "".join(out)


def _md_cell(cell: Cell) -> str:
    lines = (cell,) if isinstance(cell, str) else cell
    text = "<br>".join(md_inline(line) for line in lines)
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(blocks: list[Block]) -> str:
    """The blocks as Markdown (GitHub's flavour: pipe tables), ending in one newline."""
    out: list[str] = []
    for block in blocks:
        if isinstance(block, Heading):
            out.append("#" * block.level + " " + md_inline(block.text))
        elif isinstance(block, Paragraph):
            out.append(md_inline(block.text))
        elif isinstance(block, Bullets):
            out.append("\n".join(f"- {md_inline(item)}" for item in block.items))
        elif isinstance(block, Preformatted):
            fence = "````" if "```" in block.text else "```"
            out.append(f"{fence}\n{block.text}\n{fence}")
        else:
            lines = [
                "| " + " | ".join(md_inline(h) for h in block.headers) + " |",
                "|" + "---|" * len(block.headers),
            ]
            lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows]
            out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


# --------------------------------------------------------------------------- HTML

STYLE = """
body { font-family: -apple-system, "Segoe UI", "DejaVu Sans", Arial, sans-serif;
  font-size: 14px; line-height: 1.45; color: #1f2328; background: #ffffff;
  margin: 24px; }
h1 { font-size: 24px; border-bottom: 1px solid #d0d7de; padding-bottom: 6px; }
h2 { font-size: 19px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; margin-top: 28px; }
h3 { font-size: 16px; margin-top: 20px; }
table { border-collapse: collapse; margin: 8px 0 16px 0; width: 100%; table-layout: auto; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top;
  overflow-wrap: anywhere; }
th { background: #f6f8fa; font-weight: 600; white-space: nowrap; }
table.fixed { table-layout: fixed; }
table.fixed th { white-space: normal; }
tr:nth-child(even) td { background: #fbfcfd; }
td.flag { background: #ffebe9 !important; color: #82071e; font-weight: 600; }
code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px;
  background: #eff1f3; padding: 0 3px; border-radius: 3px; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; padding: 8px; font-size: 12.5px;
  white-space: pre-wrap; overflow-wrap: anywhere; }
ul { padding-left: 22px; }
p, li { overflow-wrap: anywhere; }
"""


#: Where a long code span may wrap: after a separator, or inside a long run of letters/digits.
BREAK_AFTER = re.compile(r"([/._:-]+|[0-9A-Za-z]{16}(?=[0-9A-Za-z]{8}))")


def _code_html(code: str) -> str:
    """A code span with ``<wbr>`` where a path, dotted name or hash may wrap in a narrow
    column (a word-break opportunity that adds no character)."""
    return "".join(
        html.escape(part, quote=False) + ("<wbr>" if index % 2 else "")
        for index, part in enumerate(BREAK_AFTER.split(code))
    )


def html_inline(text: str) -> str:
    """Escape ``text`` for HTML and turn its code spans into ``<code>``.

    >>> html_inline("a < b `c&d/e`")
    'a &lt; b <code>c&amp;d/<wbr>e</code>'
    """
    out, last = [], 0
    for match in CODE_SPAN.finditer(text):
        out.append(html.escape(text[last : match.start()], quote=False))
        out.append(f"<code>{_code_html(match.group(1))}</code>")
        last = match.end()
    out.append(html.escape(text[last:], quote=False))
    return "".join(out)


def _html_cell(cell: Cell) -> str:
    lines = (cell,) if isinstance(cell, str) else cell
    return "<br>".join(html_inline(line) for line in lines)


def _html_table(block: Table) -> str:
    head = "".join(f"<th>{html_inline(h)}</th>" for h in block.headers)
    rows = []
    for row in block.rows:
        cells = []
        for index, cell in enumerate(row):
            flagged = index == block.flag_column and bool(cell)
            attribute = ' class="flag"' if flagged else ""
            cells.append(f"<td{attribute}>{_html_cell(cell)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    body = "\n".join(rows)
    columns = ""
    opening = "<table>"
    if block.widths:
        columns = "<colgroup>" + "".join(f'<col style="width: {w}">' for w in block.widths)
        columns += "</colgroup>\n"
        opening = '<table class="fixed">'
    return (
        f"{opening}\n{columns}<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"
    )


def to_html(blocks: list[Block], title: str) -> str:
    """The blocks as one HTML5 page with inline CSS and no external resource."""
    out = []
    for block in blocks:
        if isinstance(block, Heading):
            anchor = f' id="{html.escape(block.anchor)}"' if block.anchor else ""
            level = block.level
            out.append(f"<h{level}{anchor}>{html_inline(block.text)}</h{level}>")
        elif isinstance(block, Paragraph):
            out.append(f"<p>{html_inline(block.text)}</p>")
        elif isinstance(block, Bullets):
            items = "".join(f"<li>{html_inline(item)}</li>" for item in block.items)
            out.append(f"<ul>{items}</ul>")
        elif isinstance(block, Preformatted):
            out.append(f"<pre>{html.escape(block.text, quote=False)}</pre>")
        else:
            out.append(_html_table(block))
    body = "\n".join(out)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n"
        f"<body>\n{body}\n</body>\n</html>\n"
    )
