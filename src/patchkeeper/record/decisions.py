"""The decisions file: what the downstream decided for every patch and runtime entry, and why.

Decisions are data (docs/audit-record.md). A TOML file in the downstream (default
``patchkeeper-decisions.toml``, key ``decisions-file`` of ``[tool.patchkeeper.report]``)
holds one table per series patch and per runtime inventory entry::

    [series."CVE-2023-43804.patch"]
    decision = "retire"
    reason = "urllib3 1.26.20 carries it (audit: upstreamed)"
    removal-condition = ""
    notes = ""

    [runtime."vllm_ascend/patch/platform/patch_x.py::vllm.v1.core.Scheduler.schedule"]
    decision = "retain"
    reason = "Ascend needs the host-side copy"
    removal-condition = "upstream exposes a platform hook for it"

The decisions are the runtime audit workflow's ``retain``, ``update``, ``migrate`` and ``remove``; a
series patch may also be ``carry`` (kept as it is) or ``retire`` (upstream has it). A runtime
entry's key is ``FILE::TARGET`` (``FILE::TARGET[KEY]`` for a registry key), stable when lines
move. :func:`append_tables` adds tables for new keys at the end of the file and never changes
a byte of what exists (comments and order included): a decision a person wrote stays.

A decision ``decide`` suggested from the evidence is written with a prefix,
``decision = "suggested: carry"`` (:data:`~patchkeeper.constants.SUGGESTED_PREFIX`): nobody
has reviewed it yet, and ``report --check`` fails on it. A person accepts it by deleting the
prefix, or changes it by writing another decision; either way the value is then theirs.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.config import (
    LONG_NUMBER_HINT,
    table_key_line,
    toml_syntax_error,
    unknown_key_hint,
)
from patchkeeper.constants import SUGGESTED_PREFIX, DecisionWord
from patchkeeper.errors import ConfigError
from patchkeeper.system.regular import read_regular

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

SERIES, RUNTIME = "series", "runtime"
KINDS = (SERIES, RUNTIME)
CARRY, RETIRE, RETAIN, UPDATE, MIGRATE, REMOVE = (
    w.value
    for w in (
        DecisionWord.CARRY,
        DecisionWord.RETIRE,
        DecisionWord.RETAIN,
        DecisionWord.UPDATE,
        DecisionWord.MIGRATE,
        DecisionWord.REMOVE,
    )
)
#: The decisions each kind of item may take (the runtime audit workflow's four, plus two for a
#: series).
ALLOWED = {
    SERIES: (CARRY, RETIRE, RETAIN, UPDATE, MIGRATE, REMOVE),
    RUNTIME: (RETAIN, UPDATE, MIGRATE, REMOVE),
}
#: Decisions that keep the change and so need a removal condition.
KEEPS = frozenset({CARRY, RETAIN})
#: Decisions that drop the change from the code.
DROPS = frozenset({RETIRE, REMOVE})
FIELDS = ("decision", "reason", "removal-condition", "notes")

HEADER = """\
# patchkeeper decisions: one table per series patch and per runtime entry.
#
# decision: carry or retire (a series patch only), retain, update, migrate, remove.
# reason: why, in a sentence. removal-condition: when the change can go (required for
# retain and carry). notes: free text.
# "patchkeeper decide" adds a table for each patch or entry that has none, suggested from
# the last audit, port and runtime audit evidence; it never changes a table you touched.
# Review every suggestion: the suggestion is evidence, the decision is yours. A suggested
# decision reads "suggested: carry": delete "suggested: " to accept it, or write your own;
# "patchkeeper report --check" fails while a suggestion is left.
"""


@dataclass(frozen=True)
class Decision:
    """One table of the decisions file.

    Attributes:
        kind: ``"series"`` or ``"runtime"``.
        key: the patch name, or ``FILE::TARGET`` for a runtime entry.
        decision: one of :data:`ALLOWED` for the kind, or ``""`` (not decided yet).
        reason, removal_condition, notes: as written.
        line: the 1-based line of the table's header in the file (0 when not found).
        suggested: ``decision`` is ``decide``'s suggestion, not reviewed by a person yet
            (written ``"suggested: carry"`` in the file).
    """

    kind: str
    key: str
    decision: str
    reason: str = ""
    removal_condition: str = ""
    notes: str = ""
    line: int = 0
    suggested: bool = False

    @property
    def written(self) -> str:
        """The ``decision`` value as the file holds it: ``"suggested: carry"`` for a
        suggestion, else the decision."""
        return SUGGESTED_PREFIX + self.decision if self.suggested else self.decision


@dataclass(frozen=True)
class Decisions:
    """The whole file: ``path`` and its tables by ``(kind, key)``, in file order."""

    path: Path
    tables: dict[tuple[str, str], Decision]

    def get(self, kind: str, key: str) -> Decision | None:
        return self.tables.get((kind, key))


def toml_string(text: str) -> str:
    """A TOML basic string (``"..."``) holding ``text`` exactly, except a byte that was not
    UTF-8 (kept by ``surrogateescape``, as a Latin-1 header's): TOML is UTF-8 and cannot hold
    it, so it becomes U+FFFD, as a UTF-8 editor shows it.

    >>> print(toml_string('say "hi"\\nC:\\\\'))
    "say \\"hi\\"\\nC:\\\\"
    >>> toml_string("caf\\udce9") == '"caf\\ufffd"'
    True
    """
    out = []
    for char in text:
        if "\udc80" <= char <= "\udcff":
            out.append("\ufffd")
        elif char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def read_utf8(path: Path) -> str:
    """The text of the decisions file (TOML is UTF-8).

    Raises:
        FileNotFoundError: the file does not exist.
        ConfigError: it cannot be read, or a byte is not UTF-8 (naming its line).
    """
    try:
        data = read_regular(path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ConfigError(
            f"cannot read: {exc.strerror}",
            path=path,
            hint="make it a TOML file this user can read (or move it away: decide writes a "
            "new one)",
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"not UTF-8 (TOML is): byte 0x{data[exc.start]:02x}",
            path=path,
            line=data.count(b"\n", 0, exc.start) + 1,
            hint="save the file as UTF-8",
        ) from None


def table_header(kind: str, key: str) -> str:
    """``[series."NAME"]``: the header line of one table."""
    return f"[{kind}.{toml_string(key)}]"


def _line_of(lines: list[str], kind: str, key: str) -> int:
    wanted = table_header(kind, key)
    bare = f"[{kind}.{key}]"
    for number, line in enumerate(lines, 1):
        stripped = line.split("#", 1)[0].strip().replace(" ", "")
        if stripped in (wanted.replace(" ", ""), bare.replace(" ", "")):
            return number
    return 0


def load(path: Path) -> Decisions:
    """Read and check the decisions file; an absent file has no decisions.

    Raises:
        ConfigError: not TOML, a top-level key other than ``series``/``runtime``, a field
            other than :data:`FIELDS`, a value that is not a string, or a decision not
            allowed for its kind; the message names the table and its line.
    """
    try:
        text = read_utf8(path)
    except FileNotFoundError:
        return Decisions(path, {})
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise toml_syntax_error(
            path,
            str(exc),
            'each table is [series."NAME"] or [runtime."KEY"]: the '
            "manual's audit record page, docs/audit-record.md, shows the file",
            text=text,
        ) from None
    except ValueError as exc:  # an integer with more digits than Python converts
        raise ConfigError(f"not valid TOML: {exc}", path=path, hint=LONG_NUMBER_HINT) from None
    lines = text.splitlines()
    tables: dict[tuple[str, str], Decision] = {}
    for kind, items in data.items():
        if kind not in KINDS or not isinstance(items, dict):
            close = unknown_key_hint(kind, KINDS).partition("? ")
            raise ConfigError(
                f"unknown table '{kind}'",
                path=path,
                line=table_key_line(text, (), kind),
                hint=(close[0] + "? " if close[1] else "")
                + 'tables are [series."PATCH"] and [runtime."FILE::TARGET"]',
            )
        for key, table in items.items():
            line = _line_of(lines, kind, key) or table_key_line(text, (kind,), key) or 0
            tables[(kind, key)] = _decision(path, kind, key, table, line, lines)
    return Decisions(path, tables)


def _field_line(lines: list[str], table_line: int, name: str) -> int:
    """The line of the field ``name`` in the table whose header is at ``table_line`` (the
    first ``name = ...`` after it, before the next table's header), else ``table_line``: an
    error about a field names the line to edit."""
    if not table_line:
        return 0
    for number in range(table_line + 1, len(lines) + 1):
        stripped = lines[number - 1].strip()
        if stripped.startswith("["):
            break
        field, sep, _ = stripped.partition("=")
        if sep and field.strip().strip("\"'") == name:
            return number
    return table_line


def _decision(
    path: Path, kind: str, key: str, table: object, line: int, lines: list[str]
) -> Decision:
    where = f"{kind}.{toml_string(key)}"
    if not isinstance(table, dict):
        raise ConfigError(
            f"'{where}' must be a table, not {table!r}",
            path=path,
            line=line or None,
            hint=f"write it as a table: a line {table_header(kind, key)} and the fields "
            "under it (" + ", ".join(FIELDS) + ")",
        )
    for name, value in table.items():
        if name not in FIELDS:
            raise ConfigError(
                f"unknown field '{name}' in [{where}]",
                path=path,
                line=_field_line(lines, line, name) or None,
                hint="the fields are " + ", ".join(FIELDS),
            )
        if not isinstance(value, str):
            raise ConfigError(
                f"'{name}' in [{where}] must be a string, not {value!r}",
                path=path,
                line=_field_line(lines, line, name) or None,
                hint=f'quote its value: {name} = "..."',
            )
    written = table.get("decision", "").strip()
    prefix = SUGGESTED_PREFIX.rstrip()
    suggested = written.startswith(prefix)
    decision = written[len(prefix) :].strip() if suggested else written
    if (decision or suggested) and decision not in ALLOWED[kind]:
        raise ConfigError(
            f"decision '{written}' in [{where}] is not one of " + ", ".join(ALLOWED[kind]),
            path=path,
            line=_field_line(lines, line, "decision") or None,
            hint="carry and retire are for series patches; a runtime entry takes "
            "retain, update, migrate or remove",
        )
    return Decision(
        kind=kind,
        key=key,
        decision=decision,
        reason=table.get("reason", ""),
        removal_condition=table.get("removal-condition", ""),
        notes=table.get("notes", ""),
        line=line,
        suggested=suggested,
    )


def render_table(decision: Decision, comments: tuple[str, ...] = ()) -> str:
    """One table as text: the header, ``# comment`` lines, then the four fields."""
    lines = [table_header(decision.kind, decision.key)]
    for comment in comments:
        for part in comment.splitlines() or [""]:
            lines.append(f"# {part}".rstrip())
    lines.append(f"decision = {toml_string(decision.written)}")
    lines.append(f"reason = {toml_string(decision.reason)}")
    lines.append(f"removal-condition = {toml_string(decision.removal_condition)}")
    lines.append(f"notes = {toml_string(decision.notes)}")
    return "\n".join(lines) + "\n"


def append_tables(
    path: Path, new: list[tuple[Decision, tuple[str, ...]]], text: str | None = None
) -> str:
    """The file's new text: its current text (or ``text``, the caller's edit of it)
    unchanged, then one table per ``new`` entry.

    A missing file starts with :data:`HEADER`. Keys already in the file must not be in
    ``new`` (the caller merges by key). Returns the text; the caller writes it.
    """
    if text is None:
        try:
            text = read_utf8(path)
        except FileNotFoundError:
            text = HEADER
    if not new:
        return text
    if text and not text.endswith("\n"):
        text += "\n"
    blocks = [render_table(decision, comments) for decision, comments in new]
    return text + "\n" + "\n".join(blocks)


def replace_block(text: str, line: int, old: str, new: str) -> str | None:
    """``text`` with the block ``old`` that starts on the 1-based ``line`` replaced by
    ``new``, every other byte kept; ``None`` when the lines there are not exactly ``old``
    (a person edited the table: it is theirs)."""
    lines = text.splitlines(keepends=True)
    wanted = old.splitlines(keepends=True)
    start = line - 1
    if start < 0 or lines[start : start + len(wanted)] != wanted:
        return None
    return "".join(lines[:start]) + new + "".join(lines[start + len(wanted) :])


#: A runtime key's parts: ``FILE::TARGET`` or ``FILE::TARGET[KEY]``.
RUNTIME_KEY = re.compile(r"^(?P<file>[^:]+)::(?P<target>[^\[]+)(?:\[(?P<key>.*)\])?$")


def runtime_key(file: str, target: str, registry_key: str | None = None) -> str:
    """The key of a runtime entry.

    >>> runtime_key("pkg/patch/p.py", "vllm.x.Cls.meth")
    'pkg/patch/p.py::vllm.x.Cls.meth'
    >>> runtime_key("pkg/patch/p.py", "vllm.x.TABLE", "'fp8'")
    "pkg/patch/p.py::vllm.x.TABLE['fp8']"
    """
    return f"{file}::{target}" + (f"[{registry_key}]" if registry_key is not None else "")
