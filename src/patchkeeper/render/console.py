"""The terminal: how wide the text output may be, whether it has colour, and the progress bars
on standard error; the one owner of ``rich`` (imported only inside the functions that draw to
a terminal, never when this module is imported, so ``patchkeeper --help`` starts fast).

What is decided (docs/terminal-output.md):

- width: ``$COLUMNS`` when set (a positive number), else the terminal's width when standard
  output is a terminal, else none: a pipe or a file gets one line per row, as a script
  expects (``grep`` keeps working);
- colour: on a terminal only, unless ``NO_COLOR`` is set and not empty (no-color.org: it
  always wins) or ``PATCHKEEPER_COLOR`` says ``always``/``never`` (``FORCE_COLOR`` set and
  not empty, as CI services use it, means ``always`` when ``PATCHKEEPER_COLOR`` is unset);
- progress bars: on standard error when it is a terminal, else nothing is printed; a bar
  appears only once its step has run :data:`BAR_DELAY` seconds, so a short step (a scan of
  4 files) does not flash one, and goes away when its step ends;
- status lines (:class:`StatusLine`: ``scanning ... for moved content``): one line on
  standard error, cut to its width, replaced by the next and erased when a bar, a warning
  or the command's output comes, so that none is left on the screen.

Renderers build their text at the width of :func:`current` (tables through :func:`table`);
``main`` then passes the whole text through :func:`finish`, which wraps the lines still too
long at word boundaries (the rest under the row's second column, or indented deeper than the
line) and colours the verdicts.
"""

from __future__ import annotations

import functools
import io
import os
import re
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

from patchkeeper.constants import COLOR_ENV


@dataclass(frozen=True)
class Terminal:
    """How text output is shaped.

    Attributes:
        width: columns a line may take; ``None`` when lines are never wrapped or cut
            (standard output is not a terminal and ``$COLUMNS`` is not set).
        colour: whether verdicts are coloured (ANSI escape codes in the text).
    """

    width: int | None
    colour: bool


#: Text as it always was: no width, no colour (a pipe; renderers called from a test).
PLAIN = Terminal(width=None, colour=False)

_current = PLAIN

#: A cell of a table (a patch name) is never cut shorter than this many characters.
MIN_CELL = 16

#: A progress bar is never narrower than this many cells.
MIN_BAR = 10

#: Continuation lines of a wrapped line are indented this much more than the line.
HANG = "      "

#: Verdict words and their colours: red needs work, yellow wants a look, green is good, cyan
#: upstream has it. A word is coloured where it is a whole cell of a row (cells are two spaces
#: or more apart; any case: ``RETAIN``), so prose that uses it is left alone; ``ok:`` and
#: ``not ok:`` where a line starts with them.
COLOURS = {
    "not ok:": "red",
    "ok:": "green",
    "not applied": "red",
    "partially applied": "yellow",
    "partially upstreamed": "yellow",
    "applied": "green",
    "clean": "green",
    "offset": "yellow",
    "upstreamed": "cyan",
    "upstr.": "cyan",
    "partial": "yellow",
    "conflict": "red",
    "target gone": "red",
    "gone": "red",
    "blocked": "red",
    "merged": "yellow",
    "resolved": "green",
    "dropped": "cyan",
    "retain": "green",
    "update": "yellow",
    "migrate": "yellow",
    "remove": "cyan",
    "look": "red",
}

#: Two spaces or more: what separates the cells of a row.
_CELL_GAP = re.compile(r"( {2,})")


#: Lines never wrapped, whatever the width: those of a unified diff (a stale ledger's diff
#: can be saved and applied) and GitHub workflow commands (``::error file=...``), which are
#: read by programs.
VERBATIM = re.compile(r"^(?:[-+@](?!\s*$)|\s(?!\s)|diff |index |::)")


