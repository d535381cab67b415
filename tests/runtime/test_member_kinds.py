"""A class of the plugin's own in place of upstream's, when upstream turns one of its
members from a value into a method, on the ``member_kind`` fixture (plugin ``kplug``,
upstream ``kup`` 1.0 -> 2.0, whose ``StagedBuffer.view`` became a method): exact decisions
and evidence."""

from __future__ import annotations

import ast
from pathlib import Path

from plugin_trees import audit_fixture

from patchkeeper.runtime.judge.member_kinds import changed_kinds, member_kinds


def test_decisions_on_the_fixture(runtime_trees: Path) -> None:
    result = audit_fixture(runtime_trees / "member_kind", "kplug", "kup")
    decisions = {
        a.entry.target.rsplit(".", 1)[1]: (a.drift.decision, a.drift.evidence[:2])
        for a in result.entries
    }
    assert decisions == {
        # a property where upstream's callers now call a method
        "StagedBuffer": (
            "update",
            (
                "upstream changed the kind of view (a value -> a method) in StagedBuffer: its "
                "callers reach it the new way; the plugin's class DeviceBuffer, which replaces "
                "StagedBuffer without deriving from it, keeps the old kind: give it the new "
                "upstream form",
                "the upstream change (1 hunk(s)) lies only in code the replacement does not "
                "copy (it keeps 20% of the old upstream's lines, none of those upstream "
                "changed): nothing of it reaches the plugin's code",
            ),
        ),
        # upstream added an attribute; every member keeps its kind
        "Pool": (
            "retain",
            (
                "the upstream change (1 hunk(s)) lies only in code the replacement does not "
                "copy (it keeps 33% of the old upstream's lines, none of those upstream "
                "changed): nothing of it reaches the plugin's code",
                "upstream kup.buffers.Pool changed: body; the downstream change is not in the "
                "new upstream",
            ),
        ),
    }


OLD = """\
class Buffer:
    size = 4

    def __init__(self, rows):
        self.rows = rows
        self.view = list(rows)

    def flush(self):
        return self.rows

    @staticmethod
    def make(n):
        return Buffer([0] * n)
"""

NEW = """\
class Buffer:
    size = 4

    def __init__(self, rows):
        self.rows = rows
        self._view = list(rows)

    def view(self, n=None):
        return self._view[:n]

    @property
    def flush(self):
        return self.rows

    @staticmethod
    def make(n):
        return Buffer([0] * n)
"""

MINE = """\
class DeviceBuffer:
    def __init__(self, rows):
        self.rows = rows

    @property
    def view(self):
        return self.rows

    @functools.cached_property
    def size(self):
        return len(self.rows)
"""


def _class(text: str) -> ast.ClassDef:
    node = ast.parse(text).body[0]
    assert isinstance(node, ast.ClassDef)
    return node


def test_member_kinds() -> None:
    """Kinds by name; a member whose kind moved and that the plugin's class keeps in the
    old kind is listed (``view``), not one it lacks (``flush``) nor one whose kind stayed
    (``size``, a class attribute, a property in the plugin)."""
    assert member_kinds(_class(NEW)) == {
        "size": "value",
        "__init__": "method",
        "view": "method",
        "flush": "value",
        "make": "method",
        "rows": "value",
        "_view": "value",
    }
    assert changed_kinds(_class(OLD), _class(NEW), _class(MINE)) == ("view",)
