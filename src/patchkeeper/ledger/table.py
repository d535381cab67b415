"""The ledger: a Markdown table of the series, written between two markers from patch headers.

The series workflow (docs/glossary.md) keeps one row per patch, in apply order, generated from the
``Kind``/``What``/``Upstream``/``Cut-against``/``Retires-when`` headers of each file ("the
files are the source"), and CI fails when the table is not current. This module renders that
table (:func:`render_table`), puts it between the markers (:func:`replace_between`), keeps a
"Retired" table of patches taken out of the series (:func:`retire`), and builds the results
of ``patchkeeper ledger [--check]`` and ``patchkeeper retire``.

Values are escaped for GitHub-flavoured Markdown tables as every Markdown form of
patchkeeper escapes them (:func:`patchkeeper.system.markdown_cells.escape_cell`): a ``|``
becomes ``\\|`` and a line break ``<br>``, so no value can break the table; a ``<`` that
would start raw HTML becomes ``&lt;`` and a ``&`` that would start an entity ``&amp;``, so a
value shows as written. :func:`table_rows` reads them back
(:func:`~patchkeeper.system.markdown_cells.unescape_cell`).

Bytes are kept as they are: header values are decoded as UTF-8 with ``surrogateescape``
(:mod:`patchkeeper.series.headers`), and the ledger file is read and written the same way, so a
Latin-1 ``What: caf\\xe9`` lands in the table as the byte ``\\xe9`` (Debian headers are often
Latin-1). Every command here writes its files in one journaled transaction under the
downstream's lock (:mod:`patchkeeper.trees.downstream`): all of them change, or none.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from patchkeeper.config import Config
from patchkeeper.constants import OPTION_AT, OPTION_WHY
from patchkeeper.errors import PatchFormatError, PatchkeeperError
from patchkeeper.jsonable import FILE_NAME
from patchkeeper.ledger.rows import LedgerRow
from patchkeeper.ledger.settings import LedgerSettings, header_settings, ledger_settings
from patchkeeper.series.headers import FAMILY, Headers, parse_headers
from patchkeeper.series.model import Series, SeriesEntry
from patchkeeper.series.parse import (
    _first_diff_index,
    entry_file_exists,
    listed_patch,
    parse_series,
    read_patch_bytes,
    refuse_listed_twice,
    split_lines,
)
from patchkeeper.system.markdown_cells import escape_cell, unescape_cell
from patchkeeper.system.regular import read_regular
from patchkeeper.trees.downstream import commit_files, locked_downstream
from patchkeeper.trees.transaction import Change

#: Suffixes dropped from a patch's name in the table (``qwen3_5-embed-quant.patch``).
PATCH_SUFFIXES = (".patch", ".diff")
#: The Retired table's columns after the name.
RETIRED_COLUMNS = ("kind", "what", "retired at", "why")
#: How the ledger file's bytes become text and back: undecodable bytes survive the round trip.
ENCODING = "utf-8"
ERRORS = "surrogateescape"


@dataclass(frozen=True)
class LedgerResult:
    """What ``patchkeeper ledger [--check]`` found or did.

    Attributes:
        path: the Markdown file.
        rows: the rows of the current table.
        check: ``--check`` was given (nothing is written).
        stale: the file's table (or Retired section) differs from the series.
        written: the file was rewritten.
        diff: a unified diff from the file as it is to the file as it should be.
        root: the downstream directory (paths are shown relative to it).
        pre_commit: run as a pre-commit hook (``--pre-commit``): a rewritten file is a
            finding too (exit 1), as a formatter's fix is, so that pre-commit stops the commit
            and the rewritten table is committed with the change; messages name pre-commit's
            commands.
    """

    path: Path
    rows: tuple[LedgerRow, ...]
    check: bool
    stale: bool
    written: bool
    diff: str
    root: Path | None = None
    pre_commit: bool = False

    @property
    def exit_code(self) -> int:
        """1 when ``--check`` found the table stale, or a pre-commit hook rewrote it; else 0."""
        return 1 if self.stale and (self.check or self.pre_commit) else 0


@dataclass(frozen=True)
class RetireResult:
    """What ``patchkeeper retire`` did.

    Attributes:
        name: the patch's name in the table.
        patch_file: the file removed (``None`` when it was already gone).
        series: the series file rewritten.
        ledger: the Markdown file rewritten.
        at: the version the patch retired at.
        why: the reason recorded.
        root: the downstream directory.
        spec_tag: ``FILE:LINE`` of the ``Patch`` tag that still names the patch in the RPM
            spec the series was read from (``init`` from a spec), ``""`` when there is none:
            the spec is the packager's to edit, and rpmbuild stops at the deleted file.
        at_from: where ``at`` came from when ``--at`` was not given (``"the configured
            pin"``, ``"the installed vllm"``), ``""`` when it was.
    """

    name: str = field(metadata=FILE_NAME)
    patch_file: Path | None
    series: Path
    ledger: Path
    at: str
    why: str
    root: Path | None = None
    spec_tag: str = ""
    at_from: str = ""

    @property
    def exit_code(self) -> int:
        return 0


# --------------------------------------------------------------------------- pure helpers


def row_name(series_name: str) -> str:
    """The table name of a series entry.

    >>> row_name("kvarn/kvarn-0.32.0.patch")
    'kvarn/kvarn-0.32.0'
    """
    for suffix in PATCH_SUFFIXES:
        if series_name.endswith(suffix):
            return series_name[: -len(suffix)]
    return series_name


def column_title(field: str) -> str:
    """The series workflow's column title of a field: lower case, ``-`` as a space; a family
    (``Bug*``) is titled by its name.

    >>> column_title("Cut-against"), column_title("Bug*")
    ('cut against', 'bug')
    """
    return field.removesuffix(FAMILY).lower().replace("-", " ")


def render_table(titles: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """Render a Markdown table in the series workflow's shape (``|---|`` rules, one space of
    padding).

    >>> print(render_table(("patch", "kind"), [("a", "fix")]), end="")
    | patch | kind |
    |---|---|
    | a | fix |
    """
    lines = ["| " + " | ".join(titles) + " |", "|" + "---|" * len(titles)]
    for row in rows:
        lines.append("| " + " | ".join(escape_cell(cell) for cell in row) + " |")
    return "\n".join(lines) + "\n"


def _marker_kind(line: str, begin: str, end: str) -> str | None:
    """``"begin"``, ``"end"`` or ``None`` for one line (a line matching both markers, when one
    is a prefix of the other, is the longer one's)."""
    text = line.lstrip()
    found = [(len(m), kind) for m, kind in ((begin, "begin"), (end, "end")) if text.startswith(m)]
    return max(found)[1] if found else None


def marker_lines(text: str, begin: str, end: str, path: Path | None) -> tuple[int, int] | None:
    """The 0-based indices of the ``begin`` and ``end`` marker lines of ``text``, or ``None``
    when neither marker is there.

    A file holds one pair: a second begin line (a second table, which ``ledger`` would
    silently leave stale) or an end line outside the pair is an error, as is a begin line
    without an end line after it (the user-test report, bug 19).

    >>> marker_lines("a\\n<!-- b -->\\n| t |\\n<!-- e -->\\n", "<!-- b", "<!-- e", None)
    (1, 3)

    Raises:
        PatchFormatError: naming ``path`` and the offending line.
    """
    lines = text.splitlines()
    kinds = [_marker_kind(line, begin, end) for line in lines]
    begins = [index for index, kind in enumerate(kinds) if kind == "begin"]
    ends = [index for index, kind in enumerate(kinds) if kind == "end"]
    if not begins:
        if ends:
            raise PatchFormatError(
                f"a {end!r} line, but no line starting with {begin!r} before it",
                path=path,
                line=ends[0] + 1,
                hint=f"add a line {begin} ... --> where the table starts",
            )
        return None
    first = begins[0]
    following = [index for index in ends if index > first]
    if len(begins) > 1 and (not following or begins[1] < following[0]):
        raise PatchFormatError(
            f"a second {begin!r} line before the {end!r} line of the one on line {first + 1}",
            path=path,
            line=begins[1] + 1,
            hint=f"remove it, or add the line {end} that closes the first table",
        )
    if not following:
        raise PatchFormatError(
            f"no {end!r} line after the begin marker",
            path=path,
            line=first + 1,
            hint=f"add a line {end} after the table",
        )
    last = following[0]
    if len(begins) > 1:
        raise PatchFormatError(
            f"a second {begin!r} line; the table is already between lines {first + 1} and "
            f"{last + 1}",
            path=path,
            line=begins[1] + 1,
            hint="the file holds one table: remove the second begin line (and its end line and "
            "table, if any)",
        )
    stray = [index for index in ends if index != last]
    if stray:
        raise PatchFormatError(
            f"a {end!r} line outside the table between lines {first + 1} and {last + 1}",
            path=path,
            line=stray[0] + 1,
            hint="remove it: the table has one begin and one end marker",
        )
    return first, last


def line_ending(line: str) -> str:
    """The newline a line ends with (``"\\r\\n"``, ``"\\r"``), ``"\\n"`` for one
    without.

    >>> line_ending("<!-- table:begin -->\\r\\n"), line_ending("| a |\\n"), line_ending("x")
    ('\\r\\n', '\\n', '\\n')
    """
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith("\r"):
        return "\r"
    return "\n"


def with_newlines(body: str, newline: str) -> str:
    """``body`` with every line ending made ``newline`` (a ledger written with CRLF, as an
    editor on Windows or ``core.autocrlf`` leaves it, keeps CRLF in the rows patchkeeper
    writes: never a file of mixed endings, never a table ``--check`` calls stale for its
    line endings alone).

    >>> with_newlines("| a |\\n| b |\\r\\n", "\\r\\n")
    '| a |\\r\\n| b |\\r\\n'
    """
    lines = body.splitlines()
    if not lines:
        return body
    tail = newline if body.endswith(("\n", "\r")) else ""
    return newline.join(lines) + tail


def replace_between(text: str, begin: str, end: str, body: str, path: Path) -> str:
    """Return ``text`` with the lines between the ``begin`` and ``end`` marker lines replaced.

    The marker lines themselves stay as written (the series workflow's begin marker carries a note).
    The new lines end as the begin marker line does (:func:`with_newlines`).

    Raises:
        PatchFormatError: a marker is missing or repeated (:func:`marker_lines`), naming the
            file, the line and the marker.
    """
    found = marker_lines(text, begin, end, path)
    if found is None:
        raise PatchFormatError(
            f"no line starting with {begin!r}",
            path=path,
            hint=f"add the marker lines {begin} ... --> and {end} where the table goes",
        )
    first, last = found
    lines = text.splitlines(keepends=True)
    body = with_newlines(body, line_ending(lines[first]))
    return "".join(lines[: first + 1]) + body + "".join(lines[last:])


def section_body(text: str, begin: str, end: str, path: Path | None = None) -> str | None:
    """The text between two marker lines, or ``None`` when the markers are absent.

    Raises:
        PatchFormatError: the markers are not one pair (:func:`marker_lines`).
    """
    found = marker_lines(text, begin, end, path)
    if found is None:
        return None
    first, last = found
    return "".join(text.splitlines(keepends=True)[first + 1 : last])


#: A cell boundary of a table row: a ``|`` that no backslash escapes (:func:`escape_cell`).
_CELL_BOUNDARY = re.compile(r"(?<!\\)\|")


@dataclass(frozen=True)
class TableRow:
    """One body row of a Markdown table in the ledger file, as :func:`table_rows` reads it.

    Attributes:
        cells: every cell, stripped, with ``\\|``, ``&lt;`` and ``&amp;`` read as ``|``,
            ``<`` and ``&`` (:func:`unescape_cell`, the reverse of :func:`escape_cell`); the
            first is the row's name.
        line_no: the row's line in the file (1-based), for messages that point at it.
    """

    cells: tuple[str, ...]
    line_no: int

    @property
    def name(self) -> str:
        """The first cell: the patch's (or entry's) name."""
        return self.cells[0]


def table_rows(text: str, begin: str, end: str, path: Path | None = None) -> list[TableRow] | None:
    """The body rows of the table between the ``begin`` and ``end`` marker lines (its title
    row and ``|---|`` rule skipped; lines that are no table row passed over), or ``None``
    when the markers are absent. Cells split at every ``|`` no backslash escapes, so a name
    or value written with ``\\|`` stays one cell.

    >>> rows = table_rows(
    ...     "<!-- b -->\\n| patch | kind |\\n|---|---|\\n| a \\\\| b | fix |\\n<!-- e -->\\n",
    ...     "<!-- b",
    ...     "<!-- e",
    ... )
    >>> [(row.name, row.cells, row.line_no) for row in rows or []]
    [('a | b', ('a | b', 'fix'), 4)]

    Raises:
        PatchFormatError: the markers of ``path`` are not one pair (:func:`marker_lines`).
    """
    found = marker_lines(text, begin, end, path)
    if found is None:
        return None
    first, last = found
    rows = []
    for number, line in enumerate(text.splitlines()[first + 1 : last], first + 2):
        if not line.strip().startswith("|"):
            continue
        rows.append(TableRow(row_cells(line) or ("",), number))
    return rows[2:]


def row_cells(line: str) -> tuple[str, ...]:
    """The values of the cells of one Markdown table row ``line``, split at every ``|`` no
    backslash escapes and read back as :func:`escape_cell` wrote them.

    >>> row_cells("| a \\\\| b | fix |")
    ('a | b', 'fix')
    """
    parts = _CELL_BOUNDARY.split(line.strip())[1:]
    if parts and not parts[-1].strip():
        parts.pop()  # the closing "|"
    return tuple(unescape_cell(part.strip()) for part in parts)


def unified_diff(before: str, after: str, path: Path) -> str:
    """A unified diff between two versions of ``path`` (``a/``, ``b/`` labels)."""
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{path.name}",
            tofile=f"b/{path.name}",
        )
    )


