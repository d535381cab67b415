"""A patch whose target files are gone: judge what exists, and each gone file by where its
content went.

Upstream deletes, splits and moves files (a test module split in two, ``python3/pkg/`` moved
to ``pkg/``, a documentation template dropped). One gone file must not stop the audit of the
patch's other files, so each gone file is either

- *moved*: a file elsewhere holds its content (:func:`patchkeeper.upstream.treesearch.moved_files`);
  the patch is judged against it (:func:`renamed`), the old pin read under the old name
  (:class:`RenamedPin`);
- *its tests gone*: the tests its hunks change exist nowhere in the new release, whose
  tests are still where the file was (:func:`tests_gone`);
- *gone with its content*: the patch only removes lines from it and the new release has
  none of what made those lines what they were (:func:`content_gone`); upstream did what the
  patch did, for that file;
- *set aside*: a file that does not decide the patch's verdict (tests of a code patch:
  :func:`patchkeeper.audit.upstreamed.decides`), or one whose added lines the new release
  has elsewhere (its counted share at least
  :data:`patchkeeper.audit.upstreamed.WRITTEN_DIFFERENTLY`);

or it keeps the patch *target gone*.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import PurePosixPath

from patchkeeper.audit.hunk_verdicts import creates_file, removed_lines
from patchkeeper.series.engine import FileState
from patchkeeper.series.filekinds import TESTS, kind_of
from patchkeeper.series.model import ADDED, FileDiff, Patch
from patchkeeper.series.substantive_lines import substantive, tokens
from patchkeeper.upstream.treesearch import MovedFile, TreeSearch

#: A token of a removed line names what the line is about when its text is at least this
#: long (a URL, an identifier, a tracking id), not ``(`` or ``self``.
KEY_TOKEN_LENGTH = 8

#: :attr:`MovedFile.reason` of a created file whose directory is gone
#: (:func:`moved_directory`).
DIRECTORY_MOVED = "its directory moved"


class RenamedPin:
    """The old pin's tree seen under the new release's paths: ``state(new)`` reads the old
    path the patch was cut against. Everything else is the pin's own.

    Args:
        pin: the old pin's tree.
        renames: new path -> old path.
    """

    def __init__(self, pin: TreeSearch, renames: dict[str, str]) -> None:
        self._pin = pin
        self._renames = renames

    def state(self, path: str) -> FileState | None:
        """The pin's file for ``path``, read under its old name when it was moved."""
        return self._pin.state(self._renames.get(path, path))

    def __getattr__(self, name: str) -> object:
        return getattr(self._pin, name)


def renamed(patch: Patch, renames: dict[str, str], dropped: Iterable[str]) -> Patch:
    """``patch`` with each file of ``renames`` (old path -> new path) written against its new
    path, and the files of ``dropped`` (old paths) left out. A file the patch creates in the
    directory of a renamed file goes where that file's directory went (``python3/pkg/new.py``
    beside ``python3/pkg/__init__.py``, moved to ``pkg/__init__.py``, is read as
    ``pkg/new.py``), when that directory is no longer where it was."""
    skip = set(dropped)
    created = created_moves(patch, renames)
    files = []
    for diff in patch.files:
        if diff.old_path in skip:
            continue
        if diff.new_path in created:
            new = created[diff.new_path]
            if diff.is_rename:
                old = renames.get(diff.old_path or "", diff.old_path)
            else:
                old = None if diff.old_path is None else new
            files.append(replace(diff, old_path=old, new_path=new))
            continue
        moved = renames.get(diff.old_path or "")
        if moved is None:
            files.append(diff)
            continue
        files.append(replace(diff, old_path=moved, new_path=moved if diff.new_path else None))
    return replace(patch, files=tuple(files))


def _parent(path: str) -> str:
    return PurePosixPath(path).parent.as_posix()


