"""A hunk that only inserts lines, whose context upstream edited (a tool named by a variable
now), is refreshed (carried) where each line of its context is the file's line or an edit of
it and that holds at one place only: neither git's merge (upstream changed the lines right
beside the insertion) nor fuzz (what is left of the context is edited too) places it, yet the
maintainer refreshes the patch with its lines as they were. The shape of a real test script
of a C library's bindings: two ``requires`` lines inserted after the tools a test needs."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_support import judge

HEAD = """\
#!/usr/bin/env bash
# Test the FUSE file mode.

. ../tests/functions.sh

set -e
set -x

requires_fuse
"""
TAIL = """\

if ! test -r /dev/urandom; then
    echo "$0: test skipped: /dev/urandom not readable"
    exit 77
fi

pidfile=test-file-mode.pid
cleanup_fn rm -f $pidfile
"""
OLD = (
    HEAD
    + "requires nbdkit --exit-with-parent --version\n"
    + "requires cmp --version\n"
    + "requires dd --version\n"
    + TAIL
)
# the new release names each tool by a variable the test harness sets
NEW = (
    HEAD
    + "requires $NBDKIT --exit-with-parent --version\n"
    + "requires $CMP --version\n"
    + "requires $DD --version\n"
    + TAIL
)
GUARD = """Subject: skip the FUSE tests where /dev/fuse cannot be used
---
--- a/fuse/test-file-mode.sh
+++ b/fuse/test-file-mode.sh
@@ -10,6 +10,8 @@
 requires nbdkit --exit-with-parent --version
 requires cmp --version
 requires dd --version
+requires test -w /dev/fuse
+requires test -e /etc/mtab
 
 if ! test -r /dev/urandom; then
     echo "$0: test skipped: /dev/urandom not readable"
"""
REFRESH = (
    "its 1 hunk (1 file) lands with its + and - lines unchanged (beside context upstream edited)"
)


def test_the_guard_lands_after_the_tools_upstream_renamed(tmp_path: Path) -> None:
    (verdict,) = judge(
        tmp_path,
        {"fuse/test-file-mode.sh": NEW},
        [("guard.patch", GUARD)],
        old={"fuse/test-file-mode.sh": OLD},
    )
    assert (verdict.verdict, verdict.action, verdict.refresh) == ("conflict", "carry", REFRESH)
    assert verdict.summary.startswith("fuse/test-file-mode.sh #1 fails at fuzz 0")


@pytest.mark.parametrize(
    ("patch", "new", "why"),
    [
        pytest.param(
            GUARD,
            NEW + "\n" + NEW.replace("#!/usr/bin/env bash\n", ""),
            "the edited context is in the file twice: no place is told",
            id="edited-context-found-twice",
        ),
        pytest.param(
            GUARD,
            NEW.replace("requires $CMP --version", "check_tools_or_skip"),
            "upstream wrote another line where a context line was, not an edit of it",
            id="context-line-rewritten",
        ),
        pytest.param(
            GUARD,
            NEW.replace("requires $DD --version", "requires $DDRESCUE --version"),
            "upstream took a word out of a context line: another tool, not an edit",
            id="context-word-renamed",
        ),
        pytest.param(
            GUARD,
            NEW.replace("requires $NBDKIT --exit-with-parent --version", "start_server memory"),
            "an outer context line is another line now: no context line is left out as fuzz"
            " leaves it out",
            id="outer-context-line-rewritten",
        ),
        pytest.param(
            GUARD.replace("@@ -10,6 +10,8 @@", "@@ -10,6 +10,7 @@").replace(
                " requires dd --version\n", "-requires dd --version\n"
            ),
            NEW,
            "a hunk that removes lines must find them as they are",
            id="removes-a-line",
        ),
        pytest.param(
            GUARD,
            NEW.replace(
                "requires $DD --version\n", "requires $DD --version\nrequires test -w /dev/fuse\n"
            ),
            "upstream added one of the inserted lines itself",
            id="upstream-wrote-the-guard",
        ),
    ],
)
def test_an_insertion_beside_context_that_cannot_be_told_is_ported(
    tmp_path: Path, patch: str, new: str, why: str
) -> None:
    (verdict,) = judge(
        tmp_path,
        {"fuse/test-file-mode.sh": new},
        [("guard.patch", patch)],
        old={"fuse/test-file-mode.sh": OLD},
    )
    assert (verdict.action, verdict.refresh) == ("port", ""), why
