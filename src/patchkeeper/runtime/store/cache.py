"""The parsed-tree cache: per-file records of builtin values, stored with :mod:`marshal`.

One store per tree holds ``relative path -> (stat data, 1, marshalled record)``; a record
is decoded only when its file is asked for, so loading a store costs one read and one
:func:`marshal.loads` of byte strings, whatever the number of files. A record is valid
while the file's size, modification and change times (nanoseconds) and inode are unchanged
(:func:`file_state`, taken before the file is read); a file modified within
:data:`RACY_SECONDS` is not remembered. The store's name
is a digest of the tree root, a *salt* (the settings that change a record), :data:`FORMAT`
and the source of this package (so a record written by another version of the code is
never read). Stores live in ``$PATCHKEEPER_CACHE/runtime/`` (default
``~/.cache/patchkeeper-corpus``); a missing, unreadable or foreign store is treated as
empty, never as an error.
"""

from __future__ import annotations

import functools
import marshal
import os
import time
from collections.abc import Callable, Container, Iterable
from pathlib import Path
from typing import Any, TypeVar

from patchkeeper.system import cachedir
from patchkeeper.system.atomic import write_atomic
from patchkeeper.system.regular import is_special

#: Bump when a record's shape changes (the code digest also changes the store's name).
FORMAT = "runtime-13"

#: A file modified this recently (seconds) is not remembered: a second change within the
#: same tick of the file system's clock could leave the same stat data (git's "racily
#: clean" index entries).
RACY_SECONDS = 2

#: A file's stat data as the stores compare it (:func:`file_state`).
State = tuple[int, int, int, int]

Parsed = TypeVar("Parsed")


def cache_root() -> Path:
    """``$PATCHKEEPER_CACHE`` or ``~/.cache/patchkeeper-corpus``
    (:func:`patchkeeper.system.cachedir.cache_root`)."""
    return cachedir.cache_root()


def file_state(stat: os.stat_result) -> State:
    """``(size, mtime_ns, ctime_ns, inode)``: the stat data a record is valid for, as git's
    index keeps them for a tracked file. Editing a file changes its modification time;
    replacing it (an unpack, a rename over it, even one that puts the old modification
    time back) changes its change time or inode."""
    return (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)