def created_moves(patch: Patch, renames: dict[str, str]) -> dict[str, str]:
    """``{created path: new path}`` for each file ``patch`` creates (or renames a file to)
    in the directory of a file of ``renames`` (old path -> new path) whose directory
    changed: it goes where that file's directory went (``requests/help me.py``, the new
    name of ``requests/help.py``, which moved to ``src/requests/help.py``, is
    ``src/requests/help me.py``)."""
    moved_dirs, trees = _moved_directories(renames)
    out: dict[str, str] = {}
    for diff in patch.files:
        if diff.new_path is None or diff.new_path in renames:
            continue
        if not (creates_file(diff) or diff.is_rename):
            continue
        target = moved_dirs.get(_parent(diff.new_path))
        if target is not None:
            name = PurePosixPath(diff.new_path).name
            out[diff.new_path] = name if target == "." else f"{target}/{name}"
            continue
        for above in PurePosixPath(diff.new_path).parents:
            tree = trees.get(above.as_posix())
            if tree is not None:
                out[diff.new_path] = f"{tree}/{diff.new_path[len(above.as_posix()) + 1 :]}"
                break
    return out


def _moved_directories(renames: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """The directories the renames (old path -> new path) moved, in one walk over them:

    - ``{old directory: new directory}`` of each file whose directory changed, under any
      name (the last rename of a directory's files says where it went): ``tests/a.py`` ->
      ``tests/unit/a.py`` moved ``tests`` to ``tests/unit``;
    - ``{old directory: new directory}`` of each directory that moved whole under its own
      name (the first rename that shows it): ``dateutil/parser/_parser.py`` ->
      ``src/dateutil/parser/_parser.py`` moved ``dateutil/parser`` and ``dateutil`` (a file
      created in a new directory below one goes with it); ``tests/a.py`` ->
      ``tests/unit/a.py`` moved no directory whole.
    """
    moved: dict[str, str] = {}
    trees: dict[str, str] = {}
    for old, new in renames.items():
        old_dir, new_dir = PurePosixPath(old).parent, PurePosixPath(new).parent
        if old_dir == new_dir:
            continue
        moved[old_dir.as_posix()] = new_dir.as_posix()
        while old_dir.name and old_dir.name == new_dir.name and old_dir != new_dir:
            trees.setdefault(old_dir.as_posix(), new_dir.as_posix())
            old_dir, new_dir = old_dir.parent, new_dir.parent
    return moved, trees


def adds_nothing(diff: FileDiff) -> bool:
    """Whether the diff adds no substantive line (it only removes or comments)."""
    return not any(
        line.kind == ADDED and substantive(line.text) is not None
        for hunk in diff.hunks
        for line in hunk.lines
    )


def _key_tokens(diff: FileDiff) -> set[bytes]:
    """The long tokens of the diff's removed lines (string bodies without their quotes)."""
    out: set[bytes] = set()
    for hunk in diff.hunks:
        for line in removed_lines(hunk):
            for token in tokens(line):
                body = token[1:-1] if token[:1] == b'"' and len(token) >= 2 else token
                if len(body) >= KEY_TOKEN_LENGTH:
                    out.add(body)
    return out


def _near(tree: TreeSearch, path: str) -> list[str]:
    """The files of ``tree`` under ``path``'s top directory (the whole tree for a file at
    the top), other than ``path``."""
    parts = PurePosixPath(path).parts
    prefix = f"{parts[0]}/" if len(parts) > 1 else ""
    return [f for f in tree.files() if f.startswith(prefix) and f != path]


def content_gone(diff: FileDiff, search: TreeSearch, pin: TreeSearch) -> bool:
    """Whether a gone file's removed content is gone from the new release too.

    The diff must only remove (:func:`adds_nothing`). Its key tokens are the long tokens of
    its removed lines that no other file near it (under the same top directory) had at the
    old pin: what only that file said (a ribbon's id, a badge's URL, a tracking id). When at
    least one exists and the new release has none of them near the file, upstream removed
    what the patch removes; when the new release still has one (a tracking id now set in a
    configuration file), the patch's intent is not upstream. Without a key token nothing can
    be told (``False``), nor when the new release has no such top directory at all (a sdist
    that ships no ``tests/``): nothing near the file is left to read.
    """
    old = diff.old_path or ""
    if not adds_nothing(diff):
        return False
    parts = PurePosixPath(old).parts
    if len(parts) > 1 and not _has_directory(search, parts[0]):
        return False
    keys = _key_tokens(diff)
    for other in _near(pin, old):
        if not keys:
            break
        data = pin.read(other)
        keys = {key for key in keys if key not in data}
    if not keys:
        return False
    return not any(key in search.read(other) for other in _near(search, old) for key in keys)


_TEST_DEF = re.compile(rb"^\s*(?:async\s+)?def\s+(test\w*)\s*\(")


def gone_directory(path: str, search: TreeSearch) -> str | None:
    """The outermost directory of ``path`` that the tree ``search`` does not have
    (``tests`` for ``tests/unit/test_x.py`` in a release that ships no ``tests/``), else
    ``None`` (also for a file at the top)."""
    parents = PurePosixPath(path).parents
    for parent in reversed(parents[:-1]):
        if not _has_directory(search, parent.as_posix()):
            return parent.as_posix()
    return None


def tests_gone(diff: FileDiff, search: TreeSearch) -> bool:
    """Whether the tests a gone test file's hunks change (``def test_...`` among their
    context and removed lines) exist nowhere in the new release's tests: upstream removed
    them, so a patch that skips or changes them has nothing left to change. Without such a
    name nothing can be told (``False``).

    A file gone with its whole directory (:func:`gone_directory`: a release whose sdist no
    longer ships ``tests/``) tells nothing either (``False``): the tests were left out of the
    release, not removed, and the fix may still be needed where they live."""
    if gone_directory(diff.old_path or diff.path, search) is not None:
        return False
    names = {
        match.group(1)
        for hunk in diff.hunks
        for line in hunk.lines
        if line.kind != ADDED
        for match in [_TEST_DEF.match(line.text)]
        if match
    }
    if not names:
        return False
    wanted = [b"def " + name + b"(" for name in names]
    for path in search.files():
        if kind_of(path) != TESTS:
            continue
        data = search.read(path)
        if any(needle in data for needle in wanted):
            return False
    return True


def _has_directory(tree: TreeSearch, directory: str) -> bool:
    return (tree.base / directory).is_dir()


def pinned_directory(path: str, pin: TreeSearch) -> str:
    """The nearest directory above ``path`` that the old pin has (``.`` at the top): its
    own directory, or the ancestor a brand-new directory (``pkg/contrib/``) is made in."""
    directory = PurePosixPath(path).parent
    while directory.as_posix() != "." and not _has_directory(pin, directory.as_posix()):
        directory = directory.parent
    return directory.as_posix()


def moved_directory(path: str, search: TreeSearch, pin: TreeSearch) -> MovedFile | None:
    """Where a file the patch creates belongs when its directory is gone: ``None`` unless
    the old pin had ``path``'s directory and the new release has no such directory. A
    directory neither tree has is judged by its nearest ancestor the old pin has
    (``dateutil/contrib/local.py``, when the pin has ``dateutil/`` and the new release
    moved it to ``src/dateutil/``, belongs at ``src/dateutil/contrib/local.py``):
    ``None`` too when the new release has the directory or that ancestor, or when no
    ancestor below the top is the pin's (:func:`pinned_directory`).

    A file created there would land outside the project's code (``requests/x.py`` once the
    package moved to ``src/requests/``); a patch that applies only that way is *target gone*,
    never *clean*. The new place is the directory of the new release that holds most of the
    pin's files of that directory under their path below it (``adapters.py`` of
    ``requests/`` found as ``src/requests/adapters.py``), when it holds at least half of
    them; ``likely`` is ``None`` otherwise.

    Returns:
        A :class:`MovedFile` for ``path``: ``likely`` the path in the new directory,
        ``found``/``total`` the pin's files of the directory found there and their count,
        ``reason`` ``DIRECTORY_MOVED``.
    """
    directory = pinned_directory(path, pin)
    if directory == "." or _has_directory(search, directory):
        return None
    prefix = f"{directory}/"
    below = [f[len(prefix) :] for f in pin.files() if f.startswith(prefix)]
    wanted = set(below)
    votes: dict[str, int] = {}
    for candidate in search.files():
        for rel in _suffixes(candidate):
            if rel in wanted:
                place = candidate[: len(candidate) - len(rel) - 1]
                votes[place] = votes.get(place, 0) + 1
    best = max(sorted(votes), key=lambda place: votes[place], default=None)
    found = votes.get(best, 0) if best is not None else 0
    if best is None or found * 2 < len(below):
        return MovedFile(path, None, found, len(below), DIRECTORY_MOVED)
    likely = f"{best}/{path[len(prefix) :]}"
    return MovedFile(path, likely, found, len(below), DIRECTORY_MOVED)


def _suffixes(path: str) -> list[str]:
    """The proper tails of ``path`` below a directory: ``a/b/c.py`` -> ``b/c.py``, ``c.py``."""
    parts = path.split("/")
    return ["/".join(parts[index:]) for index in range(1, len(parts))]
