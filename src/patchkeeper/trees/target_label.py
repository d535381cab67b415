"""A tree's one-line label that also knows what it names: kind, path, name and version.

Results keep a tree as its human label (``directory /src/urllib3-1.26.20``); the label is a
:class:`TargetLabel`, a ``str`` that also carries the facts the ``--json`` envelope gives as
its ``target`` object (docs/json.md). A directory's name and version are read as an sdist or a
checkout declares them: ``PKG-INFO``'s ``Name:``/``Version:`` (the core metadata an sdist
carries), else ``[project]`` ``name``/``version`` of ``pyproject.toml`` when they are static.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from patchkeeper.system.pyproject import project_string
from patchkeeper.system.regular import read_regular


class TargetLabel(str):
    """A tree's label (the ``str`` itself) with what it names.

    Attributes:
        kind: ``"directory"``, ``"installed"`` or ``"requirement"``.
        path: the tree's root directory, absolute.
        name: the distribution's name when known, else ``None``.
        version: the upstream version when known, else ``None``.
    """

    kind: str
    path: str
    name: str | None
    version: str | None

    def __new__(
        cls, text: str, *, kind: str, path: Path, name: str | None, version: str | None
    ) -> TargetLabel:
        label = super().__new__(cls, text)
        label.kind = kind
        label.path = str(path)
        label.name = name
        label.version = version
        return label

    def as_object(self) -> dict[str, Any]:
        """The ``target`` object of the JSON envelope: ``kind``, ``path``, ``name``,
        ``version`` (the last two ``None`` when unknown)."""
        return {"kind": self.kind, "path": self.path, "name": self.name, "version": self.version}


def declared_metadata(root: Path) -> tuple[str | None, str | None]:
    """``(name, version)`` a source tree declares: ``PKG-INFO`` (an unpacked sdist), else
    the static ``[project]`` table of ``pyproject.toml`` (a checkout); ``None`` for what
    neither says (a dynamic version, no metadata, an unreadable file).

    >>> declared_metadata(Path("/nonexistent"))
    (None, None)
    """
    pkg_info = root / "PKG-INFO"
    try:
        text = read_regular(pkg_info).decode("utf-8", "replace")
    except OSError:
        text = None
    if text is not None:
        return _header(text, "Name"), _header(text, "Version")
    return project_string(root, "name"), project_string(root, "version")


def _header(text: str, name: str) -> str | None:
    """The first ``name:`` field of core metadata's header block (the email-style fields
    before the first empty line; a continuation line begins with white space), else ``None``.

    >>> _header("Metadata-Version: 2.1\\nName: vllm\\n\\nName: body", "Name")
    'vllm'
    """
    wanted = name.lower()
    for line in text.splitlines():
        if not line.strip():
            return None
        if line[0] in " \t":
            continue
        key, colon, value = line.partition(":")
        if colon and key.strip().lower() == wanted:
            return value.strip()
    return None
