"""A file the series patched on an installed distribution, edited by hand afterwards: the
series then reads as partly applied, and ``unapply`` refused with advice to undo the patch's
applied hunks by hand, which would not give the pristine files back. The install manifest
(``patchkeeper.json``) holds the sha256 ``apply`` left in each file, so the refusal names
the files edited since and how to get back to a tree ``unapply`` can undo.

The distribution is a real wheel installed by pip into a real virtual environment.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import site_packages, tree_bytes, venv_with_wheel

pytestmark = pytest.mark.slow

CORE = b"".join(b"V%d = %d\n" % (n, n) for n in range(1, 13))
PATCH = (
    b"From 45a72dae812a673a329fc024dd7b5eb5a59da205 Mon Sep 17 00:00:00 2001\n"
    b"From: Ana Fork <ana@fork.example>\n"
    b"Subject: [PATCH] core: new defaults and an extra module\n"
    b"\n---\n"
    b"diff --git a/pkdemo/core.py b/pkdemo/core.py\n"
    b"--- a/pkdemo/core.py\n+++ b/pkdemo/core.py\n"
    b"@@ -1,3 +1,3 @@\n V1 = 1\n-V2 = 2\n+V2 = 20\n V3 = 3\n"
    b"@@ -9,3 +9,3 @@\n V9 = 9\n-V10 = 10\n+V10 = 100\n V11 = 11\n"
    b"diff --git a/pkdemo/extra.py b/pkdemo/extra.py\n"
    b"new file mode 100644\n"
    b"--- /dev/null\n+++ b/pkdemo/extra.py\n@@ -0,0 +1 @@\n+X = 1\n"
)


@pytest.fixture
def venv_python(tmp_path: Path) -> Path:
    """The interpreter of a new virtual environment with pkdemo 1.0 installed by its pip."""
    files = {"pkdemo/__init__.py": b"", "pkdemo/core.py": CORE}
    return venv_with_wheel(tmp_path, "pkdemo", files)


def test_unapply_names_the_files_edited_since_apply(cli, tmp_path: Path, venv_python: Path) -> None:
    downstream = tmp_path / "downstream"
    (downstream / "patches").mkdir(parents=True)
    (downstream / "patches" / "0001-core-defaults.patch").write_bytes(PATCH)
    (downstream / "patches" / "series").write_text("0001-core-defaults.patch\n")
    (downstream / "patchkeeper.toml").write_text('upstream = "pkdemo"\npin = "1.0"\n')
    python = str(venv_python)
    assert cli("apply", "--python", python, cwd=downstream).code == 0
    site = site_packages(venv_python)
    core, extra = site / "pkdemo" / "core.py", site / "pkdemo" / "extra.py"
    core.write_bytes(core.read_bytes().replace(b"V2 = 20\n", b"V2 = 2\n"))
    extra.write_bytes(extra.read_bytes() + b"Y = 2\n")
    before = tree_bytes(site)
    run = cli("unapply", "--python", python, cwd=downstream)
    assert run.code == 1
    assert run.out.splitlines()[-1] == (
        "nothing was changed: pkdemo/core.py, pkdemo/extra.py changed since the series was "
        "applied (not the sha256 pkdemo-1.0.dist-info/patchkeeper.json recorded), so "
        "0001-core-defaults.patch is neither applied nor undone; put back the bytes the series "
        f"left, or reinstall the upstream ('{python} -m pip install --force-reinstall "
        "--no-deps pkdemo==1.0') and apply the series again"
    )
    assert tree_bytes(site) == before
