"""How an audit summary (and ``verify``'s text) names a hunk: ``pkg/facter.py #2``.

A hunk is named by its file and its number in that file's diff. A patch made of two diffs
of the same file (``git format-patch`` of two commits joined into one patch, or a quilt
refresh of two parts) numbers each diff's hunks from 1, so ``pkg/facter.py #1`` can be two
hunks: each is then named with its ``@@`` range too (``pkg/facter.py #1 (@@ -3,6 +3,8 @@)``),
which tells them apart in the patch file.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Protocol

#: The ranges of a hunk header, without the function name after the second ``@@``.
_RANGES = re.compile(r"@@ [^@]*@@")


class HunkStatus(Protocol):
    """A hunk's status (:class:`patchkeeper.audit.hunk_verdicts.HunkVerdict`)."""

    @property
    def path(self) -> str: ...
    @property
    def index(self) -> int: ...
    @property
    def header(self) -> str: ...


class HunkNamer:
    """Names the hunks of one patch, with ``among`` (every hunk of the patch) counted once:
    a patch of thousands of hunks is not counted again for each hunk it names.

    >>> from types import SimpleNamespace as S
    >>> one, two = S(path="a.py", index=1, header="@@ -1 +1 @@"), S(path="a.py", index=2, header="")
    >>> name = hunk_namer([one, two, S(path="a.py", index=1, header="@@ -9 +9 @@")])
    >>> name(one), name(two), name.ranges(one), name.ranges(two)
    ('a.py #1 (@@ -1 +1 @@)', 'a.py #2', ' (@@ -1 +1 @@)', '')
    """

    __slots__ = ("_counts",)

    def __init__(self, among: Iterable[HunkStatus]) -> None:
        self._counts = Counter((s.path, s.index) for s in among)

    def __call__(self, status: HunkStatus) -> str:
        """``path #index`` of ``status``, with :meth:`ranges`."""
        return f"{status.path} #{status.index}{self.ranges(status)}"

    def ranges(self, status: HunkStatus) -> str:
        """`` (@@ -A,B +C,D @@)`` (the ranges of ``status``'s header) when another hunk has
        the same path and number, else ``""``: for text that names a hunk otherwise
        (``pkg/x.py hunk #1 (@@ -9,3 +9,3 @@) not applied``)."""
        if self._counts[(status.path, status.index)] < 2:
            return ""
        found = _RANGES.match(status.header)
        return f" ({found.group() if found else status.header})"


def hunk_namer(among: Iterable[HunkStatus]) -> HunkNamer:
    """The :class:`HunkNamer` of the patch whose hunks are ``among``."""
    return HunkNamer(among)


def hunk_ref(status: HunkStatus, among: Iterable[HunkStatus]) -> str:
    """``path #index`` of ``status``; with `` (@@ -A,B +C,D @@)`` (its header's ranges)
    when another hunk of ``among`` (every hunk of the patch) has the same path and number.
    For one hunk; naming several of one patch, use :func:`hunk_namer` once.

    >>> from types import SimpleNamespace as S
    >>> one = S(path="a.py", index=1, header="@@ -1 +1 @@ def f")
    >>> two = S(path="a.py", index=2, header="@@ -5 +5 @@")
    >>> hunk_ref(one, [one, two])
    'a.py #1'
    >>> other = S(path="a.py", index=1, header="@@ -9,2 +9,3 @@")
    >>> hunk_ref(one, [one, two, other]), hunk_ref(other, [one, two, other])
    ('a.py #1 (@@ -1 +1 @@)', 'a.py #1 (@@ -9,2 +9,3 @@)')
    """
    return hunk_namer(among)(status)


def hunk_refs(chosen: Iterable[HunkStatus], among: Iterable[HunkStatus]) -> str:
    """The :func:`hunk_ref` of each of ``chosen``, joined by ``", "``."""
    return ", ".join(map(hunk_namer(among), chosen))
