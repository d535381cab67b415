"""The ``[project]`` table of a tree's ``pyproject.toml`` (an upstream checkout, a plugin), read
as facts that may be missing: a file that is absent, unreadable, not UTF-8, not TOML or whose
``[project]`` is not a table gives an empty table, never an error. The tree is someone else's
(an upstream release, a plugin); what it fails to declare is reported by the caller as unknown.

``tomllib`` is in the standard library from Python 3.11; on 3.10 the ``tomli`` distribution
(a dependency there) is the same parser.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

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
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):  # TOMLDecodeError is a ValueError
        return {}
    project = data.get("project")
    return project if isinstance(project, dict) else {}


def project_string(root: Path, key: str) -> str | None:
    """A text value of ``[project]`` (``name``, ``version``), ``None`` when not static text."""
    value = project_table(root).get(key)
    return value if isinstance(value, str) else None
