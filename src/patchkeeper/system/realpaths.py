"""Real paths of many files in few directories, each directory resolved once.

A downstream's 1,000 patch files lie in one or two directories: resolving each of them whole
(``Path.resolve``) looks up every component of every path again. The real path of
``dir/name`` is ``realpath(dir)/name`` unless ``name`` is itself a symbolic link, so one
``lstat`` per file suffices once its directory is known.
"""

from __future__ import annotations

import os
import stat


class RealPaths:
    """``os.path.realpath`` (what :meth:`pathlib.Path.resolve` gives) for many paths, with
    the real path of each directory remembered.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as top:
    ...     real = os.path.realpath(top)
    ...     RealPaths().real(os.path.join(top, "a.patch")) == os.path.join(real, "a.patch")
    True
    """

    def __init__(self) -> None:
        self._dirs: dict[str, str] = {}

    def real(self, path: str) -> str:
        """The real path of ``path`` (absolute; components need not exist), as
        ``os.path.realpath(path)``.

        Raises:
            OSError: as ``os.path.realpath`` (a name too long for the file system).
        """
        parent, name = os.path.split(path)
        if name in ("", ".", ".."):
            return os.path.realpath(path)
        real_parent = self._dirs.get(parent)
        if real_parent is None:
            real_parent = self._dirs[parent] = os.path.realpath(parent)
        leaf = os.path.join(real_parent, name)
        try:
            link = stat.S_ISLNK(os.lstat(leaf).st_mode)
        except (OSError, ValueError):
            link = False
        return os.path.realpath(leaf) if link else leaf
