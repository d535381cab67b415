"""A cache of parsed patches, so that a series is parsed once, not on every command.

Parsing a patch (python-unidiff, then the checks and the conversion of
:mod:`patchkeeper.series.parse`) costs about half a millisecond; a command over a series of
10,000 patches would spend most of its time there. A parsed patch is stored under the digest
of its bytes (BLAKE2b), its name and strip level, so a cached parse is used only for exactly
the bytes it was made from: a patch edited within the file system's timestamp granularity
cannot be mistaken for the old one, as a key of size and modification time could be.

One store per series file, in ``$PATCHKEEPER_CACHE/series/`` (default
``~/.cache/patchkeeper-corpus/series/``): never in the downstream or the target, so a
reading command still writes nothing there. The store's name is a digest of the series
file's path, :data:`FORMAT` and the source of the parsing modules (a store written by other
code is never read). A missing, unreadable or foreign store is read as empty; a store that
cannot be written is skipped silently (the cache only saves time).

A record keeps the patch's structure as builtin values (:mod:`marshal`): byte ranges into the
patch file for the raw parts (preamble, file headers, hunks, trailer), which are sliced
again from the patch's bytes, and the pre- and post-images as bytes. The bytes are stored
too, with each patch file's stat key, so that an unchanged file is not read at all.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path
from typing import Any, TypeVar

from patchkeeper.series.model import FileDiff, Hunk, Patch
from patchkeeper.system.cachedir import load_store, racy_since, save_store, stat_key, store_path

#: Bump when a record's shape changes (the code digest also changes the store's name).
FORMAT = "series-2"
#: Stores kept in the cache directory; the least recently written beyond this are removed.
MAX_STORES = 64
_SOURCES = ("model.py", "parse.py", "parse_cache.py")


def cache_dir() -> Path:
    """``$PATCHKEEPER_CACHE/series`` or ``~/.cache/patchkeeper-corpus/series``."""
    from patchkeeper.system.cachedir import cache_root

    return cache_root() / "series"


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of the modules a record depends on (the parser and the model)."""
    digest = hashlib.blake2b(digest_size=16)
    here = Path(__file__).parent
    for name in _SOURCES:
        digest.update(name.encode() + b"\0" + (here / name).read_bytes())
    return digest.hexdigest()


def content_key(data: bytes, name: str, strip: int) -> bytes:
    """The key of a parse: the digest of the bytes, with the name and strip level."""
    digest = hashlib.blake2b(data, digest_size=20)
    digest.update(b"\0%d\0%s" % (strip, name.encode("utf-8", "surrogateescape")))
    return digest.digest()


class ParseCache:
    """The stored parses of one series' patches, loaded once, saved once if changed.

    A parse is found by the digest of the patch's bytes (:func:`content_key`). A patch file
    whose stat key (:func:`~patchkeeper.system.cachedir.stat_key`) is the one remembered
    with its name is not even read: its bytes are kept in the store too (as ``git status``
    trusts its index's stat data).

    Args:
        series_file: the series file (its resolved path names the store).
    """

    def __init__(self, series_file: Path) -> None:
        where = os.path.realpath(series_file)
        self.path = store_path(cache_dir(), f"{FORMAT}\0{code_digest()}\0{where}")
        self.stored: dict[bytes, Any] = {}
        self.stats: dict[str, tuple[Any, ...]] = {}
        self.used: dict[bytes, Any] = {}
        self.used_stats: dict[str, tuple[Any, ...]] = {}
        self.dirty = False
        self._recent_ns = racy_since()
        loaded = load_store(self.path)
        if isinstance(loaded, tuple) and len(loaded) == 2:
            self.stored, self.stats = loaded

    def unchanged(self, name: str, info: os.stat_result | None, strip: int) -> bytes | None:
        """The key of ``name``'s parse when its file has the stat key remembered with it (and
        the bytes are stored), else ``None``."""
        remembered = self.stats.get(name)
        if info is None or remembered is None:
            return None
        if remembered[0] != stat_key(info) or remembered[1] != strip:
            return None
        return remembered[2] if remembered[2] in self.stored else None

    def get(
        self, key: bytes, data: bytes | None, name: str, path: Path, strip: int
    ) -> Patch | None:
        """The cached parse of ``data`` (``None``: the stored bytes) as a :class:`Patch`, or
        ``None``."""
        record = self.stored.get(key)
        if record is None:
            return None
        try:
            patch = decode(record[0], record[1] if data is None else data, name, path, strip)
        except (ValueError, TypeError, IndexError):
            return None
        self.used[key] = record
        return patch

    def put(self, key: bytes, patch: Patch) -> None:
        """Remember the parse of a patch (written by :meth:`save`); one whose hunks are not
        all spans of its bytes (blank context lines the file lost, put back by the parser)
        is parsed anew each time instead."""
        try:
            encoded = encode(patch)
        except ValueError:
            return
        self.used[key] = (encoded, patch.raw)
        self.dirty = True

    def seen(self, name: str, info: os.stat_result | None, strip: int, key: bytes) -> None:
        """Remember that the file of ``name``, with this stat, holds the bytes of ``key``
        (unless it was changed too recently to trust its stat key)."""
        if info is None or max(info.st_mtime_ns, info.st_ctime_ns) > self._recent_ns:
            return
        entry = (stat_key(info), strip, key)
        self.used_stats[name] = entry
        if self.stats.get(name) != entry:
            self.dirty = True

    def save(self) -> None:
        """Write the store when a parse was added or a stored one is no longer listed; the
        store then holds exactly the series' current patches."""
        unchanged = len(self.used) == len(self.stored) and len(self.used_stats) == len(self.stats)
        if not self.dirty and unchanged:
            return
        save_store(self.path, (self.used, self.used_stats), MAX_STORES)