def racy(state: State) -> bool:
    """Whether a file in ``state`` was modified within :data:`RACY_SECONDS` (or in the
    future): a record of it is not kept."""
    return state[1] >= time.time_ns() - RACY_SECONDS * 1_000_000_000


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of every module of :mod:`patchkeeper.runtime` (its sub-packages included),
    of :mod:`patchkeeper.constants` (the decision words) and of
    :mod:`patchkeeper.series.substantive_lines` (the lines the evidence counts): what the
    records and remembered results are computed by."""
    import hashlib  # here: a warm runtime command that only checks stat data never loads it

    digest = hashlib.sha256()
    runtime = Path(__file__).parent.parent
    outside = [runtime.parent / "constants.py", runtime.parent / "series" / "substantive_lines.py"]
    for path in [*sorted(runtime.rglob("*.py")), *outside]:
        name = path.relative_to(runtime.parent).as_posix()
        digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


class SummaryCache:
    """A store ``file -> record`` for one tree, loaded once, saved once.

    Args:
        root: the tree's root directory (part of the store's name; keys are relative to it).
        salt: what else the records depend on (settings), as text.
    """

    def __init__(self, root: Path, salt: str) -> None:
        self.root = root.resolve()
        self._root_text = str(self.root)
        self._prefix = self._root_text.rstrip("/") + "/"
        key = f"{FORMAT}\0{code_digest()}\0{self.root}\0{salt}"
        import hashlib

        name = hashlib.sha256(key.encode()).hexdigest()[:24]
        self.path = cache_root() / "runtime" / f"{name}.marshal"
        self.entries: dict[str, tuple[Any, Any, bytes]] = {}
        self.dirty = False
        try:
            loaded = marshal.loads(self.path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return
        if isinstance(loaded, dict):
            self.entries = loaded

    def _key(self, file: Path) -> str:
        """``file`` relative to the root (``file.relative_to(root).as_posix()``), or the whole
        path for a file outside it: taken from the path's text, as
        :meth:`pathlib.PurePath.relative_to` compares the parts of two normalized paths (a
        cold run asks this for every file, where pathlib's version cost a tenth of a second
        of the parent's time)."""
        text = str(file)
        if text == self._root_text:
            return "."
        return text[len(self._prefix) :] if text.startswith(self._prefix) else text

    def get(self, file: Path) -> Any | None:
        """The record of ``file`` if it has not changed since it was stored, else ``None``."""
        hit = self.entries.get(self._key(file))
        if hit is None:
            return None
        try:
            stat = file.stat()
        except OSError:
            return None
        if file_state(stat) != hit[0]:
            return None
        return marshal.loads(hit[2])

    def put(self, file: Path, record: Any) -> None:
        """Remember ``record`` (builtin values only) for the current state of ``file``."""
        try:
            stat = file.stat()
        except OSError:
            return
        self.put_encoded(file, file_state(stat), marshal.dumps(record))

    def valid(self, file: Path) -> bool:
        """Whether a record of ``file`` is stored for its current size and modification
        time (:meth:`get` would answer it), without decoding the record."""
        hit = self.entries.get(self._key(file))
        if hit is None:
            return False
        try:
            stat = file.stat()
        except OSError:
            return False
        return bool(file_state(stat) == hit[0])

    def put_encoded(self, file: Path, state: State, data: bytes) -> None:
        """Remember a record already encoded (``data``: :func:`marshal.dumps` of it, made by
        :mod:`patchkeeper.runtime.parallel`'s workers) for ``file`` in ``state``: its
        :func:`file_state` taken *before* the file was read, so a file changed meanwhile
        is read again by the next run. Nothing is kept for a :func:`racy` state."""
        if racy(state):
            return
        self.entries[self._key(file)] = (state, 1, data)
        self.dirty = True

    def python_folders(self, directory: Path) -> list[tuple[str, list[str]]]:
        """``(folder, sorted names of its *.py files)`` for every folder under ``directory``
        (itself included), top-down with subfolders in sorted order, as :func:`os.walk`
        gives them (symbolic links to folders not followed).

        The listing is remembered in this store with each folder's inode and modification
        time, and given again without reading a folder while none of them changed: adding,
        removing or renaming an entry changes its folder's modification time (POSIX), so
        the remembered listing is the one a walk would give. A warm run then costs one
        ``stat`` per folder instead of reading every folder (vLLM: 400 folders).
        """
        key = f"#folders:{directory}"
        hit = self.entries.get(key)
        if hit is not None:
            listing = marshal.loads(hit[2])
            if _unchanged(directory, listing):
                return [
                    (f"{directory}/{relative}" if relative else str(directory), names)
                    for relative, _state, names in listing
                ]
        listing = []
        for folder, subfolders, files in os.walk(directory):
            subfolders.sort()
            try:
                stat = os.stat(folder)
            except OSError:
                continue
            relative = folder[len(str(directory)) + 1 :]
            names = sorted(
                name  # a FIFO or socket named *.py is no module: reading it would hang
                for name in files
                if name.endswith(".py") and not is_special(os.path.join(folder, name))
            )
            listing.append((relative, (stat.st_ino, stat.st_mtime_ns), names))
        self.put_value(key, "", listing)
        return [
            (f"{directory}/{relative}" if relative else str(directory), names)
            for relative, _state, names in listing
        ]

    def get_value(self, key: str, signature: str) -> Any | None:
        """A record stored under a free ``key`` with the same ``signature``, else ``None``."""
        hit = self.entries.get(key)
        if hit is None or hit[0] != signature:
            return None
        return marshal.loads(hit[2])

    def stored(self, key: str) -> tuple[str, Any] | None:
        """``(signature, record)`` stored under a free ``key``, whatever the signature, else
        ``None``: for a caller that learns the signature it wants only later."""
        hit = self.entries.get(key)
        if hit is None:
            return None
        return hit[0], marshal.loads(hit[2])

    def put_value(self, key: str, signature: str, record: Any) -> None:
        """Store ``record`` under ``key`` with ``signature`` (what it was computed from)."""
        self.entries[key] = (signature, 0, marshal.dumps(record))
        self.dirty = True

    def save(self) -> None:
        """Write the store atomically if anything changed (errors are ignored: a cache)."""
        if not self.dirty:
            return
        try:
            write_atomic(self.path, marshal.dumps(self.entries), parents=True)
            self.dirty = False
        except (OSError, ValueError):
            return


def _unchanged(directory: Path, listing: list[Any]) -> bool:
    """Whether every folder of a remembered listing (:meth:`SummaryCache.python_folders`)
    still has its inode and modification time."""
    base = str(directory)
    for relative, state, _names in listing:
        try:
            stat = os.stat(f"{base}/{relative}" if relative else base)
        except OSError:
            return False
        if (stat.st_ino, stat.st_mtime_ns) != tuple(state):
            return False
    return bool(listing)


def parsed_module(
    module: str,
    memo: dict[str, Parsed],
    locate: Callable[[str], tuple[Path, bool] | None],
    cache: SummaryCache,
    parse: Callable[[Path, bool], Parsed],
    codec: tuple[Callable[[Parsed], Any], Callable[[Any], Parsed]],
) -> Parsed | None:
    """The parsed form of ``module`` of a tree, computed once per run and once per file state.

    Args:
        memo: the tree's parsed modules so far (filled in here).
        locate: ``module -> (file, is_package)``, or ``None`` when the tree has no such file.
        cache: the tree's store; a valid record of the file is decoded instead of parsing.
        parse: ``(file, is_package) -> parsed``, for a file without a valid record.
        codec: ``(encode, decode)`` between the parsed form and a record (builtin values).

    Returns:
        The parsed form, or ``None`` when ``locate`` finds no file (not remembered).
    """
    if module in memo:
        return memo[module]
    found = locate(module)
    if found is None:
        return None
    file, is_package = found
    encode, decode = codec
    record = cache.get(file)
    if record is not None:
        parsed = decode(record)
    else:
        try:
            state: State | None = file_state(file.stat())  # before reading: see put_encoded
        except OSError:
            state = None
        parsed = parse(file, is_package)
        if state is not None:
            cache.put_encoded(file, state, marshal.dumps(encode(parsed)))
    memo[module] = parsed
    return parsed


def _prefetch_jobs(
    modules: Iterable[str],
    memo: Container[str],
    locate: Callable[[str], tuple[Path, bool] | None],
    cache: SummaryCache,
    job_of: Callable[[str, Path, bool], tuple[Any, ...]],
) -> tuple[list[tuple[Any, ...]], dict[str, tuple[Path, State]], list[int]]:
    """The jobs of :func:`prefetch_records` (the modules without a valid record), with each
    module's file and stat data and each job's size in bytes."""
    jobs: list[tuple[Any, ...]] = []
    files: dict[str, tuple[Path, State]] = {}
    sizes: list[int] = []
    for module in modules:
        found = None if module in memo or module in files else locate(module)
        if found is None or cache.valid(found[0]):
            continue
        file, is_package = found
        try:
            stat = file.stat()
        except OSError:
            continue
        files[module] = (file, file_state(stat))
        sizes.append(stat.st_size)
        jobs.append(job_of(module, file, is_package))
    return jobs, files, sizes


def prefetch_records(
    modules: Iterable[str],
    memo: Container[str],
    locate: Callable[[str], tuple[Path, bool] | None],
    cache: SummaryCache,
    job_of: Callable[[str, Path, bool], tuple[Any, ...]],
    worker: Callable[[tuple[Any, ...]], Any],
) -> int:
    """Compute the records of the ``modules`` that have none valid in ``cache`` on every
    usable core (:func:`patchkeeper.runtime.parallel.map_records`) and store them, so that
    :func:`parsed_module` then decodes them as on a warm run. Only a speed-up: nothing is
    stored when the work is too small for a pool (each module is then parsed when asked).
    Returns how many records were stored.

    Args:
        modules: module names; those in ``memo`` or without a file are left out.
        memo: the modules the tree has parsed already this run.
        locate: ``module -> (file, is_package)``, or ``None``.
        cache: the tree's store.
        job_of: ``(module, file, is_package) -> job``, a picklable tuple whose second item
            is the module name.
        worker: a module-level function ``job -> record`` (builtin values).
    """
    from patchkeeper.runtime import parallel

    jobs, files, sizes = _prefetch_jobs(modules, memo, locate, cache, job_of)
    shared = parallel.shared_pool_running()
    if parallel.workers_for(len(jobs), parallel.MIN_FILES_SHARED if shared else None) == 0:
        return 0
    for job, data in parallel.map_records(worker, jobs, sizes):
        file, state = files[job[1]]
        cache.put_encoded(file, state, data)
    return len(jobs)


def start_prefetch(
    modules: Iterable[str],
    memo: Container[str],
    locate: Callable[[str], tuple[Path, bool] | None],
    cache: SummaryCache,
    job_of: Callable[[str, Path, bool], tuple[Any, ...]],
    worker: Callable[[tuple[Any, ...]], Any],
) -> Callable[[], int] | None:
    """:func:`prefetch_records` handed to the running pool now
    (:func:`patchkeeper.runtime.parallel.start_records`), its records stored by the
    function returned, which waits for them if need be and returns how many it stored:
    the workers summarize while this process does other work. ``None`` when nothing was
    started (no pool, nothing to do): the modules are then read when asked for."""
    from patchkeeper.runtime import parallel

    jobs, files, sizes = _prefetch_jobs(modules, memo, locate, cache, job_of)
    started = parallel.start_records(worker, jobs, sizes) if jobs else None
    if started is None:
        return None

    def store() -> int:
        for job, data in started.results():
            file, state = files[job[1]]
            cache.put_encoded(file, state, data)
        return len(jobs)

    return store
