"""A hunk failing in a function whose every line at the pin is still there, where upstream
wrapped one of them in a ``try`` and put new lines beside it (a semaphore's ``acquire``
taking the current green thread): the evidence says how many lines upstream added, since
"0 of the N lines changed" alone reads as a function upstream left alone."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

SEMAPHORE_OLD = """import greenlib


class Semaphore:
    def acquire(self, blocking=True):
        if not blocking and self.locked():
            return False

        current = greenlib.getcurrent()

        if self.counter <= 0:
            self._waiters.append(current)
        self.counter -= 1
        return True
"""

# upstream: the current green thread may not exist outside the hub
SEMAPHORE_NEW = """import greenlib


class Semaphore:
    def acquire(self, blocking=True):
        if not blocking and self.locked():
            return False

        try:
            current = greenlib.getcurrent()
        except RuntimeError:
            if self.counter > 0:
                self.counter -= 1
                return True
            return False

        if self.counter <= 0:
            self._waiters.append(current)
        self.counter -= 1
        return True
"""

# the downstream's own answer to the same problem, in the Debian shape
NO_CURRENT = """Description: Semaphore outside a green thread
Author: A Maintainer <maint@example.org>
Forwarded: no
Last-Update: 2025-10-01

--- a/pkg/semaphore.py
+++ b/pkg/semaphore.py
@@ -6,7 +6,9 @@ class Semaphore:
         if not blocking and self.locked():
             return False
 
-        current = greenlib.getcurrent()
+        current = greenlib.getcurrent()  # may raise outside a green thread
+        if current is None:
+            return False
 
         if self.counter <= 0:
             self._waiters.append(current)
"""


def test_a_function_with_lines_added_says_so(tmp_path: Path) -> None:
    old = {"pkg/semaphore.py": SEMAPHORE_OLD}
    new = {"pkg/semaphore.py": SEMAPHORE_NEW}
    [verdict] = judge(tmp_path, new, [("no-current.patch", NO_CURRENT)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
    assert verdict.summary == (
        "pkg/semaphore.py #1 fails at fuzz 0 (closest: pkg/semaphore.py line 6, 3 of 7 lines"
        " match); 1 of 2 substantive added lines already upstream (strongest: pkg/semaphore.py"
        " 1/2); since the pin, 0 of the 8 lines of `acquire` (pkg/semaphore.py #1) changed"
        " (but 6 added), 4 of the hunk's 4 lines left there; to do: port (rework the failing"
        " hunks)"
    )
