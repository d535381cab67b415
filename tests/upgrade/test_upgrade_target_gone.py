"""An upgrade whose port stops at a patch of a file the new release dropped, its content
found nowhere: seen on Debian's loguru series (0.6.0), whose patches change files under
``tests/``, ported to the sdist of 0.7.3, which ships no ``tests/``. The conflict has no
file to edit: the list of what is left says so and what to do (the port's files directory
left empty drops the patch), instead of an empty file list and "edit them"."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import make_checkout, write_files

MODULE = "def serve():\n    return 'serve'\n"
TEST_OLD = "def test_serve():\n    assert True\n\n\ndef test_stop():\n    assert True\n"
TEST_PATCH = """\
Description: Skip a test that needs the network
Forwarded: not-needed

--- a/tests/test_server.py
+++ b/tests/test_server.py
@@ -3,4 +3,4 @@ def test_serve():
 
 
 def test_stop():
-    assert True
+    assert not False
"""
HINT = (
    "no file to edit: the files it patches are gone from the new pin and their content was "
    "found nowhere (see .patchkeeper-port/conflict/INSTRUCTIONS.md); copy the file the change "
    "belongs in now into .patchkeeper-port/conflict/files/ and edit it there, or leave that "
    "directory empty to drop the patch, then run 'patchkeeper upgrade --continue' (or "
    "'patchkeeper upgrade --abort')"
)


def _downstream(root: Path) -> Path:
    """Releases 1.0 (with ``tests/``) and 2.0 (without), a downstream on 1.0 in git."""
    for version, files in (
        ("1.0", {"tinyserve/server.py": MODULE, "tests/test_server.py": TEST_OLD}),
        ("2.0", {"tinyserve/server.py": MODULE}),
    ):
        pkg_info = f"Metadata-Version: 2.1\nName: tinyserve\nVersion: {version}\n"
        write_files(root / f"tinyserve-{version}", {"PKG-INFO": pkg_info, **files})
    down = root / "down"
    write_files(
        down,
        {
            "patchkeeper.toml": 'upstream = "tinyserve"\npin = "1.0"\n'
            'series = "debian/patches/series"\npristine = "../tinyserve-1.0"\n',
            "debian/patches/series": "skip-network-test.patch\n",
            "debian/patches/skip-network-test.patch": TEST_PATCH,
        },
    )
    make_checkout(down)
    return down


def test_a_conflict_with_no_file_to_edit_says_what_to_do(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    run = cli("upgrade", "--to", "../tinyserve-2.0", "--branch", "up", cwd=down)
    assert run.code == 1, run.err
    lines = run.out.splitlines()
    start = lines.index("1. conflicts to resolve:")
    assert lines[start + 1 : start + 3] == [
        "   - series skip-network-test.patch",
        f"     {HINT}",
    ]
    assert list((down / ".patchkeeper-port/conflict/files").iterdir()) == []
    shown = cli("upgrade", "--continue", "--json", cwd=down)
    # Continuing with the files directory empty drops the patch: the port is through.
    assert shown.code == 0, shown.err
    result = json.loads(shown.out)
    assert result["conflicts"] == []
    assert (down / "debian/patches/series").read_text() == (
        "# skip-network-test.patch  # dropped in 2.0: proposed for retirement by "
        "'patchkeeper port'\n"
    )


def test_the_json_conflict_lists_no_file_and_the_hint(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    run = cli("upgrade", "--to", "../tinyserve-2.0", "--json", cwd=down)
    assert run.code == 1, run.err
    assert json.loads(run.out)["conflicts"] == [
        {"kind": "series", "name": "skip-network-test.patch", "files": [], "hint": HINT}
    ]


def test_a_patch_dropped_at_the_conflict_waits_for_a_decision(cli, tmp_path: Path) -> None:
    # decide had no suggestion for it (the audit said look): its empty table gets the port's
    # suggestion, so report --check asks a person to decide, and the record counts it retired
    down = _downstream(tmp_path)
    assert cli("upgrade", "--to", "../tinyserve-2.0", cwd=down).code == 1
    assert cli("upgrade", "--continue", cwd=down).code == 0
    decisions = (down / "patchkeeper-decisions.toml").read_text()
    assert 'decision = "suggested: retire"' in decisions
    run = cli("report", "--check", "--json", cwd=down)
    data = json.loads(run.out)
    assert (run.code, data["counts"]["retired"], data["counts"]["unknown"]) == (1, 1, 0)
    assert [(f["code"], f["line"]) for f in data["findings"]] == [("not-reviewed", 12)]


def test_a_patch_dropped_at_the_conflict_is_not_left_to_look_at(cli, tmp_path: Path) -> None:
    # the audit answered look for it (its file gone, its content found nowhere); the series
    # no longer names it after the drop, so only the port's suggestion to retire it is left
    down = _downstream(tmp_path)
    run = cli("upgrade", "--to", "../tinyserve-2.0", "--branch", "up", "--json", cwd=down)
    assert [u["key"] for u in json.loads(run.out)["undecided"]] == ["skip-network-test.patch"]
    run = cli("upgrade", "--continue", cwd=down)
    lines = run.out.splitlines()
    todo = lines[lines.index("left for a person:") + 1 :]
    assert (run.code, todo[:2]) == (
        0,
        [
            '1. suggestions to review, in patchkeeper-decisions.toml (delete "suggested: " '
            "from its decision to accept it, or write your own):",
            "   - series skip-network-test.patch: retire (verdict: dropped)",
        ],
    )
    assert todo[2] == "2. verify the result:"