def _span(data: bytes, part: bytes, start: int) -> tuple[int, int]:
    """Where ``part`` lies in ``data`` at or after ``start`` (it is a slice of ``data``)."""
    if data.startswith(part, start):
        return start, start + len(part)
    found = data.index(part, start)
    return found, found + len(part)


def encode(patch: Patch) -> tuple[Any, ...]:
    """A patch as builtin values (see the module's docstring); ``raw`` is not kept."""
    data = patch.raw
    cursor = len(patch.preamble)
    files = []
    for diff in patch.files:
        header = _span(data, diff.header_raw, cursor)
        cursor = header[1]
        hunks = []
        for hunk in diff.hunks:
            raw = _span(data, hunk.raw, cursor)
            cursor = raw[1]
            hunks.append(
                (
                    hunk.index,
                    hunk.old_start,
                    hunk.old_len,
                    hunk.new_start,
                    hunk.new_len,
                    hunk.section,
                    hunk.header,
                    hunk.line_no,
                    hunk.kinds,
                    hunk.line_nos,
                    hunk.pre_image,
                    hunk.post_image,
                    hunk.prefix_context,
                    hunk.suffix_context,
                    raw,
                )
            )
        files.append(
            (
                diff.old_path,
                diff.new_path,
                diff.old_mode,
                diff.new_mode,
                tuple(hunks),
                diff.line_no,
                diff.is_binary,
                header,
                diff.old_empty,
                diff.new_empty,
            )
        )
    return (
        len(patch.preamble),
        patch.preamble_lines,
        tuple(files),
        _span(data, patch.trailer, cursor),
    )


_Made = TypeVar("_Made")

_HUNK_FIELDS = tuple(Hunk.__dataclass_fields__)  # in declaration order, ``raw`` last


def _hunk(fields: tuple[Any, ...], data: bytes) -> Hunk:
    """A :class:`Hunk` from its stored fields, as :mod:`pickle` and :mod:`copy` make objects:
    without ``__init__`` (a frozen dataclass sets each field through ``object.__setattr__``,
    a third of the cost of reading a cached series)."""
    hunk = object.__new__(Hunk)
    values = hunk.__dict__
    values.update(zip(_HUNK_FIELDS, fields))
    start, end = fields[14]
    values["raw"] = data[start:end]
    return hunk


def _made(cls: type[_Made], **values: Any) -> _Made:
    """An instance of the frozen dataclass ``cls`` with every field in ``values``, made as
    :func:`_hunk` makes a hunk (without ``__init__``)."""
    made: _Made = object.__new__(cls)
    made.__dict__.update(values)
    return made


def decode(record: tuple[Any, ...], data: bytes, name: str, path: Path, strip: int) -> Patch:
    """The :class:`Patch` a record of :func:`encode` describes, its raw parts cut from
    ``data``.

    Raises:
        ValueError, TypeError, IndexError: the record is not one :func:`encode` wrote.
    """
    preamble_end, preamble_lines, file_records, (trailer_start, trailer_end) = record
    files: list[FileDiff] = []
    for (
        old_path,
        new_path,
        old_mode,
        new_mode,
        hunk_records,
        line_no,
        is_binary,
        (header_start, header_end),
        old_empty,
        new_empty,
    ) in file_records:
        hunks = tuple(_hunk(fields, data) for fields in hunk_records)
        files.append(
            _made(
                FileDiff,
                old_path=old_path,
                new_path=new_path,
                old_mode=old_mode,
                new_mode=new_mode,
                hunks=hunks,
                line_no=line_no,
                is_binary=is_binary,
                header_raw=data[header_start:header_end],
                old_empty=old_empty,
                new_empty=new_empty,
            )
        )
    return _made(
        Patch,
        name=name,
        path=path,
        raw=data,
        preamble=data[:preamble_end],
        preamble_lines=preamble_lines,
        files=tuple(files),
        strip=strip,
        trailer=data[trailer_start:trailer_end],
    )
