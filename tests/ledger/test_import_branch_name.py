"""``import --branch NAME`` (or ``[git] branch``) with a name git refuses is refused before a
commit is made, saying why and where the name came from; git's own failure came at the end,
from ``update-ref``, with a hint to check that the revision exists."""

from __future__ import annotations

from pathlib import Path

from ledger_support import git

from patchkeeper.main import main

WHY = (
    "(no spaces, '..', '~', '^', ':', '?', '*', '[', '\\' or a leading '-'; see git "
    "check-ref-format)"
)


def test_a_branch_name_git_refuses_is_refused_first(downstream: Path, topics: Path, capsys) -> None:
    refs = git(topics, "for-each-ref", "--format=%(refname)", "refs/heads")
    objects = git(topics, "count-objects", "-v")
    capsys.readouterr()
    assert main(["-C", str(downstream), "import", "--branch", "pk 1.0"]) == 2
    assert capsys.readouterr().err == (
        f"patchkeeper: error: 'pk 1.0' is not a valid git branch name {WHY}\n"
        "  hint: pass another --branch\n"
    )
    config = downstream / "patchkeeper.toml"
    text = config.read_text(encoding="utf-8")
    assert "[git]\n" in text
    config.write_text(text.replace("[git]\n", '[git]\nbranch = "pk/{pin}..x"\n'), encoding="utf-8")
    assert main(["-C", str(downstream), "import"]) == 2
    assert capsys.readouterr().err == (
        f"patchkeeper: error: 'pk/1.0..x' is not a valid git branch name {WHY}\n"
        "  hint: fix branch in [git], or pass --branch\n"
    )
    assert git(topics, "for-each-ref", "--format=%(refname)", "refs/heads") == refs
    assert git(topics, "count-objects", "-v") == objects
