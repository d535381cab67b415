"""A patch that inserts into code upstream took out around it: *look*, not *port*."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

STORE_OLD = """class Store:
    def __init__(self, url):
        options = dict(SETTINGS.items())
        options["retries"] = 0
        self._engine = sessions.LegacyEngine(self._normalize(url),
                                             **options)
        self._users = UsersTable(self._engine)
        self._groups = GroupsTable(self._engine)

    def close(self):
        self._engine.dispose()
"""

# the old engine opens a transaction per statement only when told so
AUTOCOMMIT = """Subject: keep statements committed with the newer database layer
---
--- a/pkg/store.py
+++ b/pkg/store.py
@@ -3,6 +3,7 @@ class Store:
         options = dict(SETTINGS.items())
         options["retries"] = 0
         self._engine = sessions.LegacyEngine(self._normalize(url),
+                                             autocommit=True,
                                              **options)
         self._users = UsersTable(self._engine)
         self._groups = GroupsTable(self._engine)
"""

# upstream moved to the context-managed engine: the call the patch extends is gone
STORE_NEW = """_LOCAL = threading.local()


class Store:
    def __init__(self, url):
        options = dict(SETTINGS.items())
        options["retries"] = 0
        with configured(url):
            engines.configure(**options)

    def close(self):
        engines.dispose()
"""


def test_an_insert_whose_neighbours_upstream_took_out_is_a_look(tmp_path: Path) -> None:
    old = {"pkg/store.py": STORE_OLD}
    [verdict] = judge(tmp_path, {"pkg/store.py": STORE_NEW}, [("commit.patch", AUTOCOMMIT)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "look")
    assert verdict.rule == "gone-around"
    # `**options)` is too short to tell its place: the next line down is the neighbour
    assert verdict.rewritten == (
        "upstream took out the lines around what pkg/store.py #1 inserts: neither "
        "`self._engine = sessions.LegacyEngine(self._normalize(url),` nor "
        "`self._users = UsersTable(self._engine)` is in the file any more"
    )
    assert verdict.summary.endswith(
        f"; {verdict.rewritten}; to do: look (upstream changed the same lines; decide "
        "whether its change has the fix)"
    )


def test_an_insert_with_one_neighbour_still_there_is_a_port(tmp_path: Path) -> None:
    # the call is still there, only its first argument changed: the argument is to add again
    new = {
        "pkg/store.py": STORE_OLD.replace(
            "**options)\n", "**options)\n        self._cache = {}\n"
        ).replace("self._normalize(url),", "url,")
    }
    old = {"pkg/store.py": STORE_OLD}
    [verdict] = judge(tmp_path, new, [("commit.patch", AUTOCOMMIT)], old)
    assert (verdict.verdict, verdict.action, verdict.rewritten) == ("conflict", "port", "")