def detect(stream: IO[str] | Any, environ: Mapping[str, str]) -> Terminal:
    """The shape of output to ``stream`` (standard output) under ``environ``.

    >>> import io
    >>> detect(io.StringIO(), {})
    Terminal(width=None, colour=False)
    >>> detect(io.StringIO(), {"COLUMNS": "80", "PATCHKEEPER_COLOR": "always"})
    Terminal(width=80, colour=True)
    >>> detect(io.StringIO(), {"PATCHKEEPER_COLOR": "always", "NO_COLOR": "1"}).colour
    False
    >>> detect(io.StringIO(), {"FORCE_COLOR": "1"}).colour
    True
    """
    tty = _is_terminal(stream)
    width = _columns(environ)
    if width is None and tty:
        width = _terminal_width(stream)
    forced = "always" if environ.get("FORCE_COLOR", "") else "auto"
    mode = environ.get(COLOR_ENV, forced).strip().lower()
    colour = mode == "always" or (mode != "never" and tty)
    if environ.get("NO_COLOR", ""):
        colour = False
    return Terminal(width=width, colour=colour)


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _columns(environ: Mapping[str, str]) -> int | None:
    value = environ.get("COLUMNS", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


def _terminal_width(stream: Any) -> int | None:
    try:
        return os.get_terminal_size(stream.fileno()).columns or None
    except (AttributeError, ValueError, OSError):
        return None


def use(terminal: Terminal) -> None:
    """Render the text of the command that runs for ``terminal`` (``main`` sets it)."""
    global _current
    _current = terminal


def current() -> Terminal:
    """The :class:`Terminal` renderers build their text for (:data:`PLAIN` unless
    :func:`use` said otherwise)."""
    return _current


#: What ends a diff line cut at the width (its whole text is in ``--json`` and ``--markdown``).
CUT_MARK = "\u2026"


def diff_lines(lines: Iterable[str], indent: str) -> list[str]:
    """Lines of a diff (each starting with its ``+``, ``-``, `` `` or ``@`` sign, or two
    signs for a range-diff) put after ``indent`` for the terminal, never wrapped.

    A wrapped diff line would go on under the block's indent without its sign, and its tail
    would read as unchanged context; the terminal wraps a line longer than its width the
    same way. So with a width (:func:`current`) a longer line is cut to it, ending in
    :data:`CUT_MARK` (tabs expanded to 8 columns first, as the terminal shows them; wide
    characters counted by their cells), and :func:`finish` leaves it as it is. With no width
    (a pipe) every line is whole.

    >>> use(Terminal(width=12, colour=False))
    >>> diff_lines(["+short", "+a longer added line"], "  ")
    ['  +short', '  +a longer\u2026']
    >>> use(PLAIN)
    """
    width = current().width
    if width is None:
        return [indent + line for line in lines]
    from rich.text import Text

    out = []
    for line in lines:
        text = Text((indent + line).expandtabs(8))
        text.truncate(max(width, len(indent) + 2), overflow="ellipsis")
        out.append(text.plain)
    return out


def _cut(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, ending in ``...`` when cut."""
    return text if len(text) <= width else text[: max(width - 3, 0)] + "..."


def table(rows: Sequence[tuple[str, ...]], indent: str = "  ") -> list[str]:
    """Rows as left-aligned columns two spaces apart, the last column not padded.

    With no width (:func:`current`) each row is one line, however long. With a width, the
    table fits it: when the first columns leave less than two fifths of it to the last, their
    longest cells are cut with ``...`` (:func:`_caps`; the whole text is in ``--json`` and
    ``--markdown``), and the last column (the evidence) wraps at word boundaries (``rich``'s
    word wrap, which counts the cells of wide characters) under its own start.

    Args:
        rows: rows of equally many cells; the first row is the header when there is one.
        indent: put before every line.

    Returns:
        The lines, without trailing spaces.
    """
    if not rows:
        return []
    width = current().width
    if width is None:
        return _plain_table(rows, indent)
    return _fitted_table(rows, indent, width)


def _plain_table(rows: Sequence[tuple[str, ...]], indent: str) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    out = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths)] + [row[-1]]
        out.append((indent + "  ".join(cells)).rstrip())
    return out


def _fitted_table(rows: Sequence[tuple[str, ...]], indent: str, width: int) -> list[str]:
    """The rows laid out in ``width`` columns: the first columns cut to :func:`_caps` and
    padded, the last wrapped (``rich``'s word wrap) in what is left, under its own start."""
    from rich.cells import cell_len

    room = max(width - len(indent), 2 * MIN_CELL)
    caps = _caps(rows, room)
    cut = [[_cut(cell.rstrip(), cap) for cell, cap in zip(row, caps)] for row in rows]
    widths = [max(cell_len(row[i]) for row in cut) for i in range(len(caps))]
    start = len(indent) + sum(widths) + 2 * len(widths)
    if width - start < MIN_CELL:
        return _stacked_table(rows, indent, width)
    last = max(width - start, MIN_CELL)
    out = []
    for cells, row in zip(cut, rows):
        head = indent + "".join(_pad(cell, w) + "  " for cell, w in zip(cells, widths))
        pieces = _wrap_words(row[-1], last) or [""]
        out.append((head + pieces[0]).rstrip())
        out.extend(" " * start + piece for piece in pieces[1:])
    return out


def _stacked_table(rows: Sequence[tuple[str, ...]], indent: str, width: int) -> list[str]:
    """The rows when the last column has less than :data:`MIN_CELL` columns beside the
    others (a narrow terminal): each row's first cells on one line (cut to the whole width,
    :func:`_caps`), its last cell wrapped at word boundaries under them, four columns deeper
    than the row, in the whole width (rather than a column a few characters wide that
    :func:`finish` would wrap again)."""
    from rich.cells import cell_len

    room = max(width - len(indent), 2 * MIN_CELL)
    caps = _caps([(*row[:-1], "") for row in rows], room)
    cut = [[_cut(cell.rstrip(), cap) for cell, cap in zip(row, caps)] for row in rows]
    widths = [max(cell_len(row[i]) for row in cut) for i in range(len(caps))]
    under = " " * (len(indent) + 4)
    out = []
    for cells, row in zip(cut, rows):
        out.append((indent + "".join(_pad(c, w) + "  " for c, w in zip(cells, widths))).rstrip())
        pieces = _wrap_words(row[-1], max(width - len(under), MIN_CELL))
        out.extend(under + piece for piece in pieces if piece)
    return out


def _pad(cell: str, width: int) -> str:
    """``cell`` padded with spaces to ``width`` terminal cells."""
    from rich.cells import cell_len

    return cell + " " * (width - cell_len(cell))


def _wrap_words(text: str, width: int) -> list[str]:
    """``text`` wrapped at word boundaries in lines of at most ``width`` cells (a word
    longer than that folded), by ``rich``'s ``Text.wrap``; trailing spaces removed."""
    from rich.text import Text

    return [line.plain.rstrip() for line in Text(text).wrap(_layout(), width, overflow="fold")]


def _caps(rows: Sequence[tuple[str, ...]], room: int) -> list[int]:
    """The widths the first columns may take in ``room`` cells: their own when the table
    fits, else shared fairly (narrow columns whole, the rest cut to what is left, never
    below :data:`MIN_CELL`), keeping two fifths of the room, or its whole width, for the last
    column.

    >>> _caps([("a-long-patch-name.patch", "conflict", "x " * 40)], 40)
    [16, 8]
    >>> _caps([("a-long-patch-name.patch", "conflict", "short")], 40)
    [23, 8]
    """
    natural = [max(len(row[i].rstrip()) for row in rows) for i in range(len(rows[0]) - 1)]
    last = max(len(row[-1]) for row in rows)
    budget = room - 2 * len(natural) - min(last, room * 2 // 5)
    caps = list(natural)
    left = len(natural)
    for i in sorted(range(len(natural)), key=natural.__getitem__):
        caps[i] = (
            max(MIN_CELL, min(natural[i], budget // left)) if natural[i] > MIN_CELL else natural[i]
        )
        budget -= caps[i]
        left -= 1
    return caps


def finish(text: str, terminal: Terminal) -> str:
    """``text`` made ready for ``terminal``: lines longer than its width wrapped at word
    boundaries (the continuation under the row's second column or :data:`HANG` deeper than
    the line; never the :data:`VERBATIM` ones), verdicts coloured (:data:`COLOURS`) when it
    has colour. Unchanged for :data:`PLAIN`, and for text holding raw bytes of a patch
    (printed byte for byte, as ``cat`` would)."""
    from patchkeeper.jsonable import ESCAPED_BYTE

    if terminal == PLAIN or not text or ESCAPED_BYTE.search(text):
        return text
    out = []
    for line in text.split("\n"):
        for piece in _wrap(line, terminal.width):
            out.append(_paint(piece) if terminal.colour else piece)
    return "\n".join(out)


def _paint(line: str) -> str:
    """``line`` with each verdict cell (:data:`COLOURS`) between the ANSI codes of its
    colour, and a leading ``ok:``/``not ok:`` too."""
    parts = _CELL_GAP.split(line)  # cells at even places, the gaps between them at odd
    for place in range(0, len(parts), 2):
        cell = parts[place]
        word = cell.lower()
        if word.startswith("pending (") and word.endswith(")"):
            word = word[len("pending (") : -1]  # a port's "pending (conflict)": its verdict
        colour = COLOURS.get(word)
        if colour is not None and not cell.endswith(":"):
            before, after = _codes(colour)
            parts[place] = f"{before}{cell}{after}"
    for word in ("not ok:", "ok:"):
        if parts[0].startswith(word):
            before, after = _codes(COLOURS[word])
            parts[0] = f"{before}{word}{after}{parts[0][len(word) :]}"
            break
    return "".join(parts)


@functools.cache
def _codes(colour: str) -> tuple[str, str]:
    """The ANSI codes that start and end ``colour`` (one of the 8 standard colours, as
    ``rich`` writes them): ``("\\x1b[31m", "\\x1b[0m")`` for red."""
    from rich.color import ColorSystem
    from rich.style import Style

    text = Style.parse(colour).render("\0", color_system=ColorSystem.STANDARD)
    before, _, after = text.partition("\0")
    return before, after


def _wrap(line: str, width: int | None) -> list[str]:
    """``line`` as one or more lines of at most ``width`` cells."""
    from rich.cells import cell_len

    if width is None or (line.isascii() and len(line) <= width):
        return [line]  # the common case, without measuring cells
    if VERBATIM.match(line) or cell_len(line) <= width:
        return [line]
    body = line.lstrip(" ")
    indent = line[: len(line) - len(body)]
    hang = _hang(line, indent, width)
    first = (_wrap_words(body, max(width - len(indent), MIN_CELL)) or [""])[0]
    if body.startswith(first):  # the first line takes the whole width, the rest less
        rest = _wrap_words(body[len(first) :].lstrip(" "), max(width - hang, MIN_CELL))
        pieces = [first, *rest]
    else:  # a tab in the first line: rich expanded it; wrap the whole at the narrower width
        pieces = _wrap_words(body, max(width - hang, MIN_CELL)) or [""]
    return [indent + pieces[0], *(" " * hang + piece for piece in pieces[1:])]


#: A row's first cell (one word after the indent) and the gap of two spaces or more after it.
_FIRST_CELL = re.compile(r" *\S+ {2,}(?=\S)")


def _hang(line: str, indent: str, width: int) -> int:
    """Where the continuation of a wrapped ``line`` starts: under its second cell when it
    is a row (``RETAIN       plugin/x.py:11  decorator``) whose first cell takes less than
    half the width, else :data:`HANG` deeper than the line (not when too little would be
    left of the width).

    >>> _hang("RETAIN       a.py:11  decorator", "", 80), _hang("  a long sentence", "  ", 80)
    (13, 8)
    """
    cell = _FIRST_CELL.match(line)
    if cell is not None and cell.end() <= width // 2:
        return cell.end()
    deeper = len(indent) + len(HANG)
    return deeper if width - deeper >= MIN_CELL else len(indent)


@functools.lru_cache(maxsize=1)
def _layout() -> Any:
    """The ``rich`` Console that measures and wraps text: it writes nowhere and decides
    nothing about colour (:func:`detect` did)."""
    from rich.console import Console

    return Console(
        file=io.StringIO(),
        width=1_000_000,
        force_terminal=False,
        no_color=True,
        color_system=None,
        markup=False,
        emoji=False,
        highlight=False,
        legacy_windows=False,
    )


#: Seconds a step runs before its bar is drawn: work shorter than this shows no bar.
BAR_DELAY = 0.5

#: The ANSI codes that take the cursor to the start of the line and erase the line.
ERASE_LINE = "\r\x1b[2K"


def _stream_width(stream: Any) -> int:
    """Columns of the terminal ``stream`` writes to: ``$COLUMNS`` when set, else the
    terminal's width, else 80."""
    return _columns(os.environ) or _terminal_width(stream) or 80


class StatusLine:
    """A transient status line on a terminal's standard error: :meth:`show` writes a
    message in place of the last one (cut to the width with an ellipsis: a line that
    wrapped could not be erased), :meth:`clear` erases it. Written only when no bar is
    drawn on the stream (the bar says what runs then)."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.shown = False
        self._lock = threading.Lock()

    def show(self, message: str) -> None:
        """Put ``message`` (one line) in place of the status line."""
        from rich.text import Text

        if id(self.stream) in _BARS:
            return
        text = Text(" ".join(message.split()))
        # one column short of the width: a character in the last column makes some
        # terminals wrap, and the erase would then miss the line above
        text.truncate(max(_stream_width(self.stream) - 1, 1), overflow="ellipsis")
        with self._lock:
            self.stream.write(ERASE_LINE + text.plain)
            self.stream.flush()
            self.shown = True

    def clear(self) -> None:
        """Erase the status line, if one is shown."""
        with self._lock:
            if self.shown:
                self.stream.write(ERASE_LINE)
                self.stream.flush()
                self.shown = False


_STATUS: list[StatusLine] = []


def status_line(stream: IO[str]) -> StatusLine:
    """The status line of ``stream`` (made once), which bars erase before they draw."""
    for status in _STATUS:
        if status.stream is stream:
            return status
    status = StatusLine(stream)
    _STATUS.append(status)
    return status


def _clear_status(stream: IO[str]) -> None:
    for status in _STATUS:
        if status.stream is stream:
            status.clear()


#: The live bars: one ``rich`` Progress per stream, shared by the steps that run at once (the
#: horizon fetches several releases in threads; ``rich`` draws one live display at a time),
#: with how many steps use it.
_BARS: dict[int, tuple[Any, int]] = {}
_BARS_LOCK = threading.Lock()


@contextmanager
def progress_bar(
    description: str,
    total: int | None,
    unit: str,
    stream: IO[str] | None = None,
    delay: float = BAR_DELAY,
) -> Iterator[Any]:
    """A progress bar (``rich.progress``) for one long step, on ``stream`` (standard error
    when ``None``): bytes, rate and time left for ``unit="bytes"``, a count of files and the
    time taken otherwise. Prints nothing when ``stream`` is not a terminal (a file, a pipe, a
    CI log) or the terminal is ``dumb``, nor for a step that ends within ``delay`` seconds
    (a bar that flashes for a short scan tells nothing): the bar is drawn ``delay`` seconds
    after the step starts, with what was done by then. Steps that run at once (threads) get
    one bar each in the same display; a bar goes away when its step ends. Yields
    ``advance(amount=1)`` (:class:`patchkeeper.progress.Advance`); see
    :func:`patchkeeper.progress.track`.
    """
    import sys

    target = sys.stderr if stream is None else stream
    if not _is_terminal(target) or os.environ.get("TERM", "") in ("dumb", "unknown"):
        yield _nothing
        return
    bar = _Bar(target, description, total, unit)
    timer = None
    if delay <= 0:
        bar.start()
    else:
        timer = threading.Timer(delay, bar.start)
        timer.daemon = True
        timer.start()
    try:
        yield bar.advance
    finally:
        if timer is not None:
            timer.cancel()
        bar.stop()


class _Bar:
    """One step's bar: counts from the start, drawn from :meth:`start` (called when the
    step has run long enough) to :meth:`stop`."""

    def __init__(self, target: IO[str], description: str, total: int | None, unit: str):
        self.target = target
        self.description = description
        self.total = total
        self.unit = unit
        self.done = 0
        self.task: Any = None
        self.bars: Any = None
        self.stopped = False
        self._lock = threading.Lock()

    def advance(self, amount: int = 1) -> None:
        with self._lock:
            self.done += amount
            if self.task is not None:
                self.bars.advance(self.task, amount)

    def start(self) -> None:
        with _BARS_LOCK, self._lock:
            if self.stopped:
                return
            _clear_status(self.target)
            key = id(self.target)
            bars, users = _BARS.get(key) or (_start_bars(self.target), 0)
            _BARS[key] = (bars, users + 1)
            self.bars = bars
            self.task = bars.add_task(
                self.description, total=self.total, unit=self.unit, completed=self.done
            )
            bars.refresh()  # drawn at once, not at the next tick

    def stop(self) -> None:
        with self._lock:
            self.stopped = True
            task, bars = self.task, self.bars
        if task is None:
            return
        with _BARS_LOCK:
            bars.refresh()  # its last state, then it goes
            bars.remove_task(task)
            key = id(self.target)
            users = _BARS[key][1] - 1
            if users:
                _BARS[key] = (bars, users)
            else:
                del _BARS[key]
                bars.stop()


def _start_bars(target: IO[str]) -> Any:
    """A started ``rich`` Progress drawing to ``target``, its bars gone when it stops."""
    from rich import progress
    from rich.console import Console
    from rich.table import Column

    console = Console(file=target, force_terminal=True, highlight=False, markup=False)
    # one line per bar whatever the width: the description takes at most half of it (cut
    # with an ellipsis) and the bar what is left (at least MIN_BAR cells)
    described = Column(no_wrap=True, overflow="ellipsis", max_width=max(console.width // 2, 20))
    columns = (
        progress.TextColumn("{task.description}", table_column=described),
        progress.BarColumn(bar_width=None, table_column=Column(ratio=1, min_width=MIN_BAR)),
        _amount_column(),
    )
    # notes and warnings on standard error print above the bars; standard output stays
    # standard output (rich would send it to the bars' stream)
    bars = progress.Progress(
        *columns, console=console, transient=True, redirect_stdout=False, expand=True
    )
    bars.start()
    return bars


def _amount_column() -> Any:
    """A ``rich`` progress column showing how far a step is, by its ``unit`` field: bytes,
    rate and time left for a download, a count and the time taken for files."""
    from rich import progress
    from rich.table import Column
    from rich.text import Text

    class Amount(progress.ProgressColumn):
        def __init__(self) -> None:
            super().__init__(table_column=Column(no_wrap=True))
            self.bytes = (
                progress.DownloadColumn(),
                progress.TransferSpeedColumn(),
                progress.TimeRemainingColumn(),
            )
            self.files = (progress.MofNCompleteColumn(), progress.TimeElapsedColumn())

        def render(self, task: Any) -> Any:
            columns = self.bytes if task.fields.get("unit") == "bytes" else self.files
            return Text(" ").join(column.render(task) for column in columns)

    return Amount()


def _nothing(amount: int = 1) -> None:
    """The ``advance`` of a bar that is not drawn."""
