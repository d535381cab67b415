"""A name this Python's file name encoding cannot write is the locale's to fix, not a bug.

Under the C locale with Python's UTF-8 mode off (``LC_ALL=C PYTHONUTF8=0``: a cron job, a
minimal container) the file name encoding is ASCII. A series listing ``fix-ü.patch`` made
``lint``, ``audit`` and ``apply`` stop with "internal error (UnicodeEncodeError ...)" (exit 3)
and ``ledger --check`` say the patch "does not exist"; a configured ledger file named
``PATCHÉS.md`` was the same internal error. Each now names the file (the series line) and
says to run with a UTF-8 locale (exit 2).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import write_files

HINT = (
    "run patchkeeper with a UTF-8 locale (LC_ALL=C.UTF-8) or with PYTHONUTF8=1; this "
    "Python's file name encoding is ascii"
)


def run_ascii(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``patchkeeper ARGS`` under the C locale with UTF-8 mode off (output read as UTF-8)."""
    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "patchkeeper", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
    )


def downstream(root: Path, ledger: str = "PATCHES.md") -> Path:
    write_files(
        root,
        {
            "patchkeeper.toml": (
                'upstream = "demo"\npin = "1.0"\nseries = "debian/patches/series"\n\n'
                f'[headers]\nschema = "dep3"\n\n[ledger]\nfile = "{ledger}"\n'
            ),
            "debian/patches/series": "fix-ü.patch\n",
            "debian/patches/fix-ü.patch": (
                "Description: B is 20\nForwarded: not-needed\n---\n"
                "--- a/demo.py\n+++ b/demo.py\n@@ -1,2 +1,2 @@\n A = 1\n-B = 2\n+B = 20\n"
            ),
            "target/demo.py": "A = 1\nB = 2\n",
        },
    )
    return root


def test_a_series_entry_the_encoding_cannot_write(tmp_path: Path) -> None:
    root = downstream(tmp_path / "ds")
    series = root / "debian" / "patches" / "series"
    for args in (["lint"], ["ledger", "--check"], ["apply", "--target", "target"]):
        done = run_ascii(root, *args)
        assert (done.returncode, done.stdout) == (2, ""), args
        assert done.stderr == (
            f"patchkeeper: error: {series}:1: the series entry 'fix-ü.patch' holds 'ü', which "
            f"this Python's file name encoding (ascii) cannot write\n  hint: {HINT}\n"
        ), args
    assert (root / "target" / "demo.py").read_text() == "A = 1\nB = 2\n"


def test_any_other_name_is_an_error_not_a_bug(tmp_path: Path) -> None:
    root = downstream(tmp_path / "ds", ledger="PATCHÉS.md")
    (root / "debian" / "patches" / "fix-ü.patch").rename(root / "debian/patches/fix.patch")
    (root / "debian" / "patches" / "series").write_text("fix.patch\n")
    done = run_ascii(root, "ledger", "--check", "--json")
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"] == {
        "message": "this file name holds 'É', which this Python's file name encoding (ascii) "
        "cannot write; patchkeeper stopped here",
        "file": str(root / "PATCHÉS.md"),
        "line": None,
        "hint": HINT,
    }
