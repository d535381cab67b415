"""Which files of an upstream tree hold a line: one pass over the tree, bounded memory.

The audit asks the same question many times: where else in the new release is this context line
(a hunk whose code moved to another file), this added line (a fix upstream wrote elsewhere),
this file's content (a file that is gone)? Reading every file per question costs files x lines;
this index reads the tree once.

The index holds only the lines that can be asked about: the caller registers them first
(:meth:`LineIndex.want`, every substantive line of every hunk of a series), then the first
question scans the tree once, keeping, per registered line, the files holding it. Memory is
bounded by the series, not by the tree (a vLLM sdist has 1.4 million lines, a series a few
thousand). Lines registered after the scan are looked up in one more pass over the tree, for
those lines only.

Lines compare stripped of leading and trailing white space (the whole line, never a part);
white space inside a line must be the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from patchkeeper.progress import track

#: Files larger than this are not indexed (generated data, vendored bundles), in bytes.
MAX_FILE_BYTES = 4 * 1024 * 1024


def suffix_of(path: str) -> str:
    """A POSIX path's suffix as :attr:`pathlib.PurePath.suffix` gives it (``".py"``; ``""``
    for ``.bashrc`` or ``Makefile``), without building a path object (the tree's files are
    asked for theirs in every pass)."""
    name = path.rpartition("/")[2]
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def key(line: bytes) -> bytes:
    """The form a line is indexed and looked up in: stripped of white space at both ends.

    >>> key(b"    return x\\r\\n")
    b'return x'
    """
    return line.strip()


class LineIndex:
    """Registered lines -> the files of a tree that hold them, built in one pass.

    Args:
        files: ``files()`` lists the tree's files (POSIX paths relative to its base).
        read: ``read(path)`` returns a file's bytes (``b""`` when unreadable).
    """

    def __init__(self, files: Callable[[], list[str]], read: Callable[[str], bytes]) -> None:
        self._files = files
        self._read = read
        self._pending: set[bytes] = set()
        self._suffixes: set[str] = set()
        self._scanned_suffixes: set[str] = set()
        self._holders: dict[bytes, list[str]] = {}
        self.passes = 0

    def want(self, lines: Iterable[bytes], like: str) -> None:
        """Register ``lines`` (any form: they are keyed by :func:`key`) to be looked up in
        files with the suffix of ``like`` (``.py`` lines are looked for in ``.py`` files)."""
        suffix = suffix_of(like)
        if suffix not in self._scanned_suffixes:
            self._suffixes.add(suffix)
        for line in lines:
            k = key(line)
            if k and k not in self._holders:
                self._pending.add(k)
        if suffix not in self._scanned_suffixes and self._holders:
            # a new suffix: the lines known so far must be looked for in those files too
            self._pending.update(self._holders)

    def _scan(self) -> None:
        """One pass over the tree for the pending lines."""
        wanted = self._pending
        suffixes = self._suffixes | self._scanned_suffixes
        self._pending = set()
        self.passes += 1
        found: dict[bytes, list[str]] = {line: [] for line in wanted}
        paths = [path for path in self._files() if suffix_of(path) in suffixes]
        with track("searching files for moved lines", len(paths)) as advance:
            for path in paths:
                advance()
                data = self._read(path)
                if not data or len(data) > MAX_FILE_BYTES or b"\0" in data[:1024]:
                    continue
                lines = set(map(bytes.strip, data.split(b"\n")))
                for hit in lines & wanted:
                    found[hit].append(path)
        for line, paths in found.items():
            self._holders[line] = paths
        self._scanned_suffixes |= suffixes
        self._suffixes = set()

    def holders(self, line: bytes) -> list[str]:
        """The files holding ``line`` (sorted), scanning the tree first if needed."""
        k = key(line)
        if k not in self._holders:
            self._pending.add(k)
        if self._pending or self._suffixes:
            self._scan()
        return self._holders.get(k, [])

    def best_file(
        self, lines: Iterable[bytes], suffix: str | None = None, exclude: Iterable[str] = ()
    ) -> tuple[str, int] | None:
        """The file holding most of ``lines`` (distinct lines counted once), ties broken by
        path; ``None`` when no file holds any.

        Args:
            lines: the lines.
            suffix: only files with this suffix (``".py"``), when given.
            exclude: files not to consider.
        """
        skip = set(exclude)
        counts: dict[str, int] = {}
        wanted = list(dict.fromkeys(key(line) for line in lines))
        # every line not seen yet is looked up in the same pass
        self._pending.update(k for k in wanted if k not in self._holders)
        for line in wanted:
            for path in self.holders(line):
                if path in skip or (suffix is not None and suffix_of(path) != suffix):
                    continue
                counts[path] = counts.get(path, 0) + 1
        if not counts:
            return None
        path = min(counts, key=lambda p: (-counts[p], p))
        return path, counts[path]
