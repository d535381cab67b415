"""``patchkeeper check-branch``: the series on the pin's tag is the integration branch."""

from __future__ import annotations

from pathlib import Path

from ledger_support import commit_topic, config_at, git, ledger_body

from patchkeeper.ledger import check_branch
from patchkeeper.ledger import table as ledger
from patchkeeper.main import main


def _differences(root: Path, branch: str = "work") -> list[tuple[str, str, str]]:
    result = check_branch.check_branch(
        config_at(root), check_branch.CheckBranchRequest(branch=branch)
    )
    return [(d.kind, d.name, d.detail) for d in result.differences]


def test_branch_and_series_agree(downstream: Path, capsys) -> None:
    ledger.write_ledger(config_at(downstream))
    assert main(["-C", str(downstream), "check-branch", "work"]) == 0
    assert capsys.readouterr().out == (
        "work against the series on v1.0: they agree (2 topics, 3 files compared)\n"
    )


def test_an_unknown_branch_is_named_as_given(downstream: Path, topics: Path, capsys) -> None:
    """Before: "no revision 'nope^{commit}'", git's peeling suffix in the user's name."""
    assert main(["-C", str(downstream), "check-branch", "nope"]) == 2
    assert capsys.readouterr().err == (
        f"patchkeeper: error: {topics}: no commit 'nope' in {topics}\n"
        "  hint: fetch the tag or commit into the checkout, or check its name\n"
    )


def test_a_topic_committed_twice(downstream: Path, topics: Path) -> None:
    ledger.write_ledger(config_at(downstream))
    commit_topic(
        topics, "[pk] extra-module", "", {"pkg/extra.py": "def extra():\n    return 'EXTRA'\n"}
    )
    assert _differences(downstream) == [
        ("topic", "extra-module", "on the branch twice"),
        ("file", "pkg/extra.py", "differs from the branch at line 2"),
    ]


def test_file_differences_are_named(downstream: Path, topics: Path) -> None:
    ledger.write_ledger(config_at(downstream))
    git(topics, "reset", "-q", "--hard", "work~1")
    commit_topic(
        topics,
        "[pk] extra-module",
        ledger_body(),
        {"pkg/extra.py": "def extra():\n    return 'EXTRA'\n", "pkg/more.py": "x = 1\n"},
    )
    commit_topic(topics, "[pk] readme", ledger_body(), {"README.md": "ours\n"})
    assert _differences(downstream) == [
        ("topic", "readme", "on the branch, not in the series"),
        ("topic", "readme", "on the branch, not in the ledger"),
        ("file", "README.md", "changed on the branch outside pkg/"),
        ("file", "pkg/extra.py", "differs from the branch at line 2"),
        ("file", "pkg/more.py", "on the branch, not made by the series"),
    ]