# --------------------------------------------------------------------------- rows


def read_preamble(path: Path) -> tuple[bytes, int]:
    """Return ``(preamble bytes, line count)`` of a patch file without parsing its hunks.

    Raises:
        PatchFormatError: the file is missing or unreadable.
    """
    lines = split_lines(read_patch_bytes(path))
    start = _first_diff_index(lines, path)
    return b"".join(lines[:start]), start


def patch_headers(path: Path) -> Headers:
    """The header fields of the patch file at ``path`` (see :func:`read_preamble`)."""
    preamble, _ = read_preamble(path)
    return parse_headers(preamble)


def row_for(entry: SeriesEntry, series: Series, columns: tuple[str, ...]) -> LedgerRow:
    """The ledger row of one series entry, from its patch file's headers."""
    path = listed_patch(series, entry)
    headers = patch_headers(path)
    first = min((item.line_no for item in headers.fields), default=1)
    values = tuple(headers.value(column) for column in columns)
    return LedgerRow(name=row_name(entry.name), values=values, source=path, line_no=first)


def ledger_rows(config: Config, series: Series | None = None) -> list[LedgerRow]:
    """Every row in apply order: the series' patches, then the configured entries.

    Raises:
        PatchFormatError: a patch file is missing or unreadable, or the series lists a patch
            twice (:func:`~patchkeeper.series.parse.refuse_listed_twice`).
    """
    from patchkeeper.ledger.entries import entry_rows

    columns = header_settings(config).columns
    series = series if series is not None else parse_series(config.series)
    refuse_listed_twice(series)
    rows = [row_for(entry, series, columns) for entry in series.entries]
    return rows + entry_rows(config, columns)


