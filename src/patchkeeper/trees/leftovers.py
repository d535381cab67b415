"""What builds and test runs leave in a tree: the ``ignore`` patterns ``verify`` skips.

A build (``setup.py build``, ``pip install -e``, Debian's ``pybuild``) or a test run leaves
files no patch explains: ``build/``, ``*.egg-info/``, ``.pybuild/``, ``.pytest_cache/``.
They are not "changed outside the series". The configuration's ``ignore`` key lists glob
patterns, matched against patch paths (relative to the patch root) with gitignore(5)'s rules:

- a pattern ending in ``/`` matches directories only (and so everything under them);
- a pattern with a ``/`` at its start or in its middle is anchored: it matches the path from
  the patch root, segment by segment (``*`` never crosses a ``/``); a leading ``/`` is dropped;
- any other pattern matches a file or directory name at any depth.

``**`` is not special. The default list is :data:`DEFAULT_IGNORE`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fnmatch import fnmatchcase, translate

from patchkeeper.constants import DEFAULT_IGNORE  # noqa: F401 (the doctests' list)


def _matches(pattern: str, segments: Sequence[str]) -> bool:
    """Whether ``pattern`` (no trailing ``/``) matches the path made of ``segments``."""
    body = pattern.lstrip("/")
    if pattern.startswith("/") or "/" in body:
        wanted = body.split("/")
        return len(wanted) == len(segments) and all(
            fnmatchcase(segment, part) for segment, part in zip(segments, wanted)
        )
    return fnmatchcase(segments[-1], body)


def ignored_by(path: str, patterns: Sequence[str], *, is_dir: bool = False) -> str | None:
    """The first pattern that ignores ``path`` (POSIX, relative to the patch root), or
    ``None``. A path is ignored when it, or a directory above it, matches.

    Args:
        path: ``"a/b/c.py"``.
        patterns: :data:`DEFAULT_IGNORE` or the configured list.
        is_dir: ``path`` itself is a directory (a ``dir/`` pattern may match it).

    >>> ignored_by("src/pkg.egg-info/SOURCES.txt", DEFAULT_IGNORE)
    '*.egg-info/'
    >>> ignored_by("build/lib/x.py", DEFAULT_IGNORE), ignored_by("ops/build/x.py", DEFAULT_IGNORE)
    ('/build/', None)
    >>> ignored_by("build", DEFAULT_IGNORE), ignored_by("build", DEFAULT_IGNORE, is_dir=True)
    (None, '/build/')
    """
    segments = path.split("/")
    for pattern in patterns:
        dir_only = pattern.endswith("/")
        body = pattern.rstrip("/")
        if not body:
            continue
        last = len(segments) if (is_dir or not dir_only) else len(segments) - 1
        for end in range(1, last + 1):
            if _matches(body, segments[:end]):
                return pattern
    return None


class WalkIgnore:
    """:func:`ignored_by` for a walk that does not enter ignored directories: only the path
    itself is matched (the directories above it were matched on the way down), and the
    patterns that match a name at any depth are one regular expression.

    Args:
        patterns: :data:`DEFAULT_IGNORE` or the configured list.

    >>> walk = WalkIgnore(DEFAULT_IGNORE)
    >>> walk.ignores("src/pkg.egg-info", is_dir=True), walk.ignores("a/x.pyc", is_dir=False)
    (True, True)
    >>> walk.ignores("build", is_dir=True), walk.ignores("ops/build", is_dir=True)
    (True, False)
    """

    def __init__(self, patterns: Sequence[str]) -> None:
        names: list[str] = []
        dir_names: list[str] = []
        self.anchored: list[tuple[bool, list[str]]] = []
        for pattern in patterns:
            dir_only = pattern.endswith("/")
            body = pattern.rstrip("/")
            if not body:
                continue
            if pattern.startswith("/") or "/" in body.lstrip("/"):
                self.anchored.append((dir_only, body.lstrip("/").split("/")))
            else:
                (dir_names if dir_only else names).append(translate(body))
        self.names = re.compile("|".join(names)).match if names else None
        self.dir_names = re.compile("|".join(dir_names)).match if dir_names else None

    def ignores(self, path: str, *, is_dir: bool) -> bool:
        """Whether a pattern matches ``path`` itself (POSIX, relative to the patch root)."""
        name = path.rpartition("/")[2]
        if self.names is not None and self.names(name):
            return True
        if is_dir and self.dir_names is not None and self.dir_names(name):
            return True
        if self.anchored:
            segments = path.split("/")
            for dir_only, wanted in self.anchored:
                if (
                    (is_dir or not dir_only)
                    and len(wanted) == len(segments)
                    and all(fnmatchcase(part, want) for part, want in zip(segments, wanted))
                ):
                    return True
        return False
