"""``patchkeeper init`` on a git branch whose history is not a line: merge commits, and a
commit whose patch ``apply`` cannot read. git format-patch writes no patch for a merge and
puts the commits of both sides one after another; init applies the series it wrote to the
tag's files and warns (on standard error and in the JSON envelope's ``warnings``) when that
is not HEAD, naming the patches, the commits and what to do."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from start_support import format_patch_branch, git

from helpers import Example

ONLY_AUTHORIZATION = b'REMOVE_ON_REDIRECT = frozenset(["Authorization"])'
WITH_COOKIE = b'REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie"])'
#: What the downstream wrote when it merged the side branch's cookie fix into its own.
RESOLVED = (
    b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Proxy-Authorization", "Cookie"])\n'
)


def side_branch(repo: Path, path: str, old: bytes, new: bytes, subject: str) -> str:
    """A branch ``side`` from ``v1.0`` with one commit replacing ``old`` by ``new`` in
    ``path``, dated after the commits of ``main`` so that git format-patch puts it last; its
    abbreviated id."""
    git(repo, "checkout", "-q", "-b", "side", "v1.0")
    file = repo / path
    file.write_bytes(file.read_bytes().replace(old, new))
    date = {"GIT_COMMITTER_DATE": "2030-01-01T00:00:00Z", "GIT_AUTHOR_DATE": "2030-01-01T00:00Z"}
    subprocess.run(
        ["git", "commit", "-q", "-a", "-m", subject],
        cwd=repo,
        check=True,
        env={**os.environ, **date},
    )
    git(repo, "checkout", "-q", "main")
    return short(repo, "side")


def merge_side(repo: Path) -> None:
    """Merge ``side`` into ``main`` and stop before committing (a conflict stops it too)."""
    subprocess.run(
        ["git", "merge", "-q", "--no-ff", "--no-commit", "side"], cwd=repo, capture_output=True
    )


def short(repo: Path, rev: str) -> str:
    return git(repo, "rev-parse", "--short=12", rev).strip()


def to_do(tag: str) -> str:
    return (
        f"To do: put the commits in a line on {tag} (git rebase {tag} replays them without "
        "the merges, asking for each conflict once), move away what init wrote "
        "(patchkeeper.toml, the ledger, patches/), and run init again"
    )


def test_sides_that_change_one_line_are_no_series(cli, example: Example) -> None:
    repo = format_patch_branch(example)
    side = side_branch(repo, "minihttp/retry.py", ONLY_AUTHORIZATION, WITH_COOKIE, "cookies")
    merge_side(repo)
    retry = repo / "minihttp" / "retry.py"
    lines = retry.read_bytes().splitlines(keepends=True)
    start = lines.index(b"<<<<<<< HEAD\n")
    retry.write_bytes(b"".join([*lines[:start], RESOLVED, *lines[start + 5 :]]))
    git(repo, "commit", "-q", "-a", "-m", "merge the cookie fix")
    merge = short(repo, "HEAD")
    run = cli("init", "--json", cwd=repo)
    assert run.code == 0
    warning = (
        f'the series applied to v1.0 is not HEAD: 0003-cookies.patch (commit {side} "cookies") '
        "does not apply at fuzz 0 after the patches before it. The merge commit(s) "
        f'{merge} "merge the cookie fix" are no patches: git format-patch skips a merge, '
        "with the conflicts it resolved and the changes it carries, and writes the commits "
        "of both sides one after another. " + to_do("v1.0")
    )
    assert run.err == f"patchkeeper: warning: {warning}\n"
    data = json.loads(run.out)
    assert (data["warnings"], data["notes"]) == ([warning], [])
    assert (repo / "patches" / "series").read_text().splitlines()[1:] == [
        "0001-retry-backoff-cap.patch",
        "0002-redirect-strip-proxy-auth.patch",
        "0003-cookies.patch",
    ]
    # the warning is apply's answer: the third patch does not apply after the second
    run = cli("apply", "--target", str(example.target()), cwd=repo)
    assert (run.code, run.out.splitlines()[0]) == (
        1,
        f"0003-cookies.patch does not apply to directory {example.root / 'target'}",
    )


def test_a_merge_that_changes_a_file_itself_is_named(cli, example: Example) -> None:
    repo = format_patch_branch(example)
    side_branch(repo, "minihttp/headers.py", b'"""Header helpers."""', b'"""Headers."""', "doc")
    merge_side(repo)  # no conflict; the merge commit carries a change of its own
    client = repo / "minihttp" / "client.py"
    client.write_bytes(client.read_bytes().replace(b"10.0", b"30.0"))
    git(repo, "commit", "-q", "-a", "-m", "merge the doc")
    run = cli("init", cwd=repo)
    assert (run.code, run.err) == (
        0,
        "patchkeeper: warning: the series applied to v1.0 is not HEAD: it gives "
        "minihttp/client.py otherwise than HEAD has them. The merge commit(s) "
        f'{short(repo, "HEAD")} "merge the doc" are no patches: git format-patch skips a '
        "merge, with the conflicts it resolved and the changes it carries, and writes the "
        f"commits of both sides one after another. {to_do('v1.0')}\n",
    )


def test_a_clean_merge_gives_the_branch_back(cli, example: Example) -> None:
    repo = format_patch_branch(example)
    side_branch(repo, "minihttp/client.py", b"10.0", b"30.0", "timeout")
    merge_side(repo)
    git(repo, "commit", "-q", "-m", "merge the timeout")
    run = cli("init", "--json", cwd=repo)
    data = json.loads(run.out)
    assert (run.code, run.err, "warnings" in data, data["notes"]) == (
        0,
        "",
        False,
        ["1 merge commit(s) since v1.0 are not patches: format-patch skips them"],
    )
    target = example.target()
    assert cli("apply", "--target", str(target), cwd=repo).code == 0
    for name in ("client.py", "retry.py"):
        assert (target / "minihttp" / name).read_bytes() == (repo / "minihttp" / name).read_bytes()


def test_a_binary_file_is_a_patch_apply_refuses(cli, example: Example) -> None:
    repo = format_patch_branch(example)
    (repo / "minihttp" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    git(repo, "add", "minihttp/logo.png")
    git(repo, "commit", "-q", "-m", "logo")
    run = cli("init", cwd=repo)
    assert (run.code, run.err) == (
        0,
        f"patchkeeper: warning: apply refuses 0003-logo.patch (commit {short(repo, 'HEAD')} "
        '"logo"), which init wrote: binary diff for minihttp/logo.png: patchkeeper applies '
        "text diffs only; to do: ship the binary file as an overlay, or regenerate the diff "
        "as text\n",
    )