def table_text(config: Config, rows: list[LedgerRow]) -> str:
    """The Markdown table for ``rows`` with the configured columns."""
    settings = ledger_settings(config)
    titles = (settings.name_column, *(column_title(c) for c in header_settings(config).columns))
    return render_table(titles, [(row.name, *row.values) for row in rows])


def encode_text(text: str) -> bytes:
    """The bytes of ledger text; characters decoded by ``surrogateescape`` become their
    original bytes again.

    >>> encode_text("caf\\udce9 \u2192")
    b'caf\\xe9 \\xe2\\x86\\x92'
    """
    return text.encode(ENCODING, ERRORS)


def _read_ledger(settings: LedgerSettings) -> str:
    path: Path = settings.file
    try:
        return read_regular(path).decode(ENCODING, ERRORS)
    except FileNotFoundError:
        raise PatchFormatError(
            "the ledger file does not exist",
            path=path,
            hint=f"create it with the lines {settings.begin_marker} --> and "
            f"{settings.end_marker}, or set [tool.patchkeeper.ledger] file",
        ) from None
    except OSError as exc:
        raise PatchFormatError(
            f"cannot read the ledger file: {exc.strerror}",
            path=path,
            hint=f"make it a readable Markdown file with the lines {settings.begin_marker} --> "
            f"and {settings.end_marker} ('patchkeeper ledger' writes the table between them, "
            "never the file), or set file in [ledger] to another path",
        ) from None


