"""``patchkeeper init`` on series a user really has that are not quite right: an entry whose
file is missing, a commit that changes no file. Every such error names the series file and the line, and writes nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

from start_support import EXAMPLE_PATCHES, format_patch_branch, git, quilt_tree

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


def _debian_package(root: Path) -> Path:
    """A Debian source package of python-foo 1.2 with one DEP-3 patch, as ``apt-get
    source`` unpacks it (its ``debian/`` directory only)."""
    debian = root / "debian"
    (debian / "patches").mkdir(parents=True)
    (debian / "source").mkdir()
    (debian / "source" / "format").write_text("3.0 (quilt)\n")
    (debian / "changelog").write_text(
        "python-foo (1.2-1) unstable; urgency=medium\n\n  * New upstream release.\n\n"
        " -- A Maintainer <a@example.org>  Mon, 01 Jan 2024 00:00:00 +0000\n"
    )
    (debian / "patches" / "series").write_text("fix-x.patch\n")
    (debian / "patches" / "fix-x.patch").write_text(
        "Description: return 2\nAuthor: A Maintainer <a@example.org>\n"
        "Forwarded: not-needed\n---\n--- a/foo/x.py\n+++ b/foo/x.py\n@@ -1 +1 @@\n"
        "-X = 1\n+X = 2\n"
    )
    return root


def test_a_named_pipe_where_metadata_is_read_is_not_waited_on(cli, tmp_path: Path) -> None:
    """init reads the files a Debian package and a source tree keep their names and
    versions in (``PKG-INFO``, ``pyproject.toml``, ``debian/control``): a named pipe under
    such a name hung it for ever, waiting for a writer. It is passed over as a file that
    cannot be read, and the changelog that does say the pin is named when it is the pipe."""
    tree = _debian_package(tmp_path / "foo")
    for name in ("PKG-INFO", "pyproject.toml", "setup.cfg", "debian/control", "debian/watch"):
        os.mkfifo(tree / name)
    run = cli("init", cwd=tree)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[:2] == [
        "found a Debian series (1 patch): debian/patches/series is a Debian source "
        'package\'s patch series, and debian/source/format says "3.0 (quilt)"',
        "upstream foo, pin 1.2: foo from the source name python-foo (python-NAME), 1.2 from "
        "debian/changelog (1.2-1)",
    ]
    other = _debian_package(tmp_path / "bar")
    (other / "debian" / "changelog").unlink()
    os.mkfifo(other / "debian" / "changelog")
    run = cli("init", cwd=other)
    assert (run.code, run.out) == (2, "")
    assert run.err.startswith(
        f"patchkeeper: error: {other}: cannot tell the upstream project and pin: "
        "debian/changelog cannot be read\n"
    )
    assert sorted(p.name for p in other.iterdir()) == ["debian"]
