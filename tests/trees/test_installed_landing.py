"""On an installed distribution, a hunk is undone where ``apply`` put it: ``verify`` and
``unapply`` read its line from the install manifest (``patchkeeper.json``).

The case: ``A B`` -> ``B A`` applied to ``B A A B``. The pre-image is only at line 3, so
``apply`` puts the hunk there and the file becomes ``B A B A``; undoing from the header's
line 1 finds ``B A`` there first and gives ``A B B A``, which is not the pristine file. A
pristine tree lets the walk replay the series forward instead; ``RECORD`` holds hashes only,
so there the manifest's lines are what undoes the hunk exactly.

The distribution is a real wheel (written here as a wheel is: a zip with ``.dist-info/
METADATA``, ``WHEEL`` and ``RECORD``), installed by pip into a real virtual environment.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from helpers import site_packages, venv_with_wheel

pytestmark = pytest.mark.slow

PRISTINE = b"B = 2\nA = 1\nA = 1\nB = 2\n"
APPLIED = b"B = 2\nA = 1\nB = 2\nA = 1\n"
PATCH = (
    b"Subject: B before A\n---\n--- a/pkdemo/core.py\n+++ b/pkdemo/core.py\n"
    b"@@ -1,2 +1,2 @@\n-A = 1\n B = 2\n+A = 1\n"
)
#: The files of pkdemo 1.0's wheel.
FILES = {"pkdemo/__init__.py": b"", "pkdemo/core.py": PRISTINE}


@pytest.fixture
def venv_python(tmp_path: Path) -> Path:
    """The interpreter of a new virtual environment with pkdemo 1.0 installed by its pip."""
    return venv_with_wheel(tmp_path, "pkdemo", FILES)


def _downstream(root: Path) -> Path:
    """A downstream of pkdemo 1.0 whose series is :data:`PATCH`."""
    patches = root / "patches"
    patches.mkdir(parents=True)
    (patches / "order.patch").write_bytes(PATCH)
    (patches / "series").write_text("order.patch\n")
    (root / "patchkeeper.toml").write_text('upstream = "pkdemo"\npin = "1.0"\n')
    return root


def test_verify_and_unapply_undo_a_hunk_where_apply_put_it(
    cli, tmp_path: Path, venv_python: Path
) -> None:
    downstream = _downstream(tmp_path / "downstream")
    site = site_packages(venv_python)
    core = site / "pkdemo" / "core.py"
    info = site / "pkdemo-1.0.dist-info"
    record = (info / "RECORD").read_bytes()
    python = str(venv_python)
    run = cli("apply", "--python", python, cwd=downstream)
    assert (run.code, run.err) == (0, "")
    assert core.read_bytes() == APPLIED
    manifest = json.loads((info / "patchkeeper.json").read_bytes())
    assert manifest["series"] == [
        {"name": "order.patch", "sha256": hashlib.sha256(PATCH).hexdigest(), "landed": [[3]]}
    ]
    run = cli("verify", "--python", python, cwd=downstream)
    assert (run.code, run.out.splitlines()[1:]) == (
        0,
        ["  applied  order.patch", "ok: 1 of 1 patches applied, 0 files drifted"],
    )
    run = cli("unapply", "--python", python, cwd=downstream)
    assert (run.code, run.err) == (0, "")
    assert core.read_bytes() == PRISTINE
    assert (info / "RECORD").read_bytes() == record
    assert not (info / "patchkeeper.json").exists()


#: :data:`PATCH` as the first of two diffs of core.py in one patch file (two commits'
#: ``git diff`` joined), the second adding a line after the last: each diff's hunk is
#: "hunk #1", and the manifest keeps their lines by diff, in the order of the patch file.
TWO_DIFFS = (
    b"Subject: B before A, then C\n---\n--- a/pkdemo/core.py\n+++ b/pkdemo/core.py\n"
    b"@@ -1,2 +1,2 @@\n-A = 1\n B = 2\n+A = 1\n"
    b"--- a/pkdemo/core.py\n+++ b/pkdemo/core.py\n@@ -4 +4,2 @@\n A = 1\n+C = 3\n"
)


@pytest.mark.tool("patch")
def test_each_diff_of_one_file_is_undone_where_apply_put_it(
    cli, tmp_path: Path, venv_python: Path
) -> None:
    """The bytes ``apply`` writes are GNU patch's; ``unapply`` gives the pristine bytes back,
    which GNU patch's ``-R`` does not (it undoes the first diff's hunk from its header's line,
    where ``B A`` stands first)."""
    downstream = _downstream(tmp_path / "downstream")
    (downstream / "patches" / "order.patch").write_bytes(TWO_DIFFS)
    gnu = tmp_path / "gnu" / "pkdemo"
    gnu.mkdir(parents=True)
    (gnu / "core.py").write_bytes(PRISTINE)
    patch = ["patch", "-p1", "--fuzz", "0", "-s", "--no-backup-if-mismatch"]
    subprocess.run(patch, input=TWO_DIFFS, cwd=gnu.parent, check=True)
    site = site_packages(venv_python)
    core = site / "pkdemo" / "core.py"
    info = site / "pkdemo-1.0.dist-info"
    record = (info / "RECORD").read_bytes()
    python = str(venv_python)
    run = cli("apply", "--python", python, cwd=downstream)
    assert (run.code, run.err) == (0, "")
    assert core.read_bytes() == (gnu / "core.py").read_bytes() == APPLIED + b"C = 3\n"
    manifest = json.loads((info / "patchkeeper.json").read_bytes())
    assert manifest["series"] == [
        {
            "name": "order.patch",
            "sha256": hashlib.sha256(TWO_DIFFS).hexdigest(),
            "landed": [[3], [4]],
        }
    ]
    run = cli("verify", "--python", python, cwd=downstream)
    assert (run.code, run.out.splitlines()[1:]) == (
        0,
        ["  applied  order.patch", "ok: 1 of 1 patches applied, 0 files drifted"],
    )
    run = cli("unapply", "--python", python, cwd=downstream)
    assert (run.code, run.err) == (0, "")
    assert core.read_bytes() == PRISTINE
    assert (info / "RECORD").read_bytes() == record
    subprocess.run([*patch, "-R"], input=TWO_DIFFS, cwd=gnu.parent, check=True)
    assert (gnu / "core.py").read_bytes() == b"A = 1\nB = 2\nB = 2\nA = 1\n"