@dataclass(frozen=True)
class LedgerRequest:
    """What ``ledger`` is asked to do; each field is the option of the same parameter name,
    so the command builds it from click's parsed parameters.

    Attributes:
        check: change nothing, only compare the table with the patch headers (``--check``);
            default ``False``, rewrite it.
        pre_commit: run as a pre-commit hook (``--pre-commit``): a rewrite exits 1 too and
            the messages name pre-commit's commands; default ``False``.
    """

    check: bool = False
    pre_commit: bool = False


def write_ledger(config: Config, request: LedgerRequest = LedgerRequest()) -> LedgerResult:
    """``patchkeeper ledger [--check]``: rewrite (or check) the table between the markers,
    as ``request`` says (:class:`LedgerRequest`; default: rewrite it).

    Holds the downstream's lock (:func:`patchkeeper.trees.downstream.locked_downstream`), which
    first rolls back a write that an interrupted command left half done.

    Returns:
        A :class:`LedgerResult`; with ``request.check`` nothing is written and
        ``exit_code`` is 1 when the file is stale; with ``request.pre_commit`` a rewrite is
        exit 1 too.

    Raises:
        PatchFormatError: the series, a patch or a marker is missing.
        LockError: another patchkeeper process works on the downstream.
    """
    with locked_downstream(config):
        result = update_ledger(config, check=request.check)
    return replace(result, pre_commit=True) if request.pre_commit else result


