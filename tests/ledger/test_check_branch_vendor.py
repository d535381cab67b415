"""``check-branch`` on a vendor branch: the upstream's files, a tag, the vendor's commits on
top, and the series ``init`` wrote from those commits committed in the same repository."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from ledger_support import git, write_files

from patchkeeper.main import main


def _vendor_repository(root: Path) -> Path:
    """A release 1.0 tagged ``v1.0``, two vendor commits on the branch ``vendor``, then
    ``patchkeeper init`` run there and its files committed on the branch."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_files(
        root,
        {
            "pyproject.toml": '[project]\nname = "mini"\nversion = "1.0"\n',
            "mini/core.py": "def answer():\n    return 1\n",
        },
    )
    git(root, "add", "-A")
    git(root, "commit", "-qm", "Release 1.0")
    git(root, "tag", "v1.0")
    git(root, "switch", "-qc", "vendor")
    write_files(root, {"mini/core.py": "def answer():\n    return 2\n"})
    git(root, "commit", "-qam", "Return two")
    write_files(root, {"mini/extra.py": "X = 1\n"})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "Add an extra module")
    assert main(["-C", str(root), "init"]) == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "Keep the series with patchkeeper")
    return root


def _check(root: Path, branch: str) -> int:
    return main(["-C", str(root), "check-branch", branch, "--checkout", ".", "--tag", "vendor"])


def test_the_branch_init_wrote_the_series_from_checks_clean(tmp_path: Path, capsys) -> None:
    root = _vendor_repository(tmp_path / "vendor")
    assert git(root, "show", "--name-only", "--format=", "HEAD").split("\n") == [
        "PATCHES.md",
        "patches/0001-Return-two.patch",
        "patches/0002-Add-an-extra-module.patch",
        "patches/series",
        "patchkeeper.toml",
    ]
    (root / ".patchkeeper").mkdir()  # the state directory is not the branch's either
    capsys.readouterr()
    assert _check(root, "vendor") == 0
    assert capsys.readouterr().out == (
        "vendor against the series on v1.0: they agree (2 topics, 2 files compared)\n"
    )


def test_a_commit_not_in_the_series_and_an_edited_one(tmp_path: Path, capsys) -> None:
    root = _vendor_repository(tmp_path / "vendor")
    git(root, "switch", "-qc", "edited", "v1.0")
    write_files(root, {"mini/core.py": "def answer():\n    return 3\n"})
    git(root, "commit", "-qam", "Return two")
    write_files(root, {"mini/other.py": "Y = 1\n"})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "Add another module")
    other = git(root, "rev-parse", "--short=12", "HEAD")
    git(root, "switch", "-q", "vendor")
    capsys.readouterr()
    assert _check(root, "edited") == 1
    assert capsys.readouterr().out == (
        "edited against the series on v1.0: 6 differences\n"
        f"  topic {other}: not a topic commit: 'Add another module'\n"
        "  topic 0002-Add-an-extra-module: in the series, not on the branch\n"
        "  topic 0002-Add-an-extra-module: in the ledger, not on the branch\n"
        "  file mini/core.py: differs from the branch at line 2\n"
        "  file mini/extra.py: made by the series, not on the branch\n"
        "  file mini/other.py: on the branch, not made by the series\n"
        f"hint: {_rewrite_hint(root, 'edited')}\n"
    )


def _rewrite_hint(root: Path, branch: str) -> str:
    """check-branch's hint for the vendor repository's series and ``branch``: the series'
    patches written again by git format-patch, the downstream's own files left out."""
    return (
        "to take the branch's work into the series, write its patches again with git "
        "format-patch as init does (the commits that change only the downstream's files "
        f"left out): git -C {shlex.quote(str(root))} format-patch -N --no-signature -o patches "
        f"v1.0..{branch} -- . ':^patchkeeper.toml' ':^PATCHES.md' ':^patches'; then list "
        "the files it writes in patches/series in place of the old ones and run "
        "'patchkeeper ledger'"
    )


def test_the_hint_writes_the_series_from_the_branch(tmp_path: Path, capsys) -> None:
    """A commit made on the vendor branch after the series was written: the hint's
    format-patch command, the series file and ``ledger`` make the branch check clean again,
    the commit that keeps the series left out of the patches."""
    root = _vendor_repository(tmp_path / "vendor")
    write_files(root, {"mini/core.py": "def answer():\n    return 4\n"})
    git(root, "commit", "-qam", "Return four")
    capsys.readouterr()
    assert main(["-C", str(root), "check-branch", "vendor"]) == 1
    printed = capsys.readouterr().out.split("\n")
    assert printed[-2] == f"hint: {_rewrite_hint(root, 'vendor')}"
    command = printed[-2].split(": ", 2)[2].split("; then")[0]
    written = git(root, *shlex.split(command)[1:]).split("\n")
    assert written == [
        "patches/0001-Return-two.patch",
        "patches/0002-Add-an-extra-module.patch",
        "patches/0003-Return-four.patch",
    ]
    with (root / "patches" / "series").open("a") as series:
        series.write("0003-Return-four.patch\n")
    assert main(["-C", str(root), "ledger"]) == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "Carry the new commit in the series")
    capsys.readouterr()
    assert main(["-C", str(root), "check-branch", "vendor"]) == 0
    assert capsys.readouterr().out == (
        "vendor against the series on v1.0: they agree (3 topics, 2 files compared)\n"
    )


