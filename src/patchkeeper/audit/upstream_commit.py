"""The patch's own word that it is upstream's commit, dated before the new release.

DEP-3's ``Origin`` says where a patch comes from: ``upstream, URL`` for a change cherry-picked
from upstream's history, ``backport, URL`` for one adapted from it; a bare URL of a commit
(``https://forge.example.org/project/-/commit/0a1b2c3d``) says the same. ``git format-patch``
and ``gbp pq`` write the commit's ``Date``; DEP-3's ``Last-Update`` is when the patch was last
changed, so upstream's commit existed by then too. The earlier of the two is the latest day
the commit can have been made.

A release whose files are all older than that day was made before the commit and lacks it.
A release made after it most likely has it: a commit on upstream's history is in the releases
that follow. When such a patch no longer applies (*conflict*, or *blocked* by an earlier
patch that fails), the likely reason is that upstream has the fix and changed the code around
it since, so porting it would add the fix a second time: a person looks (*look*) instead. Two
cases keep the patch to *port*: a release made before the commit, and an old pin made after
the commit that still lacks it (the commit is on another line of releases than the pin's, a
development branch whose fixes the pin's maintenance releases did not take; the new release
may be on the pin's line too).

A release's day is read from its files: the newest modification time of a regular file of the
tree (an unpacked sdist or tarball keeps the times its archive holds; a checkout or an install
has later ones, which only makes *look* more likely, never *retire*). A tree with no readable
time (every file at the epoch) gives no day and no evidence.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import os
import re
import stat
import weakref
from dataclasses import dataclass

from patchkeeper.series.headers import parse_headers
from patchkeeper.series.model import Patch
from patchkeeper.upstream.treesearch import TreeSearch

#: DEP-3's categories of ``Origin`` that name upstream's own change.
UPSTREAM_CATEGORIES = ("upstream", "backport")
#: A URL of one commit: ``/commit/<id>``, ``/-/commit/<id>``, ``/commits/<id>``, ``?id=<id>``
#: of cgit (a hexadecimal id of at least 7 digits).
_COMMIT_URL = re.compile(r"https?://\S+(?:/commits?/|[?&;]id=|/rev/)[0-9a-fA-F]{7,40}\b")
#: DEP-3's ``Last-Update``: ``2024-06-07``.
_DAY = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})\b")
#: The first day a tree's times are read as real (an archive written without times has the
#: epoch, or 1980-01-01 for zip's first day).
_FIRST_REAL_DAY = dt.date(1980, 1, 2)
#: Per tree, its day (:func:`tree_day`), kept while the tree is.
_DAYS: weakref.WeakKeyDictionary[TreeSearch, dt.date | None] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class UpstreamCommit:
    """The header's claim that the patch is upstream's commit, held against the trees.

    Attributes:
        origin: the ``Origin`` value as written.
        day: the latest day the commit can have been made (the earlier of ``Date`` and
            ``Last-Update``).
        released: the day of the new release (its newest file).
    """

    origin: str
    day: dt.date
    released: dt.date

    @property
    def text(self) -> str:
        """The evidence in words."""
        return (
            f"its header says it is upstream's commit (Origin: {self.origin}), made by "
            f"{self.day.isoformat()}, before the new release ({self.released.isoformat()})"
        )


def origin_commit(origin: str) -> bool:
    """Whether an ``Origin`` value names upstream's own change: category ``upstream`` or
    ``backport``, or no category and the URL of one commit.

    >>> origin_commit("upstream, https://example.org/p/commit/0a1b2c3d")
    True
    >>> origin_commit("https://example.org/p/-/commit/0a1b2c3d4e")
    True
    >>> origin_commit("vendor, https://example.org/p/commit/0a1b2c3d"), origin_commit("Debian")
    (False, False)
    >>> origin_commit("https://example.org/p/pull/12")
    False
    """
    head, _, rest = origin.partition(",")
    category = head.strip().lower()
    if category in UPSTREAM_CATEGORIES:
        return True
    if rest and re.fullmatch(r"[a-z]+", category):
        return False  # another category: vendor, other
    return _COMMIT_URL.search(origin) is not None


def _header_day(date: str, last_update: str) -> dt.date | None:
    """The earlier of a mail ``Date`` (RFC 2822) and a ``Last-Update`` day, or ``None`` when
    neither reads."""
    days = []
    if date:
        try:
            days.append(email.utils.parsedate_to_datetime(date).date())
        except (TypeError, ValueError, IndexError):
            pass
    match = _DAY.match(last_update)
    if match:
        try:
            days.append(dt.date(*(int(part) for part in match.groups())))
        except ValueError:
            pass
    return min(days) if days else None


def tree_day(tree: TreeSearch) -> dt.date | None:
    """The day of a tree's newest regular file (symbolic links, whose times are the day they
    were unpacked, are left out), or ``None`` when it has no file with a real time. Read
    once per tree."""
    if tree in _DAYS:
        return _DAYS[tree]
    newest = 0.0
    for path in tree.files():
        try:
            status = os.lstat(tree.base / path)
        except OSError:
            continue
        if not stat.S_ISLNK(status.st_mode):
            newest = max(newest, status.st_mtime)
    day = dt.datetime.fromtimestamp(newest, dt.timezone.utc).date() if newest else None
    _DAYS[tree] = day if day is not None and day >= _FIRST_REAL_DAY else None
    return _DAYS[tree]


def upstream_commit(
    patch: Patch, new: TreeSearch | None, pin: TreeSearch | None
) -> UpstreamCommit | None:
    """The header's claim that ``patch`` is upstream's commit, when the commit was made
    before the new release ``new`` and the old ``pin`` does not show it is on another line of
    releases (made after the commit, yet without it); ``None`` otherwise, or when a tree or
    the commit's day is unknown."""
    if new is None:
        return None
    headers = parse_headers(patch.preamble)
    origin = " ".join(headers.value("Origin", aliases=False).split())
    if not origin or not origin_commit(origin):
        return None
    date, update = headers.get("Date", aliases=False), headers.get("Last-Update", aliases=False)
    day = _header_day(date.value if date else "", update.value if update else "")
    released = tree_day(new)
    if day is None or released is None or day >= released:
        return None
    pin_day = tree_day(pin) if pin is not None else None
    if pin_day is not None and pin_day > day:
        return None
    return UpstreamCommit(origin, day, released)
