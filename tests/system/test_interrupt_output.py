"""A Ctrl-C that comes while the result is printed: the output stays one whole JSON document.

Seen on ``audit --json --to 'joblib>=0.10,<1.6'`` (Debian's joblib series over 33 releases, a
450 KB envelope): a reader that drains the pipe slowly, then a Ctrl-C. The write was cut at
64 KiB and the interrupted run's envelope followed it, two documents on standard output, the
first cut short; with the Ctrl-C only noted, CPython's buffered writer still dropped the rest
of the cut write. Now the first Ctrl-C lets the result be written whole, and the command ends
with the result's exit code; a second one ends it at once, with nothing printed after the
part already out.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from helpers import write_files

#: Starts ``patchkeeper`` with SIGINT handled as a terminal's Ctrl-C is (a process started
#: from a shell without job control inherits SIGINT ignored).
ENTRY = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from patchkeeper.main import entry; sys.argv[0] = 'patchkeeper'; entry()"
)

#: Patches enough for a ledger envelope many times the size of a pipe's buffer.
COUNT = 1500


def _downstream(root: Path) -> Path:
    """A downstream of COUNT DEP-3 patches with its ledger written."""
    files = {
        "patchkeeper.toml": 'upstream = "tinyserve"\npin = "1.0"\n\n[headers]\nschema = "dep3"\n',
        "PATCHES.md": "# Patches\n\n<!-- table:begin -->\n<!-- table:end -->\n",
        "patches/series": "".join(f"fix-{n:04d}.patch\n" for n in range(COUNT)),
    }
    for n in range(COUNT):
        files[f"patches/fix-{n:04d}.patch"] = (
            f"Description: keep the server from stalling on request {n} of a long keep-alive\n"
            f"Origin: upstream, https://example.org/tinyserve/commit/{n:040d}\n"
            "Last-Update: 2025-12-17\n\n"
            f"--- a/mod{n}.py\n+++ b/mod{n}.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
        )
    write_files(root, files)
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "ledger"], cwd=root, capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return root


def _interrupted_while_printing(root: Path, signals: int) -> tuple[int, bytes, bytes]:
    """Run ``ledger --check --json``; once its output has begun (the pipe full, the rest
    waiting), send SIGINT ``signals`` times, then read everything."""
    process = subprocess.Popen(
        [sys.executable, "-c", ENTRY, "ledger", "--check", "--json"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], 60)
    assert ready, "no output within 60 s"
    time.sleep(0.2)  # the writer fills the pipe and waits for it to drain
    for _ in range(signals):
        os.kill(process.pid, signal.SIGINT)
        time.sleep(0.2)
    out, err = process.communicate(timeout=60)
    return process.returncode, out, err


def test_a_ctrl_c_while_the_result_is_printed_lets_it_finish(tmp_path: Path) -> None:
    root = _downstream(tmp_path / "down")
    code, out, err = _interrupted_while_printing(root, 1)
    envelope = json.loads(out)
    assert (code, envelope["exit_code"], envelope["command"], len(envelope["rows"])) == (
        0,
        0,
        "ledger",
        COUNT,
    )
    assert len(out) > 4 * 65536
    assert err == b""


def test_a_second_ctrl_c_ends_the_printing_with_nothing_after_it(tmp_path: Path) -> None:
    root = _downstream(tmp_path / "down")
    code, out, err = _interrupted_while_printing(root, 2)
    assert (code, err) == (130, b"\npatchkeeper: interrupted\n")
    assert out.count(b'"command"') == 1  # the result's first part, no second envelope
    assert out.startswith(b'{\n  "command": "ledger"')