def test_the_repository_is_the_checkout_and_no_topic_tag_is_needed(tmp_path: Path, capsys) -> None:
    root = _vendor_repository(tmp_path / "vendor")
    capsys.readouterr()
    assert main(["-C", str(root), "check-branch", "vendor"]) == 0
    assert capsys.readouterr().out == (
        "vendor against the series on v1.0: they agree (2 topics, 2 files compared)\n"
    )


#: Subjects ``git format-patch`` writes in other forms than the commit's first line: one of
#: two lines (joined into one), one long enough to be folded, one not ASCII (RFC 2047 words).
SUBJECTS = {
    "mini/core.py": "Return two\nfrom the core module",
    "mini/extra.py": "Add the extra module that holds the value the callers expect after the "
    "rework of the core",
    "mini/size.py": "Größe der Antwort ändern",
}


def test_a_rebased_branch_matches_each_patch_by_its_subject(tmp_path: Path, capsys) -> None:
    root = tmp_path / "vendor"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_files(root, {"pyproject.toml": '[project]\nname = "mini"\nversion = "1.0"\n'})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "Release 1.0")
    git(root, "tag", "v1.0")
    git(root, "switch", "-qc", "vendor")
    for name, subject in SUBJECTS.items():
        write_files(root, {name: "X = 2\n"})
        git(root, "add", "-A")
        git(root, "commit", "-q", "-F", "-", input=f"{subject}\n\nWhy it is so.\n".encode())
    assert main(["-C", str(root), "init"]) == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "Keep the series with patchkeeper")
    headers = [
        (root / "patches" / name).read_text().split("\n")[3:5]
        for name in sorted(os.listdir(root / "patches"))
        if name.endswith(".patch")
    ]
    assert headers == [
        ["Subject: [PATCH] Return two from the core module", ""],
        [
            "Subject: [PATCH] Add the extra module that holds the value the callers expect",
            " after the rework of the core",
        ],
        [
            "Subject: [PATCH] =?UTF-8?q?Gr=C3=B6=C3=9Fe=20der=20Antwort=20=C3=A4ndern?=",
            "MIME-Version: 1.0",
        ],
    ]
    # the same commits again on the tag: new commit ids, so only the subjects match
    git(root, "switch", "-qc", "rebased", "v1.0")
    for commit in git(root, "rev-list", "--reverse", "v1.0..vendor~1").split("\n"):
        git(root, "cherry-pick", "-n", commit)
        git(root, "commit", "-q", "-C", commit, "--date", "1600000000 +0000")
    assert not set(git(root, "rev-list", "v1.0..rebased").split("\n")) & set(
        git(root, "rev-list", "v1.0..vendor").split("\n")
    )
    git(root, "switch", "-q", "vendor")
    capsys.readouterr()
    assert main(["-C", str(root), "check-branch", "rebased"]) == 0
    assert capsys.readouterr().out == (
        "rebased against the series on v1.0: they agree (3 topics, 3 files compared)\n"
    )


def test_without_a_checkout_the_error_names_only_the_checkout(tmp_path: Path, capsys) -> None:
    """A series ``git format-patch`` wrote needs no topic tag: when no checkout is found the
    error says that the checkout is missing, and why the downstream's own repository is none."""
    root = _vendor_repository(tmp_path / "vendor")
    git(root, "tag", "-d", "v1.0")
    capsys.readouterr()
    assert main(["-C", str(root), "check-branch", "vendor"]) == 2
    assert capsys.readouterr().err == (
        f"patchkeeper: error: {root / 'patchkeeper.toml'}: check-branch needs an upstream "
        f"checkout: none is given or configured, and the repository the downstream is in "
        f"({root}) has no tag v1.0\n"
        "  hint: set checkout in [git], or pass --checkout (a git checkout of the upstream "
        "that holds the pin's tag)\n"
    )
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("patchkeeper.toml", "PATCHES.md", "patches"):
        os.rename(root / name, outside / name)
    assert main(["-C", str(outside), "check-branch", "vendor"]) == 2
    assert capsys.readouterr().err == (
        f"patchkeeper: error: {outside / 'patchkeeper.toml'}: check-branch needs an upstream "
        f"checkout: none is given or configured, and the downstream ({outside}) is in no git "
        "repository\n"
        "  hint: set checkout in [git], or pass --checkout (a git checkout of the upstream "
        "that holds the pin's tag)\n"
    )


def test_a_downstream_outside_the_checkout_can_also_make_the_branch(tmp_path: Path, capsys) -> None:
    """The series kept apart from the checkout: the patches are written into its own
    directory, nothing is left out, and the branch can be made from the series with git am
    (``import`` would make ``[TAG] <topic>`` commits, which such a series has none of)."""
    root = _vendor_repository(tmp_path / "vendor")
    down = tmp_path / "down"
    down.mkdir()
    for name in ("patchkeeper.toml", "PATCHES.md", "patches"):
        os.rename(root / name, down / name)
    git(root, "switch", "-qc", "edited", "v1.0")
    write_files(root, {"mini/core.py": "def answer():\n    return 3\n"})
    git(root, "commit", "-qam", "Return three")
    capsys.readouterr()
    assert main(["-C", str(down), "check-branch", "edited", "--checkout", str(root)]) == 1
    assert capsys.readouterr().out.split("\n")[-2] == (
        "hint: to take the branch's work into the series, write its patches again with git "
        f"format-patch as init does: git -C {shlex.quote(str(root))} format-patch -N "
        f"--no-signature -o {shlex.quote(str(down / 'patches'))} v1.0..edited; then list the "
        "files it writes in patches/series in place of the old ones and run 'patchkeeper "
        "ledger'; to make the branch from the series, apply the patches that patches/series "
        "lists with 'git am', in its order, on a branch made at v1.0"
    )
