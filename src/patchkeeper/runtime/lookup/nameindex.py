"""The tree-wide name index of an upstream tree, built from the text without parsing.

Two questions need the whole tree: which modules ``from X import name`` a patched name
(stale bindings, :mod:`patchkeeper.runtime.judge.stale`), and where a name that is no longer at
its old place is defined now (*moved*, :mod:`patchkeeper.runtime.lookup.resolve`). Both are
answered by regular expressions that start with a literal word (``from``, ``def``,
``class``), so the regular-expression engine skips to it quickly, over the bytes of every
file: a few tenths of a second for vLLM's 2,600 files, against seconds for :mod:`ast`. A
match counts only at the start of a line (after indentation); the modules it names are
parsed afterwards when a question needs certainty.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from patchkeeper.runtime.syntax import names
from patchkeeper.system.regular import is_special

#: ``from vllm.x import a, b as c`` and parenthesised lists, at any indentation.
FROM_IMPORT = re.compile(rb"from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)")
#: ``def name`` / ``async def name`` / ``class name`` at any indentation.
DEF_OR_CLASS = re.compile(rb"(?:def|class)[ \t]+(\w+)")
#: The same as two patterns that each start with a literal word: the engine skips to the
#: word, about ten times as fast over a tree as the alternation, which has no literal
#: prefix (:func:`defined_names`).
DEF = re.compile(rb"def[ \t]+(\w+)")
CLASS = re.compile(rb"class[ \t]+(\w+)")
#: ``NAME =`` or ``NAME: T =`` at column 0 (after a newline).
ASSIGNED = re.compile(rb"\n(\w+)[ \t]*(?::[^=\n]*)?=(?!=)")

#: ``(from-module as written, name, as-name, line, indent)``
Imported = tuple[str, str, str, int, int]
#: ``name -> [(importer module, absolute from-module, local name, line, indent)]``
ImporterIndex = dict[str, list[tuple[str, str, str, int, int]]]
#: ``name -> [(module, line)]``
DefinitionIndex = dict[str, list[tuple[str, int]]]


def _indent(data: bytes, start: int) -> int | None:
    """The indentation of the match at ``start``, or ``None`` when something other than
    spaces and tabs precedes it on its line."""
    line_start = data.rfind(b"\n", 0, start) + 1
    prefix = data[line_start:start]
    return len(prefix) if not prefix.strip(b" \t") else None


class _Lines:
    """Line numbers of increasing offsets in one file, counted incrementally."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.offset = 0
        self.line = 1

    def at(self, offset: int) -> int:
        self.line += self.data.count(b"\n", self.offset, offset)
        self.offset = offset
        return self.line


def from_imports(data: bytes) -> list[Imported]:
    """Every ``from X import ...`` statement at the start of a line, one item per name
    (``*`` left out)."""
    out: list[Imported] = []
    lines = _Lines(data)
    for match in FROM_IMPORT.finditer(data):
        indent = _indent(data, match.start())
        if indent is None:
            continue
        line = lines.at(match.start())
        listing = match.group(2).decode("utf-8", "replace").strip().strip("()")
        base = match.group(1).decode()
        for item in listing.replace("\n", " ").split(","):
            parts = item.split("#")[0].split()
            if not parts or parts[0] == "*":
                continue
            asname = parts[2] if len(parts) == 3 and parts[1] == "as" else parts[0]
            out.append((base, parts[0], asname, line, indent))
    return out


def definition_pattern(wanted: list[str]) -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """:data:`DEF_OR_CLASS` and :data:`ASSIGNED` restricted to the names ``wanted``."""
    choice = b"|".join(re.escape(name.encode()) for name in sorted(wanted))
    return (
        re.compile(rb"(?:def|class)[ \t]+(" + choice + rb")\b"),
        re.compile(rb"\n(" + choice + rb")[ \t]*(?::[^=\n]*)?=(?!=)"),
    )


def definitions(
    data: bytes, patterns: tuple[re.Pattern[bytes], re.Pattern[bytes]] = (DEF_OR_CLASS, ASSIGNED)
) -> list[tuple[str, int]]:
    """``(name, line)`` of every ``def``/``class`` at the start of a line and every
    assignment at column 0, in file order (of the names ``patterns`` allow: by default
    every name; see :func:`definition_pattern`)."""
    def_or_class, assigned = patterns
    found: list[tuple[int, str]] = []
    for match in def_or_class.finditer(data):
        start = match.start()
        line_start = data.rfind(b"\n", 0, start) + 1
        prefix = data[line_start:start].strip(b" \t")
        if prefix in (b"", b"async"):
            found.append((start, match.group(1).decode()))
    for match in assigned.finditer(b"\n" + data):
        found.append((match.start(), match.group(1).decode()))
    found.sort()
    lines = _Lines(data)
    return [(name, lines.at(offset)) for offset, name in found]


