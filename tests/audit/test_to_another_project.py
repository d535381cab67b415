"""``audit --to DIR`` and ``port --to DIR`` with a directory that holds none of the files the
series changes and is no tree of the configured upstream: another project's unpacked sdist
(its ``PKG-INFO`` names it), or an empty directory. Judged against it, every patch read as
*target gone*, "its content was not found elsewhere"; a release's file or a requirement of
another project was already refused. Both are refused now, naming the directory and what to
pass; a directory whose metadata names no project is audited as before.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import write_files

PATCH = (
    "Description: Larger default burrow\n"
    "Forwarded: not-needed\n"
    "\n"
    "--- a/badger/burrow.py\n"
    "+++ b/badger/burrow.py\n"
    "@@ -1,2 +1,2 @@\n"
    " def size():\n"
    "-    return 2\n"
    "+    return 4\n"
)


def _tree(root: Path, name: str, version: str, files: dict[str, str]) -> Path:
    return write_files(
        root, {"PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", **files}
    )


def _downstream(tmp_path: Path) -> Path:
    burrow = {"badger/burrow.py": "def size():\n    return 2\n"}
    _tree(tmp_path / "badger-1.0", "badger", "1.0", burrow)
    _tree(tmp_path / "weasel-2.0", "Weasel", "2.0", {"weasel/den.py": "DEPTH = 3\n"})
    (tmp_path / "empty").mkdir()
    write_files(tmp_path / "checkout", {"README.md": "badger, rewritten\n"})
    return write_files(
        tmp_path / "down",
        {
            "patchkeeper.toml": 'upstream = "badger"\npin = "1.0"\npristine = "../badger-1.0"\n'
            'series = "debian/patches/series"\n',
            "debian/patches/series": "burrow.patch\n",
            "debian/patches/burrow.patch": PATCH,
        },
    )


def test_another_projects_tree_is_refused(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    weasel = (tmp_path / "weasel-2.0").resolve()
    expected = (
        f"patchkeeper: error: {weasel}: the new upstream (--to) is Weasel 2.0, as its own "
        "metadata says, not badger, the configured upstream, and it holds none of the 1 file "
        "the series changes\n"
        "  hint: pass --to a tree of badger (badger==VERSION fetches its release), or fix "
        "'upstream' in the configuration\n"
    )
    for command in ("audit", "port"):
        run = cli(command, "--to", "../weasel-2.0", cwd=down)
        assert (run.code, run.out, run.err) == (2, "", expected)
    assert not (down / ".patchkeeper-port").exists()


def test_an_empty_directory_is_refused(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    run = cli("audit", "--to", "../empty", "--json", cwd=down)
    assert run.code == 2
    assert json.loads(run.out)["error"] == {
        "message": "the new upstream (--to) is an empty directory: it holds none of the 1 file "
        "the series changes",
        "file": str((tmp_path / "empty").resolve()),
        "line": None,
        "hint": "pass --to the unpacked release of badger, or badger==VERSION, which fetches it",
    }


def test_a_tree_that_names_no_project_is_still_audited(cli, tmp_path: Path) -> None:
    """A checkout without metadata may be the upstream with every file moved: audited."""
    down = _downstream(tmp_path)
    run = cli("audit", "--to", "../checkout", "--json", cwd=down)
    (verdict,) = json.loads(run.out)["verdicts"]
    assert (run.code, verdict["verdict"]) == (1, "target gone")
