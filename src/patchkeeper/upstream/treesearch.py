"""Search a whole upstream tree for lines: where did a file's content move?

Used only when a patch's file is gone, a hunk fails in place or its added lines are not in the
file it names, so the tree is listed and read lazily, once per run; the line searches go
through one :class:`patchkeeper.upstream.treeindex.LineIndex` per tree (one pass over the tree).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from patchkeeper.jsonable import NOT_IN_JSON
from patchkeeper.series.engine import FileState
from patchkeeper.series.filekinds import is_changelog
from patchkeeper.series.model import FileDiff
from patchkeeper.series.parse import split_lines
from patchkeeper.series.substantive_lines import placing_lines, substantive_lines
from patchkeeper.upstream.treeindex import LineIndex, suffix_of

_SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".patchkeeper", "node_modules", ".tox"}
)
#: VCS data that is a file (the ``.git`` pointer of a git worktree or submodule).
_SKIP_FILES = frozenset({".git"})


class TreeSearch:
    """Lazy listing and content search over the files under ``base``.

    Args:
        base: the directory patch paths are relative to.
        label: how reports name the tree (``"the pin 3.2.25"``), else its directory.
    """

    def __init__(self, base: Path, label: str | None = None) -> None:
        self.base = base
        self.label = label or str(base)
        self._files: list[str] | None = None
        self._states: dict[str, FileState | None] = {}
        self._changelogs: dict[str, str] | None = None
        self._changelog_lines: dict[str, tuple[bytes, ...]] | None = None
        self.index = LineIndex(self.files, self.read)

    def files(self) -> list[str]:
        """Every regular file under ``base`` as a POSIX path relative to it, sorted."""
        if self._files is None:
            from patchkeeper.progress import note

            note(f"scanning {self.base} for moved content ...")
            found = []
            for directory, dirnames, filenames in os.walk(self.base):
                dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
                rel = Path(directory).relative_to(self.base).as_posix()
                for name in filenames:
                    if name in _SKIP_FILES:
                        continue
                    found.append(name if rel == "." else f"{rel}/{name}")
            self._files = sorted(found)
        return self._files

    def read(self, path: str) -> bytes:
        """A file's bytes; ``b""`` when it cannot be read. Not kept: the index reads each
        file once, and the few files read again are cheap."""
        try:
            return (self.base / path).read_bytes()
        except OSError:
            return b""

    def state(self, path: str) -> FileState | None:
        """A file's content, ``None`` when the tree does not have it (kept once read)."""
        if path not in self._states:
            file = self.base / path
            state = None
            try:
                if file.is_file():
                    state = FileState.from_bytes(file.read_bytes())
            except OSError:
                pass
            self._states[path] = state
        return self._states[path]

    def changelog_text(self) -> dict[str, str]:
        """Every changelog of the tree: path -> text (UTF-8, errors replaced; read once)."""
        if self._changelogs is None:
            self._changelogs = {
                path: self.read(path).decode("utf-8", "replace") for path in self.changelogs()
            }
        return self._changelogs

    def changelog_lines(self) -> dict[str, tuple[bytes, ...]]:
        """Every changelog of the tree: path -> lines (split once)."""
        if self._changelog_lines is None:
            self._changelog_lines = {
                path: tuple(split_lines(self.read(path))) for path in self.changelogs()
            }
        return self._changelog_lines

    def changelogs(self) -> list[str]:
        """The tree's changelogs and release notes
        (:func:`patchkeeper.series.filekinds.is_changelog`)."""
        return [path for path in self.files() if is_changelog(path)]

    def same_name(self, path: str) -> list[str]:
        """Files elsewhere in the tree with the same file name as ``path``."""
        name = path.rpartition("/")[2]
        return [f for f in self.files() if f.rpartition("/")[2] == name and f != path]

    def best_match(
        self, needles: list[bytes], like: str, exclude: frozenset[str] = frozenset()
    ) -> tuple[str, int] | None:
        """The file with the suffix of ``like`` holding most of ``needles`` (substantive
        lines), from the tree's line index.

        Returns:
            ``(path, how many distinct needles it holds)``, or ``None`` when none holds any.
        """
        if not needles:
            return None
        self.index.want(needles, like)
        return self.index.best_file(needles, suffix_of(like), exclude)


