"""``status`` on a wheel pip installed into a real virtual environment, none of the series
applied yet: a patch whose context an earlier patch of the series writes is judged on the
tree as it is once the earlier patches are applied (*not applied*, not *conflict*); one
that needs an earlier patch which does not apply on the tree either waits for it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import venv_with_wheel

pytestmark = pytest.mark.slow

CORE = b"".join(b"V%d = %d\n" % (n, n) for n in range(1, 13))

#: Changes V5; the next patch's context holds its line.
FIRST = b"""--- a/pkdemo/core.py
+++ b/pkdemo/core.py
@@ -2,7 +2,7 @@
 V2 = 2
 V3 = 3
 V4 = 4
-V5 = 5
+V5 = 50
 V6 = 6
 V7 = 7
 V8 = 8
"""
#: Changes V7, with ``V5 = 50`` (the first patch's line) in its context.
SECOND = b"""--- a/pkdemo/core.py
+++ b/pkdemo/core.py
@@ -4,7 +4,7 @@
 V4 = 4
 V5 = 50
 V6 = 6
-V7 = 7
+V7 = 70
 V8 = 8
 V9 = 9
 V10 = 10
"""
#: Written against a V5 the release never had: in conflict with the tree.
STALE = FIRST.replace(b"-V5 = 5\n", b"-V5 = 5000\n")


def downstream(root: Path, patches: dict[str, bytes]) -> Path:
    """A downstream at ``root`` carrying ``patches`` in that order on pkdemo 1.0."""
    (root / "patches").mkdir(parents=True)
    for name, data in patches.items():
        (root / "patches" / name).write_bytes(data)
    (root / "patches" / "series").write_text("".join(f"{name}\n" for name in patches))
    (root / "patchkeeper.toml").write_text('upstream = "pkdemo"\npin = "1.0"\n')
    return root


@pytest.fixture
def python(tmp_path: Path) -> str:
    """The interpreter of a new virtual environment with pkdemo 1.0 installed by its pip."""
    files = {"pkdemo/__init__.py": b"", "pkdemo/core.py": CORE}
    return str(venv_with_wheel(tmp_path, "pkdemo", files))


def test_a_patch_on_an_earlier_one_is_not_applied(cli, tmp_path: Path, python: str) -> None:
    root = downstream(tmp_path / "ds", {"0001-five.patch": FIRST, "0002-seven.patch": SECOND})
    run = cli("status", "--python", python, cwd=root)
    assert run.code == 1
    assert run.out.splitlines()[1:] == [
        "  not applied  0001-five.patch",
        "  not applied  0002-seven.patch",
        "    0001-five.patch: pkdemo/core.py hunk #1 not applied",
        "    0002-seven.patch: pkdemo/core.py hunk #1 not applied",
        "not ok: 0 of 2 patches applied, 0 files drifted",
    ]
    # applied, each is then applied: status judged the second on the tree the first leaves
    assert cli("apply", "--python", python, cwd=root).code == 0
    run = cli("status", "--python", python, cwd=root)
    assert run.code == 0
    assert run.out.splitlines()[-1] == "ok: 2 of 2 patches applied, 0 files drifted"


def test_a_patch_waits_for_an_earlier_one_in_conflict(cli, tmp_path: Path, python: str) -> None:
    patches = {"0001-stale.patch": STALE, "0002-seven.patch": SECOND}
    root = downstream(tmp_path / "ds", patches)
    run = cli("status", "--python", python, cwd=root)
    assert run.code == 1
    assert run.out.splitlines()[1:] == [
        "  conflict     0001-stale.patch",
        "  not applied  0002-seven.patch",
        "    0001-stale.patch: pkdemo/core.py hunk #1 not applied",
        "    0002-seven.patch: waits for 0001-stale.patch, which does not apply here (its "
        "lines or files come from there)",
        "    0002-seven.patch: pkdemo/core.py hunk #1 not applied",
        "not ok: 0 of 2 patches applied, 0 files drifted",
    ]
    rows = json.loads(cli("status", "--python", python, "--json", cwd=root).out)
    states = rows["state"]["patches"]
    assert [(p["name"], p["state"], p["waits_for"]) for p in states] == [
        ("0001-stale.patch", "conflict", ""),
        ("0002-seven.patch", "not applied", "0001-stale.patch"),
    ]


#: Creates ``pkdemo/extra.py``, which the next patch changes.
CREATE = b"""diff --git a/pkdemo/extra.py b/pkdemo/extra.py
new file mode 100644
--- /dev/null
+++ b/pkdemo/extra.py
@@ -0,0 +1,3 @@
+X = 1
+Y = 2
+Z = 3
"""
CHANGE = b"""--- a/pkdemo/extra.py
+++ b/pkdemo/extra.py
@@ -1,3 +1,3 @@
 X = 1
-Y = 2
+Y = 20
 Z = 3
"""


def test_a_file_the_series_creates_is_not_missing_from_the_wheel(
    cli, tmp_path: Path, python: str
) -> None:
    """The later patch reads a file the series creates, not one the wheel should have
    installed: no hint to pass an unpacked sdist instead."""
    root = downstream(tmp_path / "ds", {"0001-create.patch": CREATE, "0002-change.patch": CHANGE})
    run = cli("status", "--python", python, cwd=root)
    assert run.code == 1
    assert run.out.splitlines()[1:] == [
        "  not applied  0001-create.patch",
        "  not applied  0002-change.patch",
        "    0001-create.patch: pkdemo/extra.py hunk #1 not applied",
        "    0002-change.patch: pkdemo/extra.py hunk #1 not applied",
        "not ok: 0 of 2 patches applied, 0 files drifted",
    ]
