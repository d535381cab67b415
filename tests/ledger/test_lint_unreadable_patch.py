"""A patch file the user may not read: lint reports it and reads the rest.

In the shape of a Debian series whose one patch was copied in with a mode that leaves it
unreadable (a file from another user's umask, ``0000``): ``lint`` is read-only, so it
reports the file at its series line (PK201, as for a line naming nothing) and goes on with
the other patches; the commands that need the patch stop naming it and asking for read
access, never for write access. The downstream is written by the test. Tests run as root,
which reads every file: the commands run without the capabilities that let root read a file
whatever its mode (``setpriv --bounding-set``), or as the user the tests run as when that is
not root.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import HELLO_PATCH, write_files

#: Runs a command without root's right to read any file (nothing when not root).
NO_READ_OVERRIDE = (
    ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
)


def run(cwd: Path, *args: str) -> tuple[int, str, str]:
    """``patchkeeper ARGS`` in ``cwd`` by a user who cannot read a file of mode 0000."""
    done = subprocess.run(
        [*NO_READ_OVERRIDE, sys.executable, "-m", "patchkeeper", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def downstream(tmp_path: Path) -> Iterator[Path]:
    """A DEP-3 series of two patches, the first unreadable (mode 0000)."""
    down = write_files(
        tmp_path / "down",
        {
            "patchkeeper.toml": (
                'upstream = "hello"\npin = "1.0"\nseries = "debian/patches/series"\n\n'
                '[headers]\nschema = "dep3"\n'
            ),
            "debian/patches/series": "short-greeting.patch\nshorter-greeting.patch\n",
            "debian/patches/short-greeting.patch": HELLO_PATCH,
            "debian/patches/shorter-greeting.patch": HELLO_PATCH.replace(
                "Description: keep the greeting short\n", ""
            ),
        },
    )
    unreadable = down / "debian/patches/short-greeting.patch"
    unreadable.chmod(0)
    yield down
    unreadable.chmod(0o644)


def test_lint_reports_an_unreadable_patch_and_reads_the_others(downstream: Path) -> None:
    code, out, err = run(downstream, "lint")
    assert (code, err, out.splitlines()) == (
        1,
        "",
        [
            "debian/patches/series:1: PK201 short-greeting.patch cannot be read: Permission "
            "denied: let this user read it, or take its line out of the series",
            "debian/patches/shorter-greeting.patch:3: PK101 missing header 'Description:'",
            "2 problems in 2 patches (1 not read: short-greeting.patch)",
        ],
    )
    code, out, err = run(downstream, "lint", "--json")
    result = json.loads(out)
    assert (code, err, result["unread"], result["findings"][0]) == (
        1,
        "",
        ["short-greeting.patch"],
        {
            "code": "PK201",
            "path": "debian/patches/series",
            "line": 1,
            "message": "short-greeting.patch cannot be read: Permission denied",
            "hint": "let this user read it, or take its line out of the series",
        },
    )


def test_the_commands_that_need_the_patch_ask_to_read_it(downstream: Path) -> None:
    patch = downstream / "debian/patches/short-greeting.patch"
    for args in (("ledger", "--check"), ("ledger",)):
        assert run(downstream, *args) == (
            2,
            "",
            f"patchkeeper: error: {patch}: cannot read the patch: Permission denied\n"
            "  hint: make it a readable patch file, or take its line out of the series\n",
        ), args
    assert not (downstream / "PATCHES.md").exists()


def test_an_unforeseen_read_refusal_asks_for_read_access(tmp_path: Path) -> None:
    """The last resort for a file operation the machine refused asks to let the user read a
    file that exists and cannot be read (the refused operation was a read), and to let the
    user write a file or folder otherwise."""
    secret = tmp_path / "secret.patch"
    secret.write_text(HELLO_PATCH)
    secret.chmod(0)
    program = (
        "import sys\n"
        "from patchkeeper.system.refusals import machine_refused\n"
        "for path in sys.argv[1:]:\n"
        "    try:\n"
        "        open(path, 'rb' if path.endswith('.patch') else 'wb')\n"
        "    except OSError as exc:\n"
        "        print(machine_refused(exc))\n"
    )
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    done = subprocess.run(
        [*NO_READ_OVERRIDE, sys.executable, "-c", program, str(secret), str(folder / "new")],
        capture_output=True,
        text=True,
    )
    secret.chmod(0o644)
    folder.chmod(0o755)
    assert (done.returncode, done.stderr, done.stdout.splitlines()) == (
        0,
        "",
        [
            f"{secret}: Permission denied; patchkeeper stopped here",
            "  hint: let this user read it, or work on a copy",
            f"{folder}/new: Permission denied; patchkeeper stopped here",
            "  hint: let this user write it and its directory, or work on a copy",
        ],
    )
