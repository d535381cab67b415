"""``record`` keeps the tail of a command's output bounded line by line as well as in lines:
a line that never ends (a progress bar redrawn with carriage returns, a dump written without
newlines, as a test runner's dots or a build's log can be) was kept whole, megabytes of it
in the evidence file and in the audit record, and printed back to the terminal. A line keeps
its last 1000 bytes and says how many it lost; a redrawn line keeps what a terminal shows
last; the output is read as it comes, never held whole."""

from __future__ import annotations

import json
import sys
from pathlib import Path

SCRIPT = """import sys
out = sys.stdout.buffer
out.write(b"collected 3 items\\n")
out.write(b"." * 2_000_000 + b"\\n")
for percent in range(0, 101, 10):
    out.write(b"\\rdownloading %d%%" % percent)
out.write(b"\\r\\n")
out.write(b"3 passed\\r\\n")
out.write(b"x" * 1500)
"""


def test_an_endless_line_is_kept_by_its_end(cli, audited: Path) -> None:
    run = cli("record", "--", sys.executable, "-c", SCRIPT, cwd=audited)

    data = json.loads((audited / ".patchkeeper/evidence/recorded.json").read_text())
    tail = data["commands"][0]["tail"]
    assert (run.code, data["commands"][0]["exit_code"]) == (0, 0)
    assert tail == [
        "collected 3 items",
        "[1999000 bytes cut] " + "." * 1000,
        "downloading 100%",
        "3 passed",
        "[500 bytes cut] " + "x" * 1000,
    ]
    assert run.out.splitlines()[-5:] == [f"  | {line}" for line in tail]