@dataclass(frozen=True)
class MovedFile:
    """A file the patch modifies that is gone, and where its content likely went.

    Attributes:
        path: the missing file.
        likely: the likely new path, or ``None``.
        found: how many of the patch's substantive context/removed lines ``likely`` holds.
        total: how many there are.
        reason: ``"same name"`` or ``"same content"``.
        told: of the context/removed lines that say which file they belong to
            (:func:`patchkeeper.series.substantive_lines.placing_lines`), how many
            ``likely`` holds and how many there are (``None``: as ``found`` and ``total``,
            for a whole file or a directory), for :attr:`counted`; not in the JSON form
            (:data:`~patchkeeper.jsonable.NOT_IN_JSON`).
    """

    path: str
    likely: str | None
    found: int
    total: int
    reason: str
    told: tuple[int, int] | None = field(default=None, metadata=NOT_IN_JSON)

    @property
    def counted(self) -> tuple[int, int]:
        """What a summary counts: of the lines that say which file they belong to, how many
        ``likely`` holds and how many there are (else ``(found, total)``). A blank line, a
        lone brace, ``else:`` or an import many modules share holds in any file and says
        nothing about where the content went."""
        return self.told if self.told is not None else (self.found, self.total)


#: :attr:`MovedFile.reason` when a gone file without hunks (a pure rename or mode change)
#: was found by the old pin's whole file rather than by hunk lines.
WHOLE_FILE = "same name and content"


def moved_files(
    missing: list[FileDiff], search: TreeSearch | None, pin: TreeSearch | None = None
) -> tuple[MovedFile, ...]:
    """Where the content of each gone file of a patch likely went (*target gone*).

    A file of the same name elsewhere wins when it holds any of the hunks' substantive
    context/removed lines; otherwise the file of ``search`` holding most of them, when it
    holds at least two and at least half. Of those lines, the ones that say which file they
    belong to (:func:`patchkeeper.series.substantive_lines.placing_lines`, as for a hunk's
    context found in another file) are counted for the summary (:attr:`MovedFile.counted`).
    A diff without hunks (a pure rename, a mode change) has no such lines: with the old
    pin's tree (``pin``), the substantive lines of the pin's whole file stand for them, and
    only a file of the same name is taken (reason :data:`WHOLE_FILE`). Without a
    ``search`` nothing is looked for.
    """
    out = []
    for diff in missing:
        assert diff.old_path is not None
        pre = [line for hunk in diff.hunks for line in hunk.pre_image]
        needles = substantive_lines(pre)
        whole = not diff.hunks and pin is not None and search is not None
        if whole:
            state = pin.state(diff.old_path) if pin is not None else None
            needles = substantive_lines(state.lines) if state is not None else []
        if search is None:
            out.append(MovedFile(diff.old_path, None, 0, len(needles), ""))
            continue
        best: tuple[str, int] | None = None
        reason = "same content"
        for candidate in search.same_name(diff.old_path):
            present = set(substantive_lines(split_lines(search.read(candidate))))
            count = sum(1 for needle in needles if needle in present)
            if best is None or count > best[1]:
                best, reason = (candidate, count), WHOLE_FILE if whole else "same name"
        if whole and best is not None and best[1] * 2 < len(needles):
            best = None  # a file of that name holding under half of the pin's file
        if (best is None or best[1] == 0) and not whole:
            match = search.best_match(needles, diff.old_path)
            # one shared line (an import, a return) says nothing about where a file went
            if match is not None and match[1] >= max(2, (len(needles) + 1) // 2):
                best, reason = match, "same content"
        likely, found = best if best and best[1] else (None, 0)
        told = None
        if not whole:
            telling = substantive_lines(placing_lines(pre)[0])
            held = set(substantive_lines(split_lines(search.read(likely)))) if likely else set()
            told = (sum(1 for line in telling if line in held), len(telling))
        out.append(MovedFile(diff.old_path, likely, found, len(needles), reason, told))
    return tuple(out)