def check_ledger_markers(config: Config) -> None:
    """Fail when the downstream keeps a ledger file whose table cannot be rewritten (a marker
    line missing or repeated, in the table's or the Retired section's pair): a command that
    ends by rewriting it (an in-place ``port``, ``upgrade``) checks it before its first
    write, as it would otherwise stop after writing the series and the pin with the ledger
    left behind. No ledger file: nothing to check.

    Raises:
        PatchFormatError: naming the ledger file, the marker's line and what to add or remove.
    """
    settings = ledger_settings(config)
    if not Path(settings.file).is_file():
        return
    text = _read_ledger(settings)
    _check_retired_markers(text, settings)
    replace_between(text, settings.begin_marker, settings.end_marker, "", settings.file)


def update_ledger(config: Config, *, check: bool = False) -> LedgerResult:
    """:func:`write_ledger` for a caller that already holds the downstream's lock (``port``)."""
    settings = ledger_settings(config)
    rows = ledger_rows(config)
    before = _read_ledger(settings)
    _check_retired_markers(before, settings)
    after = replace_between(
        before,
        settings.begin_marker,
        settings.end_marker,
        table_text(config, rows),
        settings.file,
    )
    stale = after != before
    written = False
    if stale and not check:
        commit_files(config, [Change(settings.file, encode_text(after))])
        written = True
    return LedgerResult(
        path=settings.file,
        rows=tuple(rows),
        check=check,
        stale=stale,
        written=written,
        diff=unified_diff(before, after, settings.file) if stale else "",
        root=config.root,
    )


# --------------------------------------------------------------------------- retire


def _retired_body(
    existing: str | None,
    row: tuple[str, ...],
    titles: tuple[str, ...] = ("patch", *RETIRED_COLUMNS),
) -> str:
    line = "| " + " | ".join(escape_cell(cell) for cell in row) + " |\n"
    if existing and existing.strip():
        return existing + ("" if existing.endswith("\n") else "\n") + line
    return render_table(titles, []) + line


def retired_titles(body: str | None) -> tuple[str, ...] | None:
    """The column titles of the Retired table ``body`` (its first row), or ``None`` when
    there is no table yet.

    >>> retired_titles("| patch | kind | what | retired at | why |\\n|---|---|---|---|---|\\n")
    ('patch', 'kind', 'what', 'retired at', 'why')
    """
    for line in (body or "").splitlines():
        if line.strip().startswith("|"):
            return row_cells(line)
    return None


