"""A hunk of a file the patch renames is applied to the file's old name in the new release:
that file holding its context is where the hunk belongs, not code that moved elsewhere."""

from __future__ import annotations

from pathlib import Path

from helpers import git, make_checkout
from json_schema_check import output

OLD = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(8))
#: upstream commented f3, right beside the patch's change: the hunk fails at fuzz 0
NEW = OLD.replace("def f3(x):\n", "def f3(x):\n    # three\n")


def _downstream(root: Path) -> Path:
    """A pin 1.0 and a release 1.1 of ``pkg/handlers.py``, and a series of one patch made
    by ``git format-patch`` from a commit that renames it to ``pkg/hooks.py`` and edits it."""
    for version, text in (("1.0", OLD), ("1.1", NEW)):
        (root / f"pkg-{version}" / "pkg").mkdir(parents=True)
        (root / f"pkg-{version}" / "pkg" / "handlers.py").write_text(text)
    repo = root / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "handlers.py").write_text(OLD)
    make_checkout(repo, "base")
    git(repo, "mv", "pkg/handlers.py", "pkg/hooks.py")
    hooks = repo / "pkg" / "hooks.py"
    hooks.write_text(OLD.replace("return x + 3\n", "return x + 30\n"))
    git(repo, "commit", "-qam", "hooks")
    downstream = root / "downstream"
    git(repo, "format-patch", "-q", "-1", "-o", str(downstream / "patches"))
    (patch,) = (downstream / "patches").iterdir()
    (downstream / "patches" / "series").write_text(f"{patch.name}\n")
    (downstream / "patchkeeper.toml").write_text(
        'upstream = "pkg"\npin = "1.0"\nseries = "patches/series"\npristine = "../pkg-1.0"\n'
    )
    return downstream


def test_the_renamed_files_old_name_is_not_where_its_code_moved(cli, tmp_path: Path) -> None:
    """The evidence said ``pkg/hooks.py #1: its context is in pkg/handlers.py``: the file
    the rename starts from, as if upstream had moved the code there."""
    downstream = _downstream(tmp_path)
    run = cli("audit", "--to", "../pkg-1.1", "--json", cwd=downstream)
    assert run.code == 1
    (verdict,) = output(run.out)["verdicts"]
    assert [(h["path"], h["status"], h["moved_to"]) for h in verdict["hunks"]] == [
        ("pkg/hooks.py", "fails", None)
    ]
    assert (verdict["verdict"], verdict["summary"].split("; ")[0]) == (
        "conflict",
        "pkg/hooks.py #1 fails at fuzz 0 (closest: pkg/hooks.py line 12, 5 of 7 lines match)",
    )
    assert "its context is in" not in verdict["summary"]
