"""The result of ``runtime port``: what it did for each entry, the diff and the files.

The actions, in the report's words: ``merged``, ``clean but behind`` (merged without
conflict, but the copy still lacks an earlier upstream change), ``conflict`` (regions left
marked), ``retargeted``, ``gate cut``, ``by hand`` and ``nothing to do``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from patchkeeper.jsonable import NOT_IN_JSON

MERGED, CONFLICT, RETARGETED, LEFT, NOTHING, GATE_CUT = (
    "merged",
    "conflict",
    "retargeted",
    "by hand",
    "nothing to do",
    "gate cut",
)
BEHIND = "clean but behind"
#: The actions after which an entry needs nothing more from a human.
DONE = frozenset({MERGED, RETARGETED, NOTHING, GATE_CUT})


@dataclass(frozen=True)
class PortedEntry:
    """What ``runtime port`` did for one entry: ``action`` (``merged``, ``clean but
    behind``, ``conflict``,
    ``retargeted``, ``gate cut``, ``by hand``, ``nothing to do``) and a ``detail`` sentence;
    ``conflicts`` the number of conflict regions left in a merge."""

    file: str
    line: int
    target: str
    decision: str
    action: str
    detail: str
    conflicts: int = 0


@dataclass(frozen=True)
class RuntimePort:
    """The result of ``runtime port``: the two upstreams as given (``old``, ``new``: a
    directory, a release file or a requirement, as ``runtime audit`` gives them) and as named
    in a report (``old_release``, ``new_release``: the version, else ``directory ROOT``), the
    ``diff`` (unified, of the plugin), the per-entry report, the files changed, and whether
    they were written; ``write_asked``: whether ``--write`` was given (the diff is then
    applied, never printed, whether or not there was anything to write), not in the JSON
    form (:data:`~patchkeeper.jsonable.NOT_IN_JSON`), which has ``written``."""

    old: str
    new: str
    entries: tuple[PortedEntry, ...]
    diff: str
    files: tuple[str, ...]
    written: bool = False
    output: str = ""
    write_asked: bool = field(default=False, metadata=NOT_IN_JSON)
    old_release: str = ""
    new_release: str = ""

    @property
    def exit_code(self) -> int:
        """1 when something is left by hand, a conflict is marked or a merge is behind, 0
        otherwise."""
        left = any(e.action in (LEFT, CONFLICT, BEHIND) for e in self.entries)
        return 1 if left else 0
