"""A plugin file's lines as ``runtime port`` edits them: read once with their line ends kept,
version gates cut first, replacements queued per span, the new text given its line ends
back, and the unified diff of what changed.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.port.gatecut import Cut, cut_gates
from patchkeeper.runtime.port.results import PortedEntry
from patchkeeper.runtime.syntax.definitions import definition_at


class Edits:
    """Pending line replacements per plugin file (1-based inclusive spans).

    Each file is read once and its changing version gates cut first (``versions``: the old
    and new upstream versions; ``None`` cuts nothing): the spans are in the lines of that
    cut text (:meth:`original`); :meth:`line` and :meth:`relocate` carry a line number or
    a copy of the file as read over to them."""

    def __init__(self, root: Path, versions: tuple[str, str] | None = None) -> None:
        self.root = root
        self.versions = versions
        self.read: dict[str, list[str]] = {}
        self.endings: dict[str, list[str]] = {}
        self.lines: dict[str, list[str]] = {}
        self.cuts: dict[str, tuple[Cut, ...]] = {}
        self.spans: dict[str, list[tuple[int, int, str]]] = {}
        self.merges: dict[tuple[str, int, str, str], PortedEntry] = {}
        #: Per file, the modules a retarget added an import of.
        self.imported: dict[str, set[str]] = {}
        self._maps: dict[str, dict[int, int]] = {}

    def original(self, file: str) -> list[str]:
        """The file's lines as port starts from them: as read, with the gates cut."""
        if file not in self.lines:
            raw = read_exact(self.root / file)
            refuse_not_utf8(self.root / file, raw)
            self.endings[file] = [_ending(line) for line in split_lines(raw)]
            # Worked on with every line end as "\n" (as Python reads text), so upstream's
            # definitions merge with a CRLF copy; result() gives each line its end back.
            text = raw.replace("\r\n", "\n")
            self.read[file] = text.splitlines(True)
            cut, cuts = (text, ()) if self.versions is None else cut_gates(text, *self.versions)
            self.lines[file] = cut.splitlines(True)
            self.cuts[file] = cuts
        return self.lines[file]

    def line(self, file: str, number: int) -> int | None:
        """Line ``number`` of the file as read, in :meth:`original`'s lines (``None``: a
        line a gate cut changed or deleted)."""
        lines = self.original(file)
        if not self.cuts[file]:
            return number
        if file not in self._maps:
            mapping: dict[int, int] = {}
            matcher = difflib.SequenceMatcher(None, self.read[file], lines, autojunk=False)
            for tag, a0, a1, b0, _b1 in matcher.get_opcodes():
                if tag == "equal":
                    for k in range(a1 - a0):
                        mapping[a0 + k + 1] = b0 + k + 1
            self._maps[file] = mapping
        return self._maps[file].get(number)

    def relocate(self, code: Code) -> Code | None:
        """The definition ``code`` (a span of the file as read, from its ``def``/``class``
        line) in :meth:`original`'s lines, its gates cut: the definition that starts on
        the line its first line became, else the one definition of its name (a gate cut
        dedented it); ``None`` when there is none or several."""
        start = self.line(code.name, code.start)
        if start is not None and not self.cuts[code.name]:
            return code
        lines = self.original(code.name)
        found = definition_at(lines, start, getattr(code.node(), "name", None))
        if found is None:
            return None
        first, last = found.lineno, found.end_lineno
        return Code(code.name, first, tuple(lines[first - 1 : last]))

    def gates_within(self, code: Code) -> list[int]:
        """The lines (of the file as read) of the gates the cut decided inside the span
        ``code`` (a definition of the file as read): empty when none."""
        self.original(code.name)
        last = code.start + len(code.lines) - 1
        return [cut.line for cut in self.cuts[code.name] if code.start <= cut.line <= last]

    def replace(self, file: str, start: int, end: int, text: str) -> bool:
        """Queue ``text`` for lines ``start``..``end`` of :meth:`original`; refuse an
        overlap (``False``)."""
        spans = self.spans.setdefault(file, [])
        if any(not (end < s or start > e) for s, e, _t in spans):
            return False
        self.original(file)
        spans.append((start, end, text))
        return True

    def result(self) -> dict[str, str]:
        """The new text of every file read that port changes (relative path -> text)."""
        out = {}
        for file in self.lines:
            spans = self.spans.get(file, [])
            if not spans and not self.cuts[file]:
                continue
            lines = list(self.original(file))
            for start, end, text in sorted(spans, reverse=True):
                lines[start - 1 : end] = text.splitlines(True)
            out[file] = _restore_endings(self.endings[file], self.read[file], "".join(lines))
        return out