def retired_row(
    config: Config, headers: Headers | None, name: str, at: str, why: str, body: str | None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The titles of the Retired table and the row of a patch retired with ``headers``.

    With the ledger schema the columns are its kind and what; with the DEP-3 schema they
    are the live table's columns (description, origin, bug, ...: a Debian patch has no
    ``Kind:``, so a kind column stayed empty). A Retired table the ledger has already keeps
    its own columns, in its order, and the row is laid out as its header says: each column
    this function knows by its title (``patch``, ``retired at``, the schema's) gets its
    value, and a column of the user's own (``ticket``) the patch's header of that name or
    nothing, so a ledger written before, or extended by hand, stays one table.
    """
    hsettings = header_settings(config)
    kind = (headers.value("Kind") or origin_category(headers.value("Origin"))) if headers else ""
    what = (headers.value("What") or headers.value("Description") or "") if headers else ""
    cells = {"patch": name, "kind": kind, "what": what, "retired at": at, "why": why}
    if hsettings.schema == "ledger":
        titles: tuple[str, ...] = ("patch", *RETIRED_COLUMNS)
    else:
        fields = hsettings.columns
        titles = ("patch", *(column_title(c) for c in fields), *RETIRED_COLUMNS[2:])
        for field in fields:
            cells[column_title(field)] = (headers.value(field) or "") if headers else ""
    titles = retired_titles(body) or titles
    # A column of the user's own (``ticket``) gets the patch's header of that name, if any.
    row = tuple(
        cells[title.lower()] if title.lower() in cells else _own_column(headers, title)
        for title in titles
    )
    return titles, row


def _own_column(headers: Headers | None, title: str) -> str:
    """The cell of a Retired table's column that is neither the schema's nor retire's own:
    the value of the patch's header named as the column is (``Ticket:`` for ``ticket``, a
    space as ``-``), else empty for the user to fill."""
    if headers is None or not title:
        return ""
    return headers.value(title.replace(" ", "-"))


def add_retired(
    text: str,
    settings: LedgerSettings,
    row: tuple[str, ...],
    titles: tuple[str, ...] = ("patch", *RETIRED_COLUMNS),
) -> str:
    """Return the ledger text with ``row`` appended to the Retired table (made if absent,
    with ``titles``)."""
    body = section_body(text, settings.retired_begin, settings.retired_end, settings.file)
    if body is None:
        newline = line_ending(text.splitlines(keepends=True)[0]) if text else "\n"
        tail = "" if text.endswith(("\n", "\r")) or not text else newline
        section = (
            f"\n## Retired\n\n{settings.retired_begin}\n"
            f"{_retired_body(None, row, titles)}{settings.retired_end}\n"
        )
        return f"{text}{tail}{with_newlines(section, newline)}"
    return replace_between(
        text,
        settings.retired_begin,
        settings.retired_end,
        _retired_body(body, row, titles),
        settings.file,
    )


def _check_retired_markers(text: str, settings: LedgerSettings) -> None:
    """Fail on a Retired section whose markers are not one pair (:func:`marker_lines`)."""
    marker_lines(text, settings.retired_begin, settings.retired_end, settings.file)


#: The end of the comment ``port`` writes on the series line of a patch it proposes for
#: retirement (``# NAME  # upstreamed in 1.1: proposed for retirement by 'patchkeeper port'``;
#: ``dropped in 1.1`` for a patch resolved by hand to no change).
PROPOSED_NOTE = "proposed for retirement by 'patchkeeper port'"
_PROPOSED_LINE = re.compile(
    r"^#\s*(?P<name>\S+)(?:\s+-p\d+)?\s+#\s*(?:upstreamed|dropped) in \S+: "
    + re.escape(PROPOSED_NOTE)
    + r"\s*$"
)


def _find_entry(series: Series, name: str) -> SeriesEntry:
    """The series line of ``name``: a listed patch, or one an in-place ``port`` commented out
    as proposed for retirement (its to-do says to retire it with this command)."""
    for entry in series.entries:
        if name in (entry.name, row_name(entry.name)):
            return entry
    for line_no, line in enumerate(split_lines(read_regular(series.path)), 1):
        match = _PROPOSED_LINE.match(line.decode("utf-8", "surrogateescape").strip())
        if match and name in (match["name"], row_name(match["name"])):
            return SeriesEntry(match["name"], line_no)
    hint = "give the name as the series lists it, with or without .patch"
    # a patch in a subdirectory of the patch directory (Debian's CVE-2025-58438/0001-...)
    # is listed with that directory; a name given without it names one such entry
    within = [
        e.name for e in series.entries if name in (_last_part(e.name), row_name(_last_part(e.name)))
    ]
    if len(within) == 1:
        hint = f"the series lists it as {within[0]}: give that name"
    else:  # a mistyped name: the listed one it is closest to, if one is close
        import difflib

        close = difflib.get_close_matches(name, [e.name for e in series.entries], n=1)
        if close:
            hint = f"the series lists {close[0]}: give that name if you meant it"
    raise PatchkeeperError(f"{name} is not in the series", path=series.path, hint=hint)


def _refuse_retired_already(settings: LedgerSettings, name: str) -> None:
    """Refuse, naming its row, a ``name`` that is not in the series because the ledger's
    Retired table has it already (``retire`` run twice, or a patch retired by another
    clone): "not in the series" sent the user to look for a mistyped name.

    Raises:
        PatchkeeperError: the Retired table has a row of ``name`` (with or without its
            ``.patch``), naming the ledger's line of it.
    """
    try:
        text = read_regular(settings.file).decode(ENCODING, ERRORS)
        rows = table_rows(text, settings.retired_begin, settings.retired_end, settings.file)
    except (OSError, PatchFormatError):
        return  # no readable Retired table: the series' own error says enough
    wanted = {name, row_name(name)}
    titles = retired_titles(
        section_body(text, settings.retired_begin, settings.retired_end, settings.file)
    )
    lowered = [title.lower() for title in titles or ()]
    at_cell = lowered.index("retired at") if "retired at" in lowered else 3
    for row in rows or ():
        if len(row.cells) > at_cell and row.name in wanted:
            raise PatchkeeperError(
                f"{name} is retired already (at {row.cells[at_cell]}): the ledger's Retired "
                "table has it",
                path=settings.file,
                line=row.line_no,
                hint="nothing to do; to bring it back, add it to the series again",
            )


def _last_part(name: str) -> str:
    """The file name of a series entry without the directories before it."""
    return name.rsplit("/", 1)[-1]


def remove_series_line(data: bytes, line_no: int) -> bytes:
    """Return the series bytes without its ``line_no``-th line (1-based); other bytes kept."""
    lines = split_lines(data)
    return b"".join(lines[: line_no - 1] + lines[line_no:])


@dataclass(frozen=True)
class RetireRequest:
    """What ``retire`` is asked to do; each field is the argument or option of the same
    parameter name, so the command builds it from click's parsed parameters.

    Attributes:
        name: the series patch to retire (the ``NAME`` argument, as the series lists it).
        at: the upstream version it retired at (``--at``), a PEP 440 version; ``None``: the
            default (:func:`default_retire_at`).
        why: why: the upstream change that carries it (``--why``), one line of text.
    """

    name: str
    at: str | None
    why: str


#: Where a retirement's version comes from when ``--at`` is not given, in words.
AT_FROM_PIN = "the configured pin"


def default_retire_at(config: Config) -> tuple[str, str]:
    """The version a patch retires at when ``--at`` is not given, and where it came from in
    words: the configured ``pin`` (after ``port --in-place``, the release that carries the
    patch), else the version of the configured upstream installed in the running
    interpreter, as the commands whose target defaults to the installed upstream find it.

    Raises:
        ConfigError: neither is there; naming the configuration file and saying to pass
            ``--at``.
    """
    from importlib import metadata

    from patchkeeper.config import spelt_for
    from patchkeeper.errors import ConfigError

    if config.pin:
        return config.pin, AT_FROM_PIN
    if config.upstream:
        try:
            return metadata.version(config.upstream), f"the installed {config.upstream}"
        except metadata.PackageNotFoundError:
            pass
    what = (
        f"no pin, and {config.upstream} is not installed here"
        if config.upstream
        else "no upstream and no pin"
    )
    raise ConfigError(
        f"retire needs the upstream version the patch retired at: {OPTION_AT} is not given, "
        f"and the configuration names {what}",
        path=config.source,
        hint=spelt_for(
            f"pass {OPTION_AT} VERSION, the upstream release that carries the patch (e.g. "
            f'{OPTION_AT} 1.1), or set pin = "VERSION" in [tool.patchkeeper]',
            config.source,
        ),
    )


def retire(config: Config, request: RetireRequest) -> RetireResult:
    """``patchkeeper retire NAME --at VERSION --why TEXT``, as ``request`` says
    (:class:`RetireRequest`).

    Takes the patch's line out of the series file, deletes its patch file and records it in
    the Retired table (its kind and what from its headers, the version, the reason); the
    ledger table is rewritten without it. The series, the ledger and the removal of the
    patch file are one transaction under the downstream's lock: all three happen, or none.

    Without ``request.at``, the version is :func:`default_retire_at`'s, and the result says
    where it came from (:attr:`RetireResult.at_from`).

    Raises:
        ConfigError: ``request.at`` is ``None`` and no default can be had.
        PatchkeeperError: ``name`` is not in the series, a marker is missing, ``at`` or
            ``why`` is empty (a Retired row without its version or reason), or ``at`` is not
            a version (PEP 440, as ``packaging.version.Version`` reads it: ``1.1``,
            ``v2.0rc1``, ``1:2.0`` is not one).
        TargetError: a file cannot be written (nothing was changed).
        LockError: another patchkeeper process works on the downstream.
    """
    name, why = request.name, request.why
    at, at_from = (request.at, "") if request.at is not None else default_retire_at(config)
    # the examples name this downstream's upstream and versions, not another project's
    version = (at if at.strip() else config.pin) or "VERSION"
    for option, value, example in (
        (OPTION_AT, at, f"--at {version}"),
        (OPTION_WHY, why, f"--why '{config.upstream or 'upstream'} #12 is in {version}'"),
    ):
        if not value.strip():
            raise PatchkeeperError(
                f"{option} is empty: the Retired table records it for {name}",
                path=ledger_settings(config).file,
                hint=f"give it, e.g. {example}",
            )
    _check_version(at, name, ledger_settings(config).file)
    with locked_downstream(config):
        return replace(retire_patch(config, name, at=at, why=why), at_from=at_from)


def _check_version(at: str, name: str, ledger: Path) -> None:
    """Refuse an ``--at`` that is not a version (``packaging.version.Version``, PEP 440):
    the Retired table says at which upstream release the patch went, and ``--at yesterday``
    or a pasted requirement (``--at 'pkg==1.1'``) went into it as it was.

    Raises:
        PatchkeeperError: naming the value (exit 2).
    """
    from packaging.version import InvalidVersion, Version

    try:
        Version(at.strip())
    except InvalidVersion:
        raise PatchkeeperError(
            f"--at {at!r} is not a version: the Retired table records the upstream release "
            f"{name} was retired at",
            path=ledger,
            hint="give the release as a version, e.g. --at 1.1 or --at 2.0rc1 (PEP 440)",
        ) from None


#: DEP-3's categories of ``Origin`` (its value starts with one, then a comma).
ORIGIN_CATEGORIES = ("upstream", "backport", "vendor", "other")


def origin_category(origin: str | None) -> str:
    """The category a DEP-3 ``Origin`` value starts with, or ``""``: the patch's kind in a
    Debian series, which has no ``Kind:`` field.

    >>> origin_category("backport, https://example.org/pr/12")
    'backport'
    >>> origin_category("https://example.org/commit/abc")
    ''
    """
    first = (origin or "").split(",", 1)[0].strip().lower()
    return first if first in ORIGIN_CATEGORIES else ""


def _spec_tag(directory: Path, name: str, root: Path) -> str:
    """``FILE:LINE`` of the ``Patch`` tag naming ``name`` in the RPM spec beside the series
    (:func:`patchkeeper.start.rpm_spec.series_spec`), the file relative to ``root`` when
    inside it; ``""`` when no spec there names it."""
    from patchkeeper.start.rpm_spec import parse_spec, series_spec

    found = series_spec(directory, (name,))
    if found is None:
        return ""
    spec, text = found
    line = next((p.line for p in parse_spec(text, spec).patches if p.name == name), None)
    if line is None:
        return ""
    try:
        shown_spec = spec.relative_to(root).as_posix()
    except ValueError:
        shown_spec = str(spec)
    return f"{shown_spec}:{line}"


def remove_emptied(directory: Path, patches_dir: Path) -> None:
    """Remove ``directory`` and each directory above it that the removal of a patch file
    left empty, up to ``patches_dir`` (the series' directory, never removed, nor anything
    above it): retiring ``upstream/fix.patch``, the only patch in ``upstream/``, left the
    empty ``upstream/`` behind. A directory that holds anything (or cannot be removed)
    stops the walk."""
    top = patches_dir.resolve()
    current = directory
    while current.resolve() != top and current.resolve().is_relative_to(top):
        try:
            current.rmdir()
        except OSError:  # not empty, or not ours to remove
            return
        current = current.parent


def retire_patch(config: Config, name: str, *, at: str, why: str) -> RetireResult:
    """:func:`retire` for a caller that already holds the downstream's lock (``port``)."""
    settings = ledger_settings(config)
    series = parse_series(config.series)
    refuse_listed_twice(series)
    try:
        entry = _find_entry(series, name)
    except PatchkeeperError:
        _refuse_retired_already(settings, name)
        raise
    patch_file = series.directory / entry.name
    headers = patch_headers(patch_file) if entry_file_exists(series, entry) else None
    series_bytes = remove_series_line(series.path.read_bytes(), entry.line_no)
    remaining = Series(path=series.path, entries=tuple(e for e in series.entries if e is not entry))
    before = _read_ledger(settings)
    _check_retired_markers(before, settings)  # errors name the lines of the file as it is
    text = replace_between(
        before,
        settings.begin_marker,
        settings.end_marker,
        table_text(config, ledger_rows(config, remaining)),
        settings.file,
    )
    body = section_body(before, settings.retired_begin, settings.retired_end, settings.file)
    titles, row = retired_row(config, headers, row_name(entry.name), at, why, body)
    text = add_retired(text, settings, row, titles)
    changes = [Change(series.path, series_bytes), Change(settings.file, encode_text(text))]
    removed = None
    if patch_file.is_file():
        changes.append(Change(patch_file, None))
        removed = patch_file
    spec_tag = _spec_tag(series.directory, entry.name, config.root)
    commit_files(config, changes)
    if removed is not None:
        remove_emptied(removed.parent, series.directory)
    return RetireResult(
        name=row_name(entry.name),
        patch_file=removed,
        series=series.path,
        ledger=settings.file,
        at=at,
        why=why,
        root=config.root,
        spec_tag=spec_tag,
    )