def defined_names(data: bytes) -> bytes:
    r"""Every ASCII name that :func:`definitions` could report for ``data`` (a superset:
    matches not at the start of a line are kept too), found by :data:`DEF`, :data:`CLASS`
    and :data:`ASSIGNED` without a match object each, as one bytes string: each name
    between two newlines (``b"\nf\nCls\n"``, sorted; ``b"\n"`` for none). It is the
    prefilter of a name search (:func:`name_search`: a file whose names lack an ASCII name
    cannot define it, since a match at the start of a line is never overlapped by an
    earlier one on that line; ``\w`` of a bytes pattern matches ASCII word characters
    only, so a name with other characters is not prefiltered by it). One string per file,
    not a set of names: the index of a tree (vLLM: 2,600 files) is sent by the workers,
    stored and read again as a few thousand strings instead of several hundred thousand
    names."""
    found = {*DEF.findall(data), *CLASS.findall(data), *ASSIGNED.findall(b"\n" + data)}
    return b"\n" + b"\n".join(sorted(found)) + b"\n" if found else b"\n"


def name_search(names: Iterable[bytes]) -> Callable[[bytes], bool]:
    """A test of the names of one file (:func:`defined_names`): whether they hold one of
    ``names`` (ASCII words; none: never)."""
    wanted = sorted(set(names))
    if not wanted:
        return lambda _names: False
    search = re.compile(b"\n(?:" + b"|".join(map(re.escape, wanted)) + b")\n").search
    return lambda found: search(found) is not None


def module_of(root: Path, file: Path) -> tuple[str, bool]:
    """The dotted module name of ``file`` under ``root`` and whether it is a package."""
    rel = file.relative_to(root).with_suffix("").parts
    is_package = rel[-1] == "__init__"
    return ".".join(rel[:-1] if is_package else rel), is_package


def python_files(directory: Path) -> list[str]:
    """Every ``*.py`` file under ``directory`` (symbolic links to directories not followed),
    as paths, in the order of :class:`pathlib.Path` sorting (by path components). One
    :func:`os.walk`: several times as fast as :meth:`pathlib.Path.rglob` on a large tree."""
    found: list[str] = []
    for folder, _subdirs, files in os.walk(directory):
        found.extend(  # a FIFO or socket named *.py is no module: reading it would hang
            f"{folder}/{name}"
            for name in files
            if name.endswith(".py") and not is_special(f"{folder}/{name}")
        )
    return sorted(found, key=lambda path: path.split("/"))


def _module_of_path(root: str, path: str) -> tuple[str, bool]:
    """:func:`module_of` for a path string under ``root`` (no :mod:`pathlib`)."""
    rel = path[len(root) + 1 : -3].split("/")
    is_package = rel[-1] == "__init__"
    return ".".join(rel[:-1] if is_package else rel), is_package


def build_index(
    root: Path, files: list[str], *, definitions: bool = True, importers: bool = False
) -> tuple[list[bytes] | None, ImporterIndex | None]:
    """The tree-wide indexes of ``files`` (paths under ``root``), each file read once: per
    file the names it may define (:func:`defined_names`, in ``files``' order), and
    ``name -> [(importer, from-module, local name, line, indent)]`` of every ``from X
    import name`` (:func:`from_imports`, the from-module made absolute, in file order then
    line order); each is ``None`` when not asked for."""
    from patchkeeper.runtime.parallel import map_records, workers_for

    pooled = workers_for(len(files)) > 0
    jobs = _index_jobs(root, files, definitions, importers, INDEX_CHUNK if pooled else 0)
    # Chunks of files on every core (each a worker's job), merged in file order.
    results = map_records(_index_files, jobs, minimum=1 if pooled else None)
    return _merged(results, len(files), definitions, importers)


def start_index(
    root: Path, files: list[str], *, definitions: bool = True, importers: bool = False
) -> Callable[[], tuple[list[bytes] | None, ImporterIndex | None]] | None:
    """:func:`build_index`'s reading of the files handed to the running
    :func:`~patchkeeper.runtime.parallel.shared_workers` pool now
    (:func:`~patchkeeper.runtime.parallel.start_records`): the workers read the tree
    while this process does other work. Returns the function that gives the indexes (as
    :func:`build_index` returns them, waiting for the workers if need be), or ``None``
    when nothing was started (no pool runs)."""
    from patchkeeper.runtime.parallel import start_records

    jobs = _index_jobs(root, files, definitions, importers, INDEX_CHUNK)
    started = start_records(_index_files, jobs)
    if started is None:
        return None

    def indexes() -> tuple[list[bytes] | None, ImporterIndex | None]:
        return _merged(started.results(), len(files), definitions, importers)

    return indexes