def read_exact(path: Path) -> str:
    """A plugin file's text with its line ends as they are (no newline translation)."""
    with path.open(encoding="utf-8", errors="surrogateescape", newline="") as handle:
        return handle.read()


def refuse_not_utf8(path: Path, text: str) -> None:
    """Refuse a plugin file that is not UTF-8 (``text`` as :func:`read_exact` read it, a byte
    that is not UTF-8 kept as a lone surrogate): its code cannot be parsed or merged as read
    (a Latin-1 file with its ``coding:`` line stopped ``runtime port`` with a traceback).

    Raises:
        TargetError: naming the file and the line of the first such byte.
    """
    from patchkeeper.errors import TargetError

    bad = next((i for i, ch in enumerate(text) if "\udc80" <= ch <= "\udcff"), None)
    if bad is None:
        return
    line = text.count("\n", 0, bad) + 1
    raise TargetError(
        f"not UTF-8 (byte 0x{ord(text[bad]) - 0xDC00:02x}): runtime port reads and writes "
        "patch files as UTF-8, and nothing was written",
        path=path,
        line=line,
        hint="convert the file to UTF-8 (e.g. iconv -f latin-1 -t utf-8, and drop its "
        "'coding:' line), then run the command again",
    )


def split_lines(text: str) -> list[str]:
    """``text`` cut after each ``"\\n"`` (a ``"\\r\\n"`` stays whole), as diff and patch
    count lines; the last one may have no line end."""
    return re.findall(r"[^\n]*\n|[^\n]+\Z", text)


def _ending(line: str) -> str:
    """A line's end: ``"\\r\\n"``, ``"\\n"``, or ``""`` (the last line, without one)."""
    return "\r\n" if line.endswith("\r\n") else "\n" if line.endswith("\n") else ""


def _restore_endings(endings: list[str], read: list[str], text: str) -> str:
    """``text`` (lines ending ``"\\n"``) with the line ends of the file as read: a line kept
    from it (``read``, its lines as worked on) gets its own end back, a new line the end
    most of the file's lines have. A file whose lines all end in ``"\\n"`` is ``text``."""
    if all(ending in ("\n", "") for ending in endings):
        return text
    crlf = sum(ending == "\r\n" for ending in endings)
    common = "\r\n" if crlf * 2 >= len(endings) else "\n"
    old = split_lines("".join(read))
    new = split_lines(text)
    out = [line[:-1] + common if line.endswith("\n") else line for line in new]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, a0, a1, b0, _b1 in matcher.get_opcodes():
        if tag != "equal":
            continue
        for k in range(a1 - a0):
            line, ending = new[b0 + k], endings[a0 + k]
            if line.endswith("\n") and ending:
                out[b0 + k] = line[:-1] + ending
    return "".join(out)


def unified_diff(root: Path, changed: dict[str, str]) -> str:
    """The unified diff of the changed files, ``a/``/``b/`` paths relative to ``root``."""
    out = []
    for file in sorted(changed):
        before = read_exact(root / file)
        if before == changed[file]:
            continue
        for line in difflib.unified_diff(
            split_lines(before), split_lines(changed[file]), f"a/{file}", f"b/{file}"
        ):
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
