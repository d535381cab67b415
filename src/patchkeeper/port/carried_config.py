"""The configuration of a series directory written elsewhere (``port``'s ``patches-NEWPIN/``).

Every key and section of the downstream's configuration is carried (``[headers]``,
``[ledger]``, ``[lint]``, ``[git]``, ``[entries.*]``, ``[port]``, ``[runtime]``,
``[report]`` and whatever else the file holds), so ``patchkeeper -C patches-NEWPIN lint`` or
``ledger --check`` judge the new series by the same rules. The keys that name a file or a
directory of the downstream, relative to the configuration's directory (:data:`PATH_KEYS`), are
rewritten relative to the new directory so they still name the same file; a path key left at
its default is written out when that default names a file that exists (the ledger file) or its
section is configured, since the same default would point inside the new directory. Keys that
are not paths of the downstream (``directory`` and ``[lint] registry`` are inside the upstream
tree, ``patch-files`` are patterns) are kept as they are.

The file is written with ``tomli_w``; :func:`carried_text` reads its own output back to check
the round trip.
"""

from __future__ import annotations

import copy
import os
import sys
from pathlib import Path
from typing import Any

from patchkeeper.config import Config, read_table

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: ``(section, key)`` of a path relative to the configuration's directory, with its default
#: and when a default is written out: ``"exists"`` (the default file exists), ``"section"``
#: (the section is configured) or ``None`` (never: only a configured value is rewritten).
PATH_KEYS: tuple[tuple[str, str, str | None, str | None], ...] = (
    ("ledger", "file", "PATCHES.md", "exists"),
    ("git", "checkout", None, None),
    ("port", "work-dir", None, None),
    ("runtime", "root", ".", "section"),
    ("report", "decisions-file", "patchkeeper-decisions.toml", "exists"),
    ("report", "audit-file", "AUDIT.md", "exists"),
    ("report", "html-file", "AUDIT.html", "exists"),
    ("report", "python", None, None),
)
#: ``[entries.KIND.NAME]`` keys that are paths relative to the configuration's directory.
ENTRY_PATH_KEYS: dict[str, tuple[str, ...]] = {
    "overlays": ("source",),
    "foreign-diffs": ("diff", "pin-file", "checkout"),
    "vendored": ("directory", "pin-file", "checkout"),
}
#: Top-level keys the new directory sets itself.
OWN_KEYS = ("pin", "series", "pristine")


def relocate(value: str, old_root: Path, new_root: Path) -> str:
    """``value`` (a path relative to ``old_root``) relative to ``new_root``, POSIX; an absolute
    path is kept.

    >>> relocate("PATCHES.md", Path("/d"), Path("/d/patches-2.0"))
    '../PATCHES.md'
    >>> relocate("/srv/tree", Path("/d"), Path("/e"))
    '/srv/tree'
    """
    if os.path.isabs(value):
        return value
    target = os.path.normpath(os.path.join(old_root, value))
    return Path(os.path.relpath(target, new_root)).as_posix()


def carried_table(config: Config, new_root: Path, pin: str, pristine: str | None) -> dict[str, Any]:
    """The downstream's configuration table for a series directory at ``new_root``.

    Args:
        config: the downstream's loaded configuration (its file is read again, as written).
        new_root: the new series directory (absolute or relative to the current directory).
        pin: the new pin.
        pristine: the new pin's tree, relative to ``new_root`` or absolute, or ``None``.

    Returns:
        The table: ``upstream``, ``pin``, ``series = "series"``, the other top-level keys,
        then every section, path keys rewritten.
    """
    old_root = config.root.resolve()
    new_root = Path(os.path.abspath(new_root))
    raw = copy.deepcopy(read_table(config.source)) if config.source else {}
    table: dict[str, Any] = {}
    if config.upstream:
        table["upstream"] = config.upstream
    table.update({"pin": pin, "series": "series"})
    table.update({"strip": config.strip, "directory": config.directory, "fetch": config.fetch})
    if pristine:
        table["pristine"] = pristine
    for key, value in raw.items():
        if key not in table and key not in OWN_KEYS:
            table[key] = value
    for section, key, default, when in PATH_KEYS:
        _carry_path(table, raw, section, key, default, when, old_root, new_root)
    entries = table.get("entries")
    if isinstance(entries, dict):
        for kind, keys in ENTRY_PATH_KEYS.items():
            for entry in (entries.get(kind) or {}).values():
                if isinstance(entry, dict):
                    for key in keys:
                        if isinstance(entry.get(key), str):
                            entry[key] = relocate(entry[key], old_root, new_root)
    return table


def _carry_path(
    table: dict[str, Any],
    raw: dict[str, Any],
    section: str,
    key: str,
    default: str | None,
    when: str | None,
    old_root: Path,
    new_root: Path,
) -> None:
    values = table.get(section)
    if values is not None and not isinstance(values, dict):
        return
    value = (values or {}).get(key)
    if isinstance(value, str):
        values[key] = relocate(value, old_root, new_root)  # type: ignore[index]
        return
    if value is not None or default is None:
        return
    configured = section in raw
    if (when == "section" and configured) or (when == "exists" and (old_root / default).exists()):
        table.setdefault(section, {})[key] = relocate(default, old_root, new_root)


def carried_text(table: dict[str, Any], comment: str) -> str:
    """``table`` as TOML, after a ``# comment`` line.

    Raises:
        AssertionError: the text does not read back as ``table`` (a value TOML cannot hold).
    """
    import tomli_w

    text = f"# {comment}\n" + tomli_w.dumps(table)
    assert tomllib.loads(text) == table, "the carried configuration does not read back"
    return text
