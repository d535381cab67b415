"""Plain, immutable data for a patch series: series entries, patches, file diffs, hunks.

Everything here is built by :mod:`patchkeeper.series.parse` and never does I/O. Every object keeps
its source position (the patch file and the 1-based line), so any error can point at it, the
habit of python-unidiff's ``diff_line_no``. Content is ``bytes``: a *line* is the bytes up to
and including its ``\\n`` (the last line of a file may lack it), exactly as GNU patch sees it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

#: Hunk line kinds, as they appear in the first column of a unified diff.
CONTEXT = " "
REMOVED = "-"
ADDED = "+"


@dataclass(frozen=True)
class HunkLine:
    """One line of a hunk.

    Attributes:
        kind: ``" "`` (context), ``"-"`` (pre-image only) or ``"+"`` (post-image only).
        text: the line's bytes without the marker column, ending in ``\\n`` unless a
            ``\\ No newline at end of file`` marker follows it.
        line_no: 1-based line in the patch file.
    """

    kind: str
    text: bytes
    line_no: int


@dataclass(frozen=True)
class Hunk:
    """One ``@@ -a,b +c,d @@`` block.

    The body is kept as its two images and a string of markers (one per body line), from
    which :attr:`lines` is built on first use: applying a hunk needs only the images, and a
    series of 10,000 patches has about 200,000 body lines.

    Attributes:
        index: 1-based position of the hunk within its file diff (``hunk #2``).
        old_start, old_len, new_start, new_len: the numbers of the header.
        section: the text after the second ``@@`` (a function name), possibly empty.
        header: the raw header line, without its line ending, for messages.
        line_no: 1-based line of the header in the patch file.
        kinds: the body's markers in order, one character per line: ``" "`` (context),
            ``"-"`` (removed), ``"+"`` (added).
        line_nos: the 1-based line in the patch file of each body line, in order.
        pre_image: the lines the hunk expects (context and removed), in order.
        post_image: the lines it leaves (context and added), in order.
        prefix_context: context lines before the first change.
        suffix_context: context lines after the last change.
        raw: the hunk's bytes in the patch file, header line included.
    """

    index: int
    old_start: int
    old_len: int
    new_start: int
    new_len: int
    section: str
    header: str
    line_no: int
    kinds: str
    line_nos: tuple[int, ...]
    pre_image: tuple[bytes, ...]
    post_image: tuple[bytes, ...]
    prefix_context: int
    suffix_context: int
    raw: bytes = b""

    @cached_property
    def lines(self) -> tuple[HunkLine, ...]:
        """The body, one :class:`HunkLine` per line, in order."""
        out = []
        old = new = 0
        for kind, line_no in zip(self.kinds, self.line_nos):
            if kind == ADDED:
                text = self.post_image[new]
                new += 1
            else:
                text = self.pre_image[old]
                old += 1
                new += kind == CONTEXT
            out.append(HunkLine(kind, text, line_no))
        return tuple(out)

    @property
    def has_context(self) -> bool:
        """Whether the hunk has any context line (``diff -U0`` writes hunks without)."""
        return CONTEXT in self.kinds

    @property
    def is_insertion(self) -> bool:
        """Whether the hunk only inserts: one run of ``+`` lines, no ``-`` line, with context
        lines on both sides (it writes new lines between two lines it names)."""
        inner = self.kinds.strip(CONTEXT)
        return (
            bool(inner)
            and set(inner) == {ADDED}
            and bool(self.prefix_context)
            and bool(self.suffix_context)
        )

    @property
    def added(self) -> tuple[HunkLine, ...]:
        """The ``+`` lines."""
        return tuple(line for line in self.lines if line.kind == ADDED)

    @property
    def removed(self) -> tuple[HunkLine, ...]:
        """The ``-`` lines."""
        return tuple(line for line in self.lines if line.kind == REMOVED)


@dataclass(frozen=True)
class FileDiff:
    """The changes one patch makes to one file.

    Attributes:
        old_path: the file before, relative to the patch root after stripping, or ``None``
            when the diff creates the file (``--- /dev/null``).
        new_path: the file after, or ``None`` when the diff deletes it.
        old_mode, new_mode: git modes (``"100644"``) when the extended headers give them.
        hunks: the hunks, in order.
        line_no: 1-based first line of this file's header in the patch file.
        is_binary: a binary diff, which patchkeeper does not apply (parse rejects it).
        header_raw: the bytes from the end of the previous file diff (or the preamble) to this
            file's first hunk: ``diff --git``, ``index``, ``---``/``+++`` lines and the like.
        old_empty, new_empty: git's ``index`` line names the empty blob (``e69de29``) for
            the file before (after) the diff: it must be empty then.
    """

    old_path: str | None
    new_path: str | None
    old_mode: str | None
    new_mode: str | None
    hunks: tuple[Hunk, ...]
    line_no: int
    is_binary: bool = False
    header_raw: bytes = b""
    old_empty: bool = False
    new_empty: bool = False

    @property
    def path(self) -> str:
        """The path this diff is about: the new path, or the old one for a deletion."""
        path = self.new_path if self.new_path is not None else self.old_path
        assert path is not None
        return path

    @property
    def is_creation(self) -> bool:
        return self.old_path is None

    @property
    def old_side_empty(self) -> bool:
        """The first hunk's old range is ``-0,0``: the file before was empty or absent (GNU
        patch's "existent and probably empty"), so on a tree without the file the diff
        creates it, whatever its ``---`` line names."""
        return bool(self.hunks) and self.hunks[0].old_start == 0 and self.hunks[0].old_len == 0

    @property
    def is_deletion(self) -> bool:
        return self.new_path is None

    @property
    def is_rename(self) -> bool:
        return (
            self.old_path is not None
            and self.new_path is not None
            and self.old_path != self.new_path
        )

    @property
    def kind(self) -> str:
        """``"create"``, ``"delete"``, ``"rename"``, ``"mode"`` or ``"modify"``."""
        if self.is_creation:
            return "create"
        if self.is_deletion:
            return "delete"
        if self.is_rename:
            return "rename"
        if not self.hunks and self.old_mode != self.new_mode:
            return "mode"
        return "modify"


@dataclass(frozen=True)
class Patch:
    """One patch file of a series.

    Attributes:
        name: the name as the series lists it (``"CVE-2023-43804.patch"``).
        path: the patch file.
        raw: the file's bytes, unchanged (rendering a parsed patch gives these back).
        preamble: the bytes before the first file diff (description, header fields, the
            series workflow's ``--- exported from <commit>`` line, a diffstat).
        preamble_lines: how many lines the preamble has.
        files: the file diffs, in order.
        strip: the strip level used to derive the paths.
        trailer: the bytes after the last hunk (a ``-- `` signature and git version).
    """

    name: str
    path: Path
    raw: bytes
    preamble: bytes
    preamble_lines: int
    files: tuple[FileDiff, ...]
    strip: int = 1
    trailer: bytes = b""

    @property
    def is_empty(self) -> bool:
        """Whether the patch holds no diff (zero bytes, or only a header): in a series it
        applies as a no-op, as quilt applies it ("appears to be empty; applied")."""
        return not self.files

    @property
    def touched_paths(self) -> tuple[str, ...]:
        """Every path this patch reads or writes (old and new paths), in order, unique."""
        seen: dict[str, None] = {}
        for diff in self.files:
            for path in (diff.old_path, diff.new_path):
                if path is not None:
                    seen.setdefault(path, None)
        return tuple(seen)


@dataclass(frozen=True)
class SeriesEntry:
    """One line of a series file that names a patch.

    Attributes:
        name: the patch name, relative to the series file's directory.
        line_no: 1-based line in the series file.
        strip: a per-entry strip level (quilt's ``name -p0``), or ``None`` for the default.
    """

    name: str
    line_no: int
    strip: int | None = None


@dataclass(frozen=True)
class Series:
    """An ordered patch series.

    Attributes:
        path: the series file.
        entries: the patches in apply order.
    """

    path: Path
    entries: tuple[SeriesEntry, ...] = field(default_factory=tuple)

    @property
    def directory(self) -> Path:
        return self.path.parent
