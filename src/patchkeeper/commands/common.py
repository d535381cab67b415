"""What several commands share: the configured overlays checked against the tree, and the
command line an evidence command keeps when it is run from Python."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the runtime commands use only command_line: no tree code imported
    from patchkeeper.config import Config
    from patchkeeper.trees.tree import Tree


def overlay_files(config: Config, tree: Tree) -> dict[str, bytes]:
    """The configured overlays (``[tool.patchkeeper.entries]``): path -> bytes to copy into the
    tree after the series; every path checked against the tree first."""
    entries = config.sections.get("entries")
    if entries is not None and not entries.get("overlays"):
        return {}  # nothing to read: the ledger's modules are not even imported
    from patchkeeper.ledger.entries import load_entries
    from patchkeeper.ledger.entries import overlay_files as configured

    if not any(entry.kind == "overlay" for entry in load_entries(config)):
        return {}
    files = configured(config)
    for path in files:
        tree.path_of(path)
    return files


def command_line(
    words: Sequence[str], options: Mapping[str, object], given: Sequence[str] | None = None
) -> list[str]:
    """The command line kept with a command's evidence: ``given`` (the arguments ``main``
    parsed) when there is one, else the one that asks for ``options``.

    ``options`` maps an option to its value: ``None`` or ``False`` leaves it out, ``True`` is
    a flag, anything else is written as text after it.

    >>> command_line(["audit"], {"--to": "urllib3==1.26.20", "--json": False, "--x": None})
    ['audit', '--to', 'urllib3==1.26.20']
    >>> command_line(["port"], {"--in-place": True}, given=["-C", "d", "port", "--in-place"])
    ['-C', 'd', 'port', '--in-place']
    """
    if given is not None:
        return list(given)
    line = list(words)
    for option, value in options.items():
        if value is None or value is False:
            continue
        line += [option] if value is True else [option, str(value)]
    return line
