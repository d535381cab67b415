"""The upgrade horizon as a table: one row per patch, one column per release."""

from __future__ import annotations

from patchkeeper.audit.horizon import HorizonResult
from patchkeeper.audit.verdicts import (
    BLOCKED,
    CLEAN,
    CONFLICT,
    OFFSET,
    PARTIALLY_UPSTREAMED,
    TARGET_GONE,
    UNREADABLE,
    UPSTREAMED,
)
from patchkeeper.render import markdown_renderer, text_renderer
from patchkeeper.render.console import current
from patchkeeper.system.names import shown_name

#: Shorter verdict words for a table too wide for the terminal (a legend says what they mean).
SHORT: dict[str, str] = {
    UPSTREAMED: "upstr.",
    PARTIALLY_UPSTREAMED: "partial",
    TARGET_GONE: "gone",
    CONFLICT: CONFLICT.value,
    BLOCKED: BLOCKED.value,
    CLEAN: CLEAN.value,
    OFFSET: OFFSET.value,
    UNREADABLE: "unread.",
}

#: A patch name is never cut shorter than this many characters.
MIN_NAME = 16

GAP = "  "

#: The width of a table that has no width to fit (a pipe without ``$COLUMNS``).
UNLIMITED = 1_000_000


#: What the next pin is, in words: a release where no patch is
#: :data:`patchkeeper.audit.horizon.BLOCKING` (a conflict that a refresh carries is not).
BLOCKING_WORDS = "that needs no patch ported by hand"


def next_pin_line(result: HorizonResult) -> str:
    """The suggestion under the table: the next pin ("stay at" when it is the configured
    pin), or none, and why: every release needs a patch ported, or every release of the
    range is older than the pin (a range below the pin holds no next pin)."""
    if result.next_pin is None and result.below_pin:
        name = result.envelope_target["name"]
        return (
            f"next pin: none (every release of the range is older than the pin {result.pin}:"
            f" audit a range above it, such as '{name}>{result.pin}')"
        )
    if result.next_pin is None:
        line = "next pin: none (every release needs a patch ported by hand)"
        at_pin = result.blocking_at_pin
        if at_pin:  # no later release can be better than a pin the series misses
            which = "that patch" if len(at_pin) == 1 else "those patches"
            line += (
                f"; the series does not apply at its pin {result.pin} itself "
                f"({', '.join(at_pin)}): fix or drop {which}, then audit again"
            )
        return line
    stay = "stay at " if result.next_pin_is_current else ""
    line = f"next pin: {stay}{result.next_pin} (highest release {BLOCKING_WORDS}"
    unread = [shown_name(v.name) for v in result.unreadable]
    if unread:  # a patch that cannot be read was judged nowhere: the pin holds without it
        names = unread[0] if len(unread) == 1 else f"{', '.join(unread[:-1])} and {unread[-1]}"
        line += f", not counting {names}, which cannot be read"
    return line + ")"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def horizon_table(result: HorizonResult, width: int) -> list[str]:
    """The table's lines, fitted to ``width`` columns: full verdict words when they fit, else
    the :data:`SHORT` words (with a legend line), patch names cut with ``...``; when even
    then the releases do not fit side by side, the table is split into blocks of releases
    that do, each with its own header and the patch names again, so that every verdict stays
    under its own release (a line folded by the terminal would put it under another)."""
    versions = [r.version for r in result.releases]
    rows = {name: list(result.row(name)) for name in result.patches}
    name_width = max([len("patch"), *(len(n) for n in result.patches)])
    for words in (None, SHORT):
        cells = {n: [words.get(v, v) if words else v for v in row] for n, row in rows.items()}
        widths = [
            max([len(version), *(len(cells[n][i]) for n in cells)])
            for i, version in enumerate(versions)
        ]
        room = width - len(GAP) - sum(len(GAP) + w for w in widths)
        if room >= name_width or words is SHORT:
            break
    lines: list[str] = []
    if room >= min(name_width, MIN_NAME):
        blocks = [list(range(len(versions)))]
        names = min(name_width, max(MIN_NAME, room))
    else:
        names = min(name_width, MIN_NAME)
        blocks = _blocks(widths, width - len(GAP) - names)
    for number, block in enumerate(blocks):
        if number:
            lines.append("")
        header = [_cut("patch", names).ljust(names), *(versions[i].ljust(widths[i]) for i in block)]
        lines.append((GAP + GAP.join(header)).rstrip())
        for name in result.patches:
            row = [
                _cut(name, names).ljust(names),
                *(cells[name][i].ljust(widths[i]) for i in block),
            ]
            lines.append((GAP + GAP.join(row)).rstrip())
    if words is SHORT:
        used = sorted({c for row in cells.values() for c in row} - set(rows_words(rows)))
        legend = ", ".join(f"{s} = {_long(s)}" for s in used)
        if legend:
            lines.append(f"{GAP}({legend})")
    return lines


def _blocks(widths: list[int], room: int) -> list[list[int]]:
    """The release columns (indexes into ``widths``) split into runs whose columns, each
    with its gap, fit in ``room`` characters; every run holds at least one column."""
    blocks: list[list[int]] = [[]]
    used = 0
    for index, column in enumerate(widths):
        if blocks[-1] and used + len(GAP) + column > room:
            blocks.append([])
            used = 0
        blocks[-1].append(index)
        used += len(GAP) + column
    return blocks


def rows_words(rows: dict[str, list[str]]) -> set[str]:
    """Every verdict word in ``rows`` (to leave the unshortened ones out of the legend)."""
    return {word for row in rows.values() for word in row}


def _long(short: str) -> str:
    return next(long for long, s in SHORT.items() if s == short)


@text_renderer(HorizonResult)
def horizon_text(result: HorizonResult) -> str:
    """The horizon for a terminal, fitted to its width (``$COLUMNS``, else the terminal's;
    not cut at all when there is neither: see :mod:`patchkeeper.render.console`)."""
    width = current().width or UNLIMITED
    out = [
        f"upgrade horizon of {result.series} (pin {result.pin or 'not set'})",
        f"releases in {result.requirement}: {', '.join(r.version for r in result.releases)}",
    ]
    if result.left_out_note is not None:
        out.append(result.left_out_note)
    if result.pin_tree is not None:
        out.append(f"weighed against the old pin's tree: {result.pin_tree}")
    elif result.pin_note is not None:
        out.append(f"not weighed against the old pin's tree: {result.pin_note}")
    out.append("")
    out.extend(horizon_table(result, width))
    out.append("")
    out.extend(f"{v.name} (unreadable): {v.summary}" for v in result.unreadable)
    out.append(next_pin_line(result))
    return "\n".join(out) + "\n"


@markdown_renderer(HorizonResult)
def horizon_markdown(result: HorizonResult) -> str:
    """The horizon as Markdown, for a pull request: the table with every verdict in full."""
    versions = [r.version for r in result.releases]
    out = [
        f"## Upgrade horizon: {result.requirement}",
        "",
        f"Series `{result.series}`, pin {result.pin or 'not set'}; releases {', '.join(versions)}.",
        "",
        *([result.left_out_note, ""] if result.left_out_note is not None else []),
        "| patch | " + " | ".join(versions) + " |",
        "|---|" + "---|" * len(versions),
    ]
    for name in result.patches:
        out.append(f"| `{name}` | " + " | ".join(result.row(name)) + " |")
    out.append("")
    for verdict in result.unreadable:
        out += [f"`{verdict.name}` (unreadable): {verdict.summary}", ""]
    out.append(f"**{next_pin_line(result)}**")
    return "\n".join(out) + "\n"