def _index_jobs(
    root: Path, files: list[str], definitions: bool, importers: bool, step: int
) -> list[tuple[str, list[str], bool, bool]]:
    """The jobs of :func:`_index_files` for ``files``, ``step`` files each (0: one job)."""
    step = step or max(len(files), 1)
    chunks = [files[start : start + step] for start in range(0, len(files), step)]
    return [(str(root), chunk, definitions, importers) for chunk in chunks]


def _merged(
    results: Iterable[tuple[tuple[str, list[str], bool, bool], bytes]],
    count: int,
    definitions: bool,
    importers: bool,
) -> tuple[list[bytes] | None, ImporterIndex | None]:
    """The indexes of :func:`build_index` from the records of its jobs (``(job, marshal
    bytes)``, in file order), the progress shown over the ``count`` files."""
    import marshal

    from patchkeeper.progress import track

    defined: list[bytes] | None = [] if definitions else None
    imported: ImporterIndex | None = {} if importers else None
    with track("indexing names and imports", count) as advance:
        for job, data in results:
            advance(len(job[1]))
            sets, rows = marshal.loads(data)
            if defined is not None:
                defined.extend(sets)
            if imported is not None:
                for name, found in (rows or {}).items():
                    imported.setdefault(name, []).extend(map(tuple, found))
    return defined, imported


#: Files per job of :func:`build_index` (a worker's share is read in chunks this size).
INDEX_CHUNK = 64


def _index_files(
    job: tuple[str, list[str], bool, bool],
) -> tuple[list[bytes] | None, ImporterIndex | None]:
    """:func:`build_index`'s work on one chunk of files: ``job`` is ``(root, files,
    definitions, importers)``."""
    base_path, files, definitions, importers = job
    defined: list[bytes] | None = [] if definitions else None
    imported: ImporterIndex | None = {} if importers else None
    for file in files:
        with open(file, "rb") as handle:
            data = handle.read()
        if defined is not None:
            defined.append(defined_names(data))
        if imported is None:
            continue
        module, is_package = _module_of_path(base_path, file)
        for base, name, asname, line, indent in from_imports(data):
            level = len(base) - len(base.lstrip("."))
            source = names.absolute_module(module, is_package, level, base.lstrip(".") or None)
            imported.setdefault(name, []).append((module, source, asname, line, indent))
    return defined, imported


#: A compound statement's header that keeps its body at module level when it is at module
#: level itself: ``if x:``, ``else:``, ``try:``, ``except ImportError as e:``, ``with y:``.
BLOCK_HEADER = re.compile(
    r"^(?:if|elif|else|try|except|finally|with|for|while|async\s+(?:with|for))\b"
)
#: The header of a block that never runs: ``if TYPE_CHECKING:``, ``if typing.TYPE_CHECKING:``
TYPE_CHECKING_HEADER = re.compile(r"^if\s+(?:typing\.)?TYPE_CHECKING\s*:")
#: A header that starts a new scope: ``def f(...):``, ``async def``, ``class C:``.
SCOPE_HEADER = re.compile(r"^(?:def|class|async\s+def)\b")


def module_level(lines: list[str], line: int, indent: int) -> bool | None:
    """Whether the statement at ``line`` (1-based) with ``indent`` columns of indentation
    runs at module level, read from the headers above it: each enclosing line with less
    indentation must be an ``if``/``try``/``with``/... header, up to column 0 (``True``);
    a ``def``/``class`` header means a function or class body, ``if TYPE_CHECKING:`` a
    block that never runs (``False``, for both: not bound when the plugin runs). ``None`` when
    an enclosing line is neither (a continuation line, a string): parse to know."""
    for number in range(line - 2, -1, -1):
        if indent == 0:
            return True
        text = lines[number]
        stripped = text.lstrip(" \t")
        if not stripped.strip() or stripped.startswith("#"):
            continue
        depth = len(text) - len(stripped)
        if depth >= indent:
            continue
        if SCOPE_HEADER.match(stripped) or TYPE_CHECKING_HEADER.match(stripped):
            return False
        if not BLOCK_HEADER.match(stripped) or not stripped.split("#")[0].rstrip().endswith(":"):
            return None
        indent = depth
    return indent == 0 or None
