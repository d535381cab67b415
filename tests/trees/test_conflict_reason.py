"""A patch ``verify``/``status`` call *conflict* because of a whole file says so.

A Debian series is relative to the sdist's root and patches the tests too; an installed
wheel has the module alone (``xmltodict.py`` in site-packages, no ``tests/``). Each patch
was a *conflict* whose every hunk was "not applied", with nothing saying why; ``apply``
said it ("tests/test_core.py: the file does not exist"), and now ``verify`` and ``status``
do too, as they already did for a mode change.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import write_files

PATCH = (
    "Description: reject names with angle brackets\nForwarded: not-needed\n---\n"
    "--- a/demo.py\n+++ b/demo.py\n"
    "@@ -1,3 +1,4 @@\n def emit(name):\n+    check(name)\n     return name\n \n"
    "--- a/tests/test_core.py\n+++ b/tests/test_core.py\n"
    "@@ -1,2 +1,4 @@\n def test_emit():\n     assert emit('a') == 'a'\n+\n+# more\n"
)
#: A wheel's tree: the module at the top of site-packages, no tests.
WHEEL_TREE = {"demo.py": "def emit(name):\n    return name\n\n"}


def downstream(tmp_path: Path) -> Path:
    root = tmp_path / "downstream"
    write_files(
        root,
        {
            "debian/patches/series": "names.patch\n",
            "debian/patches/names.patch": PATCH,
            "patchkeeper.toml": 'series = "debian/patches/series"\n\n[headers]\nschema = "dep3"\n',
        },
    )
    write_files(tmp_path / "site", WHEEL_TREE)
    return root


def test_status_says_which_file_is_not_there(cli, tmp_path: Path) -> None:
    root = downstream(tmp_path)
    run = cli("status", "--target", str(tmp_path / "site"), cwd=root)
    assert run.code == 1
    assert run.out.splitlines()[1:] == [
        "  conflict  names.patch",
        "    names.patch: demo.py hunk #1 not applied",
        "    names.patch: tests/test_core.py hunk #1 not applied",
        "    names.patch: tests/test_core.py: the file does not exist",
        "not ok: 0 of 1 patches applied; drift not checked (no pristine reference: pass "
        "--pristine)",
    ]
    run = cli("status", "--target", str(tmp_path / "site"), "--json", cwd=root)
    (patch,) = json.loads(run.out)["state"]["patches"]
    assert (patch["state"], patch["problems"]) == (
        "conflict",
        ["tests/test_core.py: the file does not exist"],
    )


def test_verify_says_it_too(cli, tmp_path: Path) -> None:
    root = downstream(tmp_path)
    site = tmp_path / "site"
    run = cli("verify", "--target", str(site), "--pristine", str(site), cwd=root)
    assert (run.code, run.out.splitlines()[-2:]) == (
        1,
        [
            "    names.patch: tests/test_core.py: the file does not exist",
            "not ok: 0 of 1 patches applied, 0 files drifted",
        ],
    )
