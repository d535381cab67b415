"""The ``[project]`` table of a tree's ``pyproject.toml`` (an upstream checkout, a plugin), read
as facts that may be missing: a file that is absent, unreadable, not UTF-8, not TOML or whose
``[project]`` is not a table gives an empty table, never an error. The tree is someone else's
(an upstream release, a plugin); what it fails to declare is reported by the caller as unknown.

``tomllib`` is in the standard library from Python 3.11; on 3.10 the ``tomli`` distribution
(a dependency there) is the same parser.
"""

from __future__ import annotations

import posixpath
import sys
from pathlib import Path
from typing import Any

from patchkeeper.system.regular import read_regular

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


def project_table(root: Path) -> dict[str, Any]:
    """``[project]`` of ``root/pyproject.toml``, or ``{}`` when there is none to read.

    >>> project_table(Path("/nonexistent"))
    {}
    """
    try:
        data = tomllib.loads(read_regular(root / "pyproject.toml").decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):  # TOMLDecodeError is a ValueError
        return {}
    project = data.get("project")
    return project if isinstance(project, dict) else {}


def project_string(root: Path, key: str) -> str | None:
    """A text value of ``[project]`` (``name``, ``version``), ``None`` when not static text."""
    value = project_table(root).get(key)
    return value if isinstance(value, str) else None


def source_dirs(project: Path) -> list[Path]:
    """The folders of ``project`` (a plugin's source tree) that hold its packages instead of
    the top: ``src`` (setuptools' and hatch's src layout), and the one its project files
    name (setuptools' ``package-dir = {"" = "python"}`` or ``packages.find`` ``where``, in
    ``pyproject.toml`` or ``setup.cfg``). Only folders that exist are given; a name that
    leaves the project is ignored."""
    names = ["src", *_declared_source_dirs(project)]
    out: list[Path] = []
    for name in names:
        relative = posixpath.normpath(name.strip().replace("\\", "/"))
        if relative in ("", ".") or relative.startswith(("..", "/")):
            continue
        folder = project / relative
        if folder.is_dir() and folder not in out:
            out.append(folder)
    return out


def _declared_source_dirs(project: Path) -> list[str]:
    """The package folders ``project``'s ``pyproject.toml`` and ``setup.cfg`` declare to
    setuptools, as written; ``[]`` when they declare none or cannot be read."""
    import configparser

    names: list[str] = []
    try:
        data = tomllib.loads(read_regular(project / "pyproject.toml").decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        data = {}
    tool = data.get("tool")
    setuptools = tool.get("setuptools") if isinstance(tool, dict) else None
    if isinstance(setuptools, dict):
        package_dir = setuptools.get("package-dir")
        if isinstance(package_dir, dict) and isinstance(package_dir.get(""), str):
            names.append(package_dir[""])
        packages = setuptools.get("packages")
        find = packages.get("find") if isinstance(packages, dict) else None
        where = find.get("where") if isinstance(find, dict) else None
        if isinstance(where, list):
            names += [w for w in where if isinstance(w, str)]
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(read_regular(project / "setup.cfg").decode("utf-8"))
    except (OSError, UnicodeDecodeError, configparser.Error):
        return names
    for line in parser.get("options", "package_dir", fallback="").splitlines():
        key, _, value = line.partition("=")
        if not key.strip() and value.strip():
            names.append(value.strip())
    names += parser.get("options.packages.find", "where", fallback="").split()
    return names
