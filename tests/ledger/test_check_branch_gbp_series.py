"""``check-branch --tag`` on a Debian series that ``gbp pq export`` wrote (each patch a
``git format-patch`` file, its ``From <commit>`` line naming a commit of Debian's packaging
repository), after ``import --tag`` made the integration branch: the hint said to write
every patch again with ``git format-patch``, which renames the Debian files
(``0001-...patch``) and the series with them. A branch of topic commits is the topic
workflow's: the hint is ``export --range`` then ``ledger``, which keep the files' names, as
for any other series; run as pasted, the two agree again."""

from __future__ import annotations

import shlex
from pathlib import Path

from helpers import git, write_files


def _commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(
        repo,
        "-c",
        "user.name=Dev",
        "-c",
        "user.email=dev@example.org",
        "commit",
        "-q",
        "-m",
        message,
    )


def test_a_tagged_branch_of_a_gbp_series_is_told_export_and_import(cli, tmp_path: Path) -> None:
    up = write_files(tmp_path / "up", {"pkg/core.py": "def answer():\n    return 41\n"})
    git(up, "init", "-q", "-b", "main")
    _commit(up, "Release 1.0")
    git(up, "tag", "v1.0")
    git(up, "checkout", "-q", "-b", "packaging")
    (up / "pkg" / "core.py").write_text("def answer():\n    return 42\n")
    _commit(up, "Fix the answer")
    patch = git(up, "format-patch", "-1", "--stdout") + "\n"
    git(up, "checkout", "-q", "main")
    down = write_files(
        tmp_path / "down",
        {
            "debian/source/format": "3.0 (quilt)\n",
            "debian/patches/series": "fix-answer.patch\n",
            "debian/patches/fix-answer.patch": patch,
        },
    )
    assert cli("init", "--upstream", "pkg==1.0", cwd=down).code == 0
    run = cli("import", "--checkout", "../up", "--branch", "deb", "--tag", "deb", cwd=down)
    assert run.code == 0, run.err
    git(up, "checkout", "-q", "deb")
    write_files(up, {"pkg/extra.py": "x = 1\n"})
    _commit(up, "[deb] extra")
    git(up, "checkout", "-q", "main")

    run = cli("check-branch", "deb", "--checkout", "../up", "--tag", "deb", cwd=down)

    assert (run.code, run.err) == (1, "")
    assert run.out == (
        "deb against the series on v1.0: 3 differences\n"
        "  topic extra: on the branch, not in the series\n"
        "  topic extra: on the branch, not in the ledger\n"
        "  file pkg/extra.py: on the branch, not made by the series\n"
        "hint: to take the branch's work into the series, run 'patchkeeper export --range "
        "v1.0..deb --checkout ../up --tag deb' and then 'patchkeeper ledger'; to make the "
        "branch from the series, 'patchkeeper import --branch deb --force --checkout ../up "
        "--tag deb'\n"
    )
    for line in ("export --range v1.0..deb --checkout ../up --tag deb", "ledger"):
        assert cli(*shlex.split(line), cwd=down).code == 0
    assert (down / "debian/patches/series").read_text() == "fix-answer.patch\nextra.patch\n"
    assert (down / "debian/patches/fix-answer.patch").read_text() == patch
    run = cli("check-branch", "deb", "--checkout", "../up", "--tag", "deb", cwd=down)
    assert (run.code, run.out) == (
        0,
        "deb against the series on v1.0: they agree (2 topics, 2 files compared)\n",
    )
    assert git(up, "status", "--porcelain") == ""