def test_topics_against_series_and_ledger(downstream: Path, topics: Path, capsys) -> None:
    ledger.write_ledger(config_at(downstream))
    series = downstream / "patches" / "series"
    series.write_text("extra-module.patch\nsize-knob.patch\n")  # order swapped, both apply
    assert _differences(downstream) == [
        ("topic", "extra-module", "series position 1, but the branch has size-knob there"),
    ]
    git(topics, "reset", "-q", "--hard", "work~1")
    assert _differences(downstream) == [
        ("topic", "extra-module", "in the series, not on the branch"),
        ("topic", "extra-module", "in the ledger, not on the branch"),
        ("file", "pkg/extra.py", "made by the series, not on the branch"),
    ]
    capsys.readouterr()
    assert main(["-C", str(downstream), "check-branch", "work"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "work against the series on v1.0: 3 differences",
        "  topic extra-module: in the series, not on the branch",
        "  topic extra-module: in the ledger, not on the branch",
        "  file pkg/extra.py: made by the series, not on the branch",
        "hint: to take the branch's work into the series, run 'patchkeeper export --range "
        "v1.0..work' and then 'patchkeeper ledger'; to make the branch from the series, "
        f"'patchkeeper import --branch work --force' after 'git -C {topics} switch --detach' "
        "(it has the branch checked out)",
    ]


def test_non_topic_commit_and_patch_that_does_not_apply(downstream: Path, topics: Path) -> None:
    ledger.write_ledger(config_at(downstream))
    commit_topic(topics, "wip", "", {"pkg/core.py": "gone\n"})
    head = git(topics, "rev-parse", "HEAD")[:12]
    differences = _differences(downstream)
    assert differences[0] == ("topic", head, "not a topic commit: 'wip'")
    assert ("file", "pkg/core.py", "differs from the branch at line 1") in differences
    patch = downstream / "patches" / "size-knob.patch"
    patch.write_bytes(patch.read_bytes().replace(b"-    return 4\n", b"-    return 5\n"))
    assert _differences(downstream)[1:] == [
        ("topic", "size-knob", "does not apply: core.py hunk #1"),
    ]


def test_overlay_files_are_part_of_the_expected_tree(downstream: Path, topics: Path) -> None:
    (downstream / "overlay" / "kernels").mkdir(parents=True)
    (downstream / "overlay" / "kernels" / "k.py").write_text("K = 1\n")
    text = (downstream / "patchkeeper.toml").read_text()
    (downstream / "patchkeeper.toml").write_text(
        text + '\n[entries.overlays.kernels]\nsource = "overlay"\n'
        'fields = { Kind = "own", What = "kernels", Upstream = "none", Cut-against = "1.0", '
        'Retires-when = "stays" }\n'
    )
    ledger.write_ledger(config_at(downstream))
    assert _differences(downstream) == [
        ("file", "pkg/kernels/k.py", "made by the series, not on the branch"),
    ]
    commit_topic(topics, "[pk] kernels", "", {"pkg/kernels/k.py": "K = 1\n"})
    assert _differences(downstream) == []


def test_check_branch_and_lint_against_the_checkout_write_nothing(
    downstream: Path, topics: Path, capsys
) -> None:
    """Commands that only read leave the downstream's and the checkout's ``git status``, and
    the checkout's refs and notes, as they were (a command that only reads writes nothing;
    tests/commands/test_read_only.py covers the example's other commands)."""
    ledger.write_ledger(config_at(downstream))
    git(downstream, "init", "-q")
    git(downstream, "add", "-A")
    git(downstream, "commit", "-q", "-m", "downstream")
    git(topics, "checkout", "-q", "work")

    def state() -> tuple[str, str, str]:
        return (
            git(downstream, "status", "--porcelain", "--ignored"),
            git(topics, "status", "--porcelain", "--ignored"),
            git(topics, "for-each-ref"),
        )

    before = state()
    assert before[0] == before[1] == ""
    assert main(["-C", str(downstream), "check-branch", "work"]) == 0
    assert main(["-C", str(downstream), "lint", "--checkout", str(topics)]) == 0
    assert main(["-C", str(downstream), "check-branch", "work", "--json"]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == [
        "work against the series on v1.0: they agree (2 topics, 3 files compared)",
        "no problems in 2 patches",
    ]
    assert state() == before


def test_a_file_name_with_a_space_the_base_lacks(downstream: Path, topics: Path) -> None:
    """Before: a traceback (exit 3); ``git cat-file --batch`` answers ``NAME missing`` and the
    name's own space made the answer look like ``<id> <type> <size>``."""
    ledger.write_ledger(config_at(downstream))
    commit_topic(topics, "[pk] help-page", ledger_body(), {"pkg/help me.py": "HELP = 1\n"})
    assert _differences(downstream) == [
        ("topic", "help-page", "on the branch, not in the series"),
        ("topic", "help-page", "on the branch, not in the ledger"),
        ("file", "pkg/help me.py", "on the branch, not made by the series"),
    ]


def test_an_upstream_whose_tags_have_no_v(downstream: Path, topics: Path, capsys) -> None:
    # Jinja and Django tag 3.1.2, not v3.1.2: the missing tag is named as the pin's, with
    # the pin-tag setting that fits, for check-branch and import alike.
    ledger.write_ledger(config_at(downstream))
    git(topics, "tag", "1.0", "v1.0")
    git(topics, "tag", "-d", "v1.0")
    config = downstream / "patchkeeper.toml"
    expected = (
        f"patchkeeper: error: {config}: the pin's tag v1.0 is not in the checkout {topics} "
        "(pin-tag = 'v{pin}')\n"
        "  hint: fetch the upstream's tags (git fetch --tags), or set pin-tag in [git] to the "
        'form its tags take (pin-tag = "{pin}" gives 1.0)\n'
    )
    for command in (["check-branch", "work"], ["import", "--branch", "again"]):
        assert main(["-C", str(downstream), *command]) == 2
        assert capsys.readouterr().err == expected
    config.write_text(config.read_text().replace("[git]\n", '[git]\npin-tag = "{pin}"\n'))
    assert main(["-C", str(downstream), "check-branch", "work"]) == 0
    assert capsys.readouterr().out == (
        "work against the series on 1.0: they agree (2 topics, 3 files compared)\n"
    )


def test_a_file_name_that_is_not_utf8_is_compared(downstream: Path, topics: Path, capsys) -> None:
    """A topic commit that adds a Latin-1 named file (``café.txt``): check-branch stopped at
    encoding its name for git's input (exit 2, advising a UTF-8 locale the user had); the
    file is compared as any other, named as git names it."""
    ledger.write_ledger(config_at(downstream))
    commit_topic(topics, "[pk] note", ledger_body(), {"pkg/caf\udce9.txt": "note\n"})
    assert _differences(downstream) == [
        ("topic", "note", "on the branch, not in the series"),
        ("topic", "note", "on the branch, not in the ledger"),
        ("file", "pkg/caf\udce9.txt", "on the branch, not made by the series"),
    ]
    assert main(["-C", str(downstream), "check-branch", "work"]) == 1
    out = capsys.readouterr().out
    assert '"pkg/caf\\351.txt"' in out, out
