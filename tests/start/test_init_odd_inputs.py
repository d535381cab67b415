"""``patchkeeper init`` on series a user really has that are not quite right: an entry whose
file is missing, a commit that changes no file. Every such error names the series file and the line, and writes nothing."""

from __future__ import annotations

import json

from test_init_forms import EXAMPLE_PATCHES, format_patch_branch, git, quilt_tree

from helpers import EXAMPLE_SERIES, Example


def test_a_series_entry_without_its_file_is_named_by_its_line(cli, example: Example) -> None:
    tree = quilt_tree(example)
    series = tree / "patches" / "series"
    series.write_text(series.read_text() + "# carried since 1.0\ngone-fix.patch\n")
    run = cli("init", "--directory", "minihttp", cwd=tree)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {series}:10: gone-fix.patch is listed in the series but cannot "
        "be read: No such file or directory\n"
        "  hint: restore the patch file, or take its line out of the series\n"
    )
    run = cli("init", "--directory", "minihttp", "--json", cwd=tree)
    assert json.loads(run.out)["error"] == {
        "message": "gone-fix.patch is listed in the series but cannot be read: "
        "No such file or directory",
        "file": str(series),
        "line": 10,
        "hint": "restore the patch file, or take its line out of the series",
    }
    assert not (tree / "patchkeeper.toml").exists() and not (tree / "PATCHES.md").exists()


def test_an_empty_commit_on_the_branch_is_no_patch(cli, example: Example) -> None:
    """``git commit --allow-empty`` between two changes: git format-patch writes an empty
    file for it, which every other command would refuse; init leaves it out and says so."""
    repo = format_patch_branch(example)
    git(repo, "commit", "-q", "--allow-empty", "-m", "bump CI")
    git(repo, "apply", "--directory=minihttp", str(EXAMPLE_PATCHES / EXAMPLE_SERIES[2]))
    git(repo, "commit", "-q", "-a", "-m", "headers-merge-order")
    run = cli("init", "--json", cwd=repo)
    assert run.code == 0, run.err
    data = json.loads(run.out)
    patches = [
        "0001-retry-backoff-cap.patch",
        "0002-redirect-strip-proxy-auth.patch",
        "0004-headers-merge-order.patch",
    ]
    assert data["patch_count"] == 3
    assert (repo / "patches" / "series").read_text().splitlines()[1:] == patches
    assert data["notes"] == [
        "1 commit(s) since v1.0 change no file and are not patches (git format-patch would "
        "write them empty): 0003-bump-CI.patch"
    ]
    assert sorted(p.name for p in (repo / "patches").iterdir()) == [*patches, "series"]
    assert cli("lint", cwd=repo).code == 0
    target = example.target()
    assert cli("apply", "--target", str(target), cwd=repo).code == 0


def test_a_branch_of_empty_commits_is_refused(cli, example: Example) -> None:
    repo = format_patch_branch(example)
    git(repo, "tag", "v1.0.1")
    git(repo, "commit", "-q", "--allow-empty", "-m", "bump CI")
    run = cli("init", cwd=repo)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {repo}: no commit on top of v1.0.1 changes a file: the series "
        "would be empty\n"
        "  hint: check out the branch that carries your changes\n"
    )
    assert git(repo, "status", "--porcelain") == ""


def test_init_in_a_folder_of_the_checkout_names_the_top(cli, example: Example) -> None:
    """Run in the package folder of a checkout whose branch is the series, init took the
    branch (git describe answers from any folder) but read the project from that folder and
    said its pyproject.toml named none, where there is no such file; with --upstream it wrote
    the downstream into the upstream's own package. git format-patch names the files from
    the checkout's top, so init refuses, names the top, and writes nothing."""
    repo = format_patch_branch(example)
    folder = repo / "minihttp"
    top = repo.resolve()
    for options in ((), ("--tag", "v1.0"), ("--upstream", "minihttp==1.0")):
        run = cli("init", *options, cwd=folder)
        assert (run.code, run.out) == (2, ""), options
        assert run.err == (
            f"patchkeeper: error: {folder}: this is the folder minihttp/ of the git checkout "
            f"{top}, whose branch would be the series: git format-patch names its files from "
            "the checkout's top, so the downstream is made there\n"
            f"  hint: run init in the checkout's top: patchkeeper -C {top} init\n"
        ), options
        assert git(repo, "status", "--porcelain") == ""
    assert cli("init", cwd=repo).code == 0
