"""``patchkeeper init`` on each form a user already has: a quilt series, Debian's
``debian/patches``, a ``git format-patch`` directory and a git branch over an upstream tag.
Each result is read back by the other commands (``ledger --check``, ``lint``, ``verify``,
``audit``), so the file init writes is the one they read."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from start_support import EXAMPLE_PATCHES, format_patch_branch, git, quilt_tree

from helpers import EXAMPLE_SERIES, Example, tree_bytes
from json_schema_check import output
from patchkeeper import __version__

NEXT = [
    "next:",
    "  patchkeeper ledger --check  # PATCHES.md is current (CI runs this)",
    "  patchkeeper lint  # every patch has its headers",
    "  patchkeeper verify --target DIR  # DIR: a {0} tree with the series applied",
    "  patchkeeper audit --to {0}==VERSION  # how the series fares on a newer release",
]


def test_a_quilt_series_in_an_unpacked_tree(cli, example: Example) -> None:
    tree = quilt_tree(example)
    run = cli("init", "--directory", "minihttp", cwd=tree)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines() == [
        "found a quilt series (7 patches): patches/series lists the patches in apply order (quilt)",
        "upstream minihttp, pin 1.0: from pyproject.toml",
        "header schema ledger: the patches carry the ledger schema's fields (Kind, What, ...)",
        "wrote patchkeeper.toml",
        "wrote PATCHES.md",
        *[line.format("minihttp") for line in NEXT],
    ]
    assert (tree / "patchkeeper.toml").read_text() == (
        "# patchkeeper settings, written by patchkeeper init (see docs/starting.md)\n"
        'upstream = "minihttp"\npin = "1.0"\nseries = "patches/series"\nstrip = 1\n'
        'directory = "minihttp"\n\n[headers]\nschema = "ledger"\n\n[ledger]\n'
        'file = "PATCHES.md"\n'
    )
    ledger = (tree / "PATCHES.md").read_text()
    example_table = (example.downstream / "PATCHES.md").read_text()
    table = example_table[example_table.index("<!-- table:begin") :]
    assert ledger == (
        "# Patches\n\nWhat each patch in `patches/` is, where it came from, and what retires "
        "it. The table is written by `patchkeeper ledger` from the patch headers; `patchkeeper "
        "ledger --check` fails when it is stale.\n\n" + table
    )
    # the other commands read what init wrote
    assert cli("ledger", "--check", cwd=tree).out == "PATCHES.md: the ledger is current (7 rows)\n"
    assert cli("lint", cwd=tree).out == "no problems in 7 patches\n"
    target = example.target()
    assert cli("apply", "--target", str(target), cwd=tree).code == 0
    run = cli("verify", "--target", str(target), "--pristine", str(example.old), cwd=tree)
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        "ok: 7 of 7 patches applied, 0 files drifted",
    )
    run = cli("audit", "--to", str(example.new), "--pristine", str(example.old), cwd=tree)
    assert (run.code, run.out.splitlines()[-2]) == (
        1,
        "7 patches: 1 clean, 2 offset, 1 upstreamed, 1 conflict, 1 target gone, 1 blocked",
    )


def test_init_under_json_prints_the_envelope(cli, example: Example) -> None:
    tree = quilt_tree(example)
    run = cli("init", "--directory", "minihttp", "--json", cwd=tree)
    data = output(run.out)
    assert data == {
        "command": "init",
        "patchkeeper_version": __version__,
        "exit_code": 0,
        "root": str(tree),
        "form": "quilt",
        "form_reason": "patches/series lists the patches in apply order (quilt)",
        "series": str(tree / "patches" / "series"),
        "patch_count": 7,
        "upstream": "minihttp",
        "pin": "1.0",
        "pin_reason": "from pyproject.toml",
        "schema": "ledger",
        "schema_reason": "the patches carry the ledger schema's fields (Kind, What, ...)",
        "config_file": str(tree / "patchkeeper.toml"),
        "ledger_file": str(tree / "PATCHES.md"),
        "written_files": [str(tree / "patchkeeper.toml"), str(tree / "PATCHES.md")],
        "next_commands": [line.strip().format("minihttp") for line in NEXT[1:]],
        "notes": [],
    }
    run = cli("init", "--json", cwd=tree)
    assert run.code == 2
    assert output(run.out)["error"] == {
        "message": "exists already: init never overwrites a file, and this run wrote nothing",
        "file": str(tree / "patchkeeper.toml"),
        "line": None,
        "hint": "an earlier init (even an interrupted one) or a hand wrote patchkeeper.toml, "
        "PATCHES.md: check them with patchkeeper lint and go on from there, or move them "
        "away and run patchkeeper init again",
    }


DEP3_PATCH = b"".join(
    line + b"\n"
    for line in (
        b"Description: Drop Proxy-Authorization on a cross-host redirect",
        b"Origin: upstream, https://example.org/minihttp/pull/15",
        b"Bug-Debian: https://bugs.example.org/1015",
        b"Forwarded: not-needed",
        b"Last-Update: 2026-11-02",
        b"---",
        b"--- a/minihttp/retry.py",
        b"+++ b/minihttp/retry.py",
        b"@@ -8,7 +8,7 @@ class Retry:",
        b"     RETRY_STATUS = frozenset([413, 429, 503])",
        b" ",
        b"     #: Headers removed when a redirect leaves the host.",
        b'-    REMOVE_ON_REDIRECT = frozenset(["Authorization"])',
        b'+    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Proxy-Authorization"])',
        b" ",
        b"     def __init__(self, total=3, backoff_factor=0.5):",
        b"         self.total = total",
    )
)


def debian_tree(example: Example, changelog: str, *, pyproject: bool = False) -> Path:
    """An unpacked Debian source package of minihttp 1.0 with one DEP-3 patch."""
    tree = example.root / "minihttp-1.0"
    shutil.copytree(example.old, tree)
    if not pyproject:
        (tree / "pyproject.toml").unlink()
    patches = tree / "debian" / "patches"
    patches.mkdir(parents=True)
    (patches / "series").write_text("strip-proxy-auth.patch\n")
    (patches / "strip-proxy-auth.patch").write_bytes(DEP3_PATCH)
    (tree / "debian" / "source").mkdir()
    (tree / "debian" / "source" / "format").write_text("3.0 (quilt)\n")
    (tree / "debian" / "changelog").write_text(
        f"{changelog}\n\n  * New upstream release.\n\n"
        " -- Tess Ter <tess@example.org>  Mon, 02 Nov 2026 10:00:00 +0000\n"
    )
    return tree


def test_a_debian_series_reads_the_pin_from_the_changelog(cli, example: Example) -> None:
    tree = debian_tree(example, "python-minihttp (1:1.0+dfsg-3) unstable; urgency=medium")
    run = cli("init", cwd=tree)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[:5] == [
        "found a Debian series (1 patch): debian/patches/series is a Debian source package's "
        'patch series, and debian/source/format says "3.0 (quilt)"',
        "upstream minihttp, pin 1.0: minihttp from the source name python-minihttp "
        "(python-NAME), 1.0 from debian/changelog (1:1.0+dfsg-3)",
        "header schema dep3: a Debian series: DEP-3 headers",
        "wrote patchkeeper.toml",
        "wrote PATCHES.md",
    ]
    assert (tree / "patchkeeper.toml").read_text().splitlines()[1:5] == [
        'upstream = "minihttp"',
        'pin = "1.0"',
        'series = "debian/patches/series"',
        "strip = 1",
    ]
    row = (
        "| strip-proxy-auth | Drop Proxy-Authorization on a cross-host redirect | upstream, "
        "https://example.org/minihttp/pull/15 | Debian: https://bugs.example.org/1015 | "
        "not-needed | 2026-11-02 |\n"
    )
    assert row in (tree / "PATCHES.md").read_text()
    assert cli("ledger", "--check", cwd=tree).code == 0
    assert cli("lint", cwd=tree).out == "no problems in 1 patch\n"
    run = cli("audit", "--to", str(example.new), "--pristine", str(example.old), cwd=tree)
    summary = [line for line in run.out.splitlines() if line.startswith("1 patch: ")]
    assert (run.code, summary) == (1, ["1 patch: 1 conflict"])


def test_a_debian_series_named_elsewhere_reads_its_own_package(cli, example: Example) -> None:
    """``--patches`` (or ``QUILT_PATCHES``) naming another directory's ``debian/patches``: the
    form was read from that package's ``debian/source/format``, but the pin from
    ``debian/changelog`` of the current directory, which has none ("cannot tell the upstream
    project and pin: debian/changelog cannot be read"). Both come from the package the
    series belongs to."""
    tree = debian_tree(example, "python-minihttp (1.0-2) unstable; urgency=medium")
    downstream = example.root / "downstream-of-deb"
    downstream.mkdir()
    run = cli("init", "--patches", str(tree / "debian" / "patches"), cwd=downstream)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[:2] == [
        "found a Debian series (1 patch): ../minihttp-1.0/debian/patches/series is a Debian "
        'source package\'s patch series, and debian/source/format says "3.0 (quilt)"',
        "upstream minihttp, pin 1.0: minihttp from the source name python-minihttp "
        "(python-NAME), 1.0 from debian/changelog (1.0-2)",
    ]


#: A git diff adding a symbolic link, as git format-patch writes one (mode 120000).
SYMLINK_PATCH = (
    b"Description: Link the README where the packaging looks for it\n"
    b"Author: Tess Ter <tess@example.org>\nForwarded: not-needed\n---\n"
    b"diff --git a/README b/README\nnew file mode 120000\nindex 0000000..3b18e51\n"
    b"--- /dev/null\n+++ b/README\n@@ -0,0 +1 @@\n+README.md\n"
    b"\\ No newline at end of file\n"
)


def test_init_warns_of_each_patch_apply_refuses(cli, example: Example) -> None:
    """A Debian series listing a symbolic link's diff and a hunk edited by hand: init writes
    the series (it is the downstream's) and names each patch apply will refuse, its line and
    what to do, on standard error and in the JSON envelope's warnings."""
    tree = debian_tree(example, "python-minihttp (1.0-1) unstable; urgency=medium")
    patches = tree / "debian" / "patches"
    (patches / "readme-link.patch").write_bytes(SYMLINK_PATCH)
    edited = DEP3_PATCH.replace(b"@@ -8,7 +8,7 @@", b"@@ -8,9 +8,7 @@", 1)
    assert edited != DEP3_PATCH
    (patches / "edited.patch").write_bytes(edited)
    (patches / "series").write_text("strip-proxy-auth.patch\nreadme-link.patch\nedited.patch\n")
    assert edited.count(b"\n") == 17  # the hunk runs out at the file's last line
    run = cli("init", "--json", cwd=tree)
    assert run.code == 0
    warnings = [
        "apply refuses readme-link.patch (debian/patches/readme-link.patch:5): the diff for "
        "README has mode 120000 (a symbolic link): patchkeeper patches regular files only; to "
        "do: create the link or submodule outside the series (e.g. in the build)",
        "apply refuses edited.patch (debian/patches/edited.patch:17): truncated hunk: "
        "the patch ends before the line counts of its header are met; to do: regenerate the "
        "patch; do not edit hunks by hand",
    ]
    assert output(run.out)["warnings"] == warnings
    assert run.err == "".join(f"patchkeeper: warning: {w}\n" for w in warnings)
    assert (tree / "patchkeeper.toml").is_file()


def _full_pipe() -> tuple[int, int, int]:
    """A pipe whose buffer is full: (read end, write end, the bytes in it). A process
    writing to it blocks until the test reads."""
    read, write = os.pipe()
    os.set_blocking(write, False)
    filled = 0
    try:
        while True:
            filled += os.write(write, b"x" * 4096)
    except BlockingIOError:
        pass
    os.set_blocking(write, True)
    return read, write, filled


def test_init_interrupted_after_writing_names_its_files(example: Example) -> None:
    """A Ctrl-C after init wrote its files (here: while it prints its warning) said only
    "interrupted", and the next init refused the files it had left. The error names them,
    says they are whole, and the two ways on.

    No timing: standard error is a pipe whose buffer is full, so init blocks in writing its
    warning, after its files are written; the test sends SIGINT once the kernel shows it
    blocked there (``/proc/PID/wchan``: a pipe write), then reads the pipe."""
    tree = debian_tree(example, "python-minihttp (1.0-1) unstable; urgency=medium")
    patches = tree / "debian" / "patches"
    (patches / "readme-link.patch").write_bytes(SYMLINK_PATCH)
    (patches / "series").write_text("strip-proxy-auth.patch\nreadme-link.patch\n")
    whole = shutil.copytree(tree, example.root / "whole")
    done = subprocess.run(
        [sys.executable, "-m", "patchkeeper", "init"], cwd=whole, capture_output=True, check=False
    )
    assert done.returncode == 0
    read, write, filled = _full_pipe()
    process = subprocess.Popen(
        [sys.executable, "-m", "patchkeeper", "init"],
        cwd=tree,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=write,
    )
    os.close(write)
    wchan = Path(f"/proc/{process.pid}/wchan")
    for _ in range(6000):  # a bound, not a timing: fails the test rather than hang it
        if "pipe_write" in wchan.read_text() or process.poll() is not None:
            break
        time.sleep(0.01)
    assert "pipe_write" in wchan.read_text()
    process.send_signal(signal.SIGINT)
    with os.fdopen(read, "rb") as stderr:
        err = stderr.read()[filled:].decode()
    assert process.stdout is not None
    out = process.stdout.read().decode()
    process.stdout.close()
    assert (process.wait(), out) == (130, "")
    warning = (
        "patchkeeper: warning: apply refuses readme-link.patch "
        "(debian/patches/readme-link.patch:5): the diff for README has mode 120000 (a "
        "symbolic link): patchkeeper patches regular files only; to do: create the link or "
        "submodule outside the series (e.g. in the build)\n"
    )
    error = (
        "patchkeeper: error: interrupted after init wrote patchkeeper.toml, PATCHES.md: each "
        "file is whole, the rest of init's output is missing\n"
        "  hint: check them with patchkeeper lint and go on from there, or remove them and "
        "run patchkeeper init again\n"
    )
    # the warning's write is the one SIGINT cuts: CPython's buffered writer keeps its bytes
    # for the next write or drops them, by where the signal lands (about 1 run in 7 here)
    assert err in (warning + error, error)
    assert tree_bytes(tree) == tree_bytes(whole)  # the files an init not interrupted writes


def _formatted_with(example: Example, name: str, content: bytes, subject: str) -> Path:
    """A copy of the old release (``tree``) holding in ``patches/`` the format-patch files of
    the example's branch with one more commit (``subject``) adding file ``name``."""
    repo = format_patch_branch(example)
    (repo / name).write_bytes(content)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", subject)
    tree = example.root / "tree"
    shutil.copytree(example.old, tree)
    git(repo, "format-patch", "-q", "-o", str(tree / "patches"), "v1.0")
    return tree


def test_init_warns_of_a_binary_diff_in_a_format_patch_directory(cli, example: Example) -> None:
    logo = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    tree = _formatted_with(example, "logo.png", logo, "Add a logo")
    run = cli("init", cwd=tree)
    assert run.code == 0
    assert run.err == (
        "patchkeeper: warning: apply refuses 0003-Add-a-logo.patch "
        "(patches/0003-Add-a-logo.patch:11): binary diff for logo.png: patchkeeper applies "
        "text diffs only; to do: ship the binary file as an overlay, or regenerate the diff as "
        "text\n"
    )
    assert "0003-Add-a-logo.patch\n" in (tree / "patches" / "series").read_text()


def test_init_warns_of_a_file_name_apply_refuses(cli, example: Example) -> None:
    """A commit that adds a Latin-1 named file gives a format-patch file apply refuses (the
    name is not valid UTF-8): init warned of a binary diff but not of this one."""
    tree = _formatted_with(example, "caf\udce9.txt", b"note\n", "Add a note")
    run = cli("init", cwd=tree)
    assert run.code == 0
    assert run.err == (
        "patchkeeper: warning: apply refuses 0003-Add-a-note.patch "
        '(patches/0003-Add-a-note.patch:11): the patch path "caf\\351.txt" holds bytes that '
        "are not valid utf-8 (the file system's encoding); to do: rename the file in the "
        "patch\n"
    )
    assert "0003-Add-a-note.patch\n" in (tree / "patches" / "series").read_text()


def test_init_given_a_patch_for_the_series_says_so(cli, example: Example) -> None:
    tree = example.root / "tree"
    tree.mkdir()
    (tree / "fix.patch").write_bytes(DEP3_PATCH)
    run = cli("init", "--patches", "fix.patch", "--upstream", "minihttp==1.0", cwd=tree)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {tree / 'fix.patch'}:7: this is a patch, not a series file (a "
        "series file lists patch names, one a line): its file diff starts here\n"
        "  hint: write a series file beside it that names it (fix.patch on a line) and give "
        "that file instead ('series' in the configuration, or init's --patches)\n"
    )
    assert sorted(path.name for path in tree.iterdir()) == ["fix.patch"]


def test_a_debian_version_gone_back_is_the_version_after_really(cli, example: Example) -> None:
    """Debian writes ``2.0+really1.0`` for a package that went back to upstream's 1.0 (a
    package version may only rise): the sdist to fetch is 1.0."""
    tree = debian_tree(example, "python-minihttp (1.1+really1.0+dfsg.1-1) unstable; urgency=low")
    run = cli("init", cwd=tree)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[1] == (
        "upstream minihttp, pin 1.0: minihttp from the source name python-minihttp "
        "(python-NAME), 1.0 from debian/changelog (1.1+really1.0+dfsg.1-1)"
    )
    assert 'pin = "1.0"\n' in (tree / "patchkeeper.toml").read_text()


def test_a_debian_snapshot_version_asks_for_the_release(cli, example: Example) -> None:
    """``1.0+git20261102.3f1c2a9`` is a local version under PEP 440: no package index holds
    such a release, so a pin written with it could never be fetched."""
    tree = debian_tree(example, "python-minihttp (1.0+git20261102.3f1c2a9-1) unstable; urgency=low")
    run = cli("init", cwd=tree)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {tree / 'debian' / 'changelog'}:1: the upstream version "
        "1.0+git20261102.3f1c2a9 (from 1.0+git20261102.3f1c2a9-1) is no release of a package "
        "index: its +git20261102.3f1c2a9 part names a snapshot or a local build, which the "
        "indexes do not hold, so the pin could not be fetched\n"
        "  hint: pass --upstream NAME==VERSION with the release the series is cut against "
        "(and later --pristine DIR with the snapshot's tree, where it differs)\n"
    )
    assert not (tree / "patchkeeper.toml").exists()
    assert cli("init", "--upstream", "minihttp==1.0", cwd=tree).code == 0


def test_a_debian_source_name_that_names_no_project(cli, example: Example) -> None:
    tree = debian_tree(example, "minihttp-tools (1.0-1) unstable; urgency=medium")
    run = cli("init", cwd=tree)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {tree}: cannot tell the upstream project and pin: "
        "debian/changelog gives the version 1.0, but the source name minihttp-tools is not "
        "python-NAME, and neither the upstream source (PKG-INFO, pyproject.toml), debian/watch "
        "nor debian/control names the Python project\n"
        "  hint: pass --upstream NAME==VERSION (the upstream project and the version the "
        "series is cut against, e.g. --upstream urllib3==2.0.7)\n"
    )
    assert sorted(p.name for p in tree.iterdir()) == ["debian", "minihttp"]
    (tree / "debian" / "watch").write_text(
        "version=4\nhttps://pypi.example.org/minihttp/minihttp-(.+)\\.tar\\.gz\n"
    )
    run = cli("init", cwd=tree)
    assert run.out.splitlines()[1] == (
        "upstream minihttp, pin 1.0: minihttp from debian/watch, 1.0 from debian/changelog (1.0-1)"
    )


def test_a_debian_watch_of_a_repository_names_its_line_and_the_option(
    cli, example: Example
) -> None:
    """A watch file that follows a repository's tags names no project of a package index:
    init says which line it read, what it watches, and the option that names the project."""
    tree = debian_tree(example, "minihttp-tools (1.0-1) unstable; urgency=medium")
    (tree / "debian" / "watch").write_text(
        "# releases are tagged on the forge\n"
        "version=4\n"
        'opts="filenamemangle=s%(?:.*?)?v?(\\d[\\d.]*)\\.tar\\.gz%minihttp-$1.tar.gz%" \\\n'
        "  https://git.example.org/example/minihttp/tags (?:.*?/)?v?(\\d[\\d.]*)\\.tar\\.gz\n"
    )
    run = cli("init", cwd=tree)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {tree / 'debian' / 'watch'}:4: debian/changelog gives the "
        "version 1.0, but the source name minihttp-tools is not python-NAME, and this line "
        "watches https://git.example.org/example/minihttp/tags, which names no project of a Python "
        "package index\n"
        "  hint: pass --upstream NAME==1.0 with the project's name on the package index, or "
        "make this line watch the project's page on a package index\n"
    )
    assert sorted(p.name for p in tree.iterdir()) == ["debian", "minihttp"]
    assert cli("init", "--upstream", "minihttp==1.0", cwd=tree).code == 0


@pytest.mark.parametrize(
    "url",
    [
        # the older form of python-internetarchive's watch file, continued on a second line
        "https://pypi.example.org/packages/source/m/minihttp/ \\\n"
        "             minihttp-@ANY_VERSION@@ARCHIVE_EXT@",
        "https://pypi.example.org/simple/minihttp/ minihttp-(.+)\\.tar\\.gz",
        "https://pypi.example.org/project/minihttp/ minihttp-(.+)\\.tar\\.gz",
        "https://files.example.org/packages/source/m/minihttp/ minihttp-(.+)\\.tar\\.gz",
    ],
)
def test_debian_watch_names_the_project_in_every_index_url_form(
    cli, example: Example, url: str
) -> None:
    tree = debian_tree(example, "minihttp-tools (1.0-1) unstable; urgency=medium")
    (tree / "debian" / "watch").write_text(
        f"# try also https://pypi.example.org/minihttp/watch\nversion=4\n{url}\n"
    )
    run = cli("init", cwd=tree)
    assert (run.code, run.out.splitlines()[1]) == (
        0,
        "upstream minihttp, pin 1.0: minihttp from debian/watch, 1.0 from debian/changelog (1.0-1)",
    )


def test_the_upstream_option_wins_over_the_metadata(cli, example: Example) -> None:
    tree = debian_tree(example, "python-minihttp (1.0-1) unstable; urgency=medium", pyproject=True)
    run = cli("init", "--upstream", "minihttp==1.0.post1", cwd=tree)
    assert (
        run.out.splitlines()[1]
        == "upstream minihttp, pin 1.0.post1: from --upstream minihttp==1.0.post1"
    )
    assert 'pin = "1.0.post1"' in (tree / "patchkeeper.toml").read_text()


def test_the_next_commands_put_an_before_a_vowel_name(cli, example: Example) -> None:
    tree = quilt_tree(example)
    run = cli("init", "--upstream", "asyncssh==2.14", cwd=tree)
    assert run.code == 0
    assert run.out.splitlines()[-3:-1] == [
        "  patchkeeper lint  # every patch has its headers",
        "  patchkeeper verify --target DIR  # DIR: an asyncssh tree with the series applied",
    ]


def test_a_bad_upstream_option_writes_nothing(cli, example: Example) -> None:
    tree = quilt_tree(example)
    for value in ("minihttp", "minihttp>=1.0", "minihttp==1.*", "not a requirement"):
        run = cli("init", "--upstream", value, cwd=tree)
        assert (run.code, run.err) == (
            2,
            f"patchkeeper: error: --upstream {value!r} is not NAME==VERSION\n"
            "  hint: give the project and its exact version, e.g. --upstream urllib3==2.0.7\n",
        )
    assert not (tree / "patchkeeper.toml").exists() and not (tree / "PATCHES.md").exists()


def test_a_git_format_patch_directory_gets_a_series(cli, example: Example) -> None:
    repo = format_patch_branch(example)
    tree = example.root / "tree"
    shutil.copytree(example.old, tree)
    git(repo, "format-patch", "-q", "--cover-letter", "-o", str(tree / "patches"), "v1.0")
    run = cli("init", cwd=tree)
    assert (run.code, run.err) == (0, "")
    names = ["0001-retry-backoff-cap.patch", "0002-redirect-strip-proxy-auth.patch"]
    assert run.out.splitlines()[:7] == [
        "found a git format-patch directory (2 patches): patches holds 2 git format-patch "
        "file(s) (0001-retry-backoff-cap.patch ...) and no series file: their numbers give the "
        "order",
        "upstream minihttp, pin 1.0: from pyproject.toml",
        "header schema dep3: git format-patch files: their Subject and From are DEP-3's fields",
        "wrote patchkeeper.toml",
        "wrote PATCHES.md",
        "wrote patches/series",
        "note: the cover letter (0000-cover-letter.patch) holds no diff: it is not listed",
    ]
    assert (tree / "patches" / "series").read_text() == (
        "# the git format-patch files, in the order of their numbers\n"
        + "".join(f"{name}\n" for name in names)
    )
    ledger = (tree / "PATCHES.md").read_text()
    assert "| 0001-retry-backoff-cap | retry-backoff-cap |  |  |  |  |\n" in ledger
    assert cli("ledger", "--check", cwd=tree).code == 0
    assert cli("lint", cwd=tree).code == 0
    run = cli("audit", "--to", str(example.new), "--pristine", str(example.old), cwd=tree)
    summary = [line for line in run.out.splitlines() if line.startswith("2 patches: ")]
    assert (run.code, summary) == (1, ["2 patches: 1 upstreamed, 1 conflict"])


def test_a_rerolled_format_patch_directory_with_its_cover_letter_lints_clean(
    cli, example: Example
) -> None:
    """``git format-patch -v2 --cover-letter``: init names the letter it leaves out, and the
    ``lint`` it suggests next does not report that letter as a patch the series forgot."""
    repo = format_patch_branch(example)
    tree = example.root / "tree"
    shutil.copytree(example.old, tree)
    git(repo, "format-patch", "-q", "-v2", "--cover-letter", "-o", str(tree / "patches"), "v1.0")
    run = cli("init", cwd=tree)
    assert (run.code, run.err) == (0, "")
    assert (
        "note: the cover letter (v2-0000-cover-letter.patch) holds no diff: it is not listed"
        in (run.out.splitlines())
    )
    assert (tree / "patches" / "series").read_text() == (
        "# the git format-patch files, in the order of their numbers\n"
        "v2-0001-retry-backoff-cap.patch\nv2-0002-redirect-strip-proxy-auth.patch\n"
    )
    run = cli("lint", cwd=tree)
    assert (run.code, run.out) == (0, "no problems in 2 patches\n")


def test_a_git_branch_over_a_tag_becomes_a_series(cli, example: Example) -> None:
    repo = format_patch_branch(example)
    run = cli("init", cwd=repo)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[:8] == [
        "found a git branch over an upstream tag (2 patches): git describe found the tag v1.0: "
        "2 commit(s) on top of it become patches/ (git format-patch)",
        "upstream minihttp, pin 1.0: minihttp from pyproject.toml, 1.0 from the tag v1.0",
        "header schema dep3: git format-patch files: their Subject and From are DEP-3's fields",
        "wrote patchkeeper.toml",
        "wrote PATCHES.md",
        "wrote patches/0001-retry-backoff-cap.patch",
        "wrote patches/0002-redirect-strip-proxy-auth.patch",
        "wrote patches/series",
    ]
    patch = (repo / "patches" / "0001-retry-backoff-cap.patch").read_text()
    assert patch.splitlines()[3:6] == ["Subject: [PATCH] retry-backoff-cap", "", "Why: a test."]
    assert cli("ledger", "--check", cwd=repo).code == 0
    target = example.target()
    assert cli("apply", "--target", str(target), cwd=repo).code == 0
    assert (target / "minihttp" / "retry.py").read_bytes() == (
        repo / "minihttp" / "retry.py"
    ).read_bytes()


def test_check_branch_after_init_from_a_branch_names_the_branch_to_give(
    cli, example: Example
) -> None:
    """A series init wrote from the commits of the checked-out branch: ``check-branch``
    without BRANCH looked for ``[git] branch``'s default, ``patchkeeper/1.0``, and said "no
    commit 'patchkeeper/1.0' ... fetch the tag or commit into the checkout". It says where
    the name came from and names the branch checked out."""
    repo = format_patch_branch(example)
    assert cli("init", cwd=repo).code == 0
    branch = git(repo, "symbolic-ref", "--short", "HEAD").strip()
    said = (
        f"patchkeeper: error: {repo}: no branch 'patchkeeper/1.0' in {repo}: with no BRANCH "
        "given, check-branch reads the branch [git] branch names ('patchkeeper/{pin}')\n"
        "  hint: name the integration branch: '{given}', or set branch in the "
        "configuration's [git] table\n"
    )
    run = cli("check-branch", cwd=repo)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        said.replace("{given}", f"patchkeeper check-branch {branch}"),
    )
    run = cli("check-branch", branch, cwd=repo)
    assert (run.code, run.err) == (0, "")
    assert run.out.startswith(f"{branch} against the series on v1.0: they agree (2 topics")
    git(repo, "checkout", "-q", "--detach")
    run = cli("check-branch", cwd=repo)
    assert (run.code, run.err) == (2, said.replace("{given}", "patchkeeper check-branch BRANCH"))


def test_a_tag_without_commits_since_and_no_tag(cli, example: Example) -> None:
    repo = format_patch_branch(example)
    git(repo, "tag", "v1.0.1")
    run = cli("init", "--tag", "v1.0.1", cwd=repo)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {repo}: no commits on top of v1.0.1: the series would be empty\n"
        "  hint: check out the branch that carries your changes\n",
    )
    run = cli("init", "--tag", "v9", cwd=repo)
    assert run.err.startswith(f"patchkeeper: error: {repo}: no tag v9 in this git checkout\n")
    assert git(repo, "status", "--porcelain") == ""


def test_no_series_and_two_series(cli, example: Example, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    run = cli("init", cwd=empty)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {empty}: no patch series here: no patches/series (quilt), no "
        "debian/patches/series (Debian), no git format-patch files (0001-*.patch) in patches/ "
        "or here, no RPM spec with Patch tags or a %patchlist here, and no git branch with "
        "commits since a tag\n"
        "  hint: run init in the directory that holds the series, or pass --patches PATH (a "
        "series file, an RPM spec, or a directory of git format-patch files), or --tag TAG in "
        "a git checkout whose commits since TAG are the patches\n",
    )
    tree = debian_tree(example, "python-minihttp (1.0-1) unstable; urgency=medium")
    shutil.copytree(EXAMPLE_PATCHES, tree / "patches")
    run = cli("init", cwd=tree)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {tree}: more than one patch series here: debian/patches (debian/"
        "patches/series is a Debian source package's patch series, and debian/source/format "
        'says "3.0 (quilt)"); patches (patches/series lists the patches in apply order '
        "(quilt))\n"
        "  hint: choose one: --patches debian/patches/series or --patches patches/series\n",
    )
    assert sorted(p.name for p in tree.iterdir()) == ["debian", "minihttp", "patches"]
    run = cli("init", "--patches", "patches", "--upstream", "minihttp==1.0", cwd=tree)
    assert (run.code, run.out.splitlines()[0]) == (
        0,
        "found a quilt series (7 patches): patches/series lists the patches in apply order (quilt)",
    )


def test_nothing_is_overwritten(cli, example: Example) -> None:
    tree = quilt_tree(example)
    (tree / "PATCHES.md").write_text("mine\n")
    run = cli("init", cwd=tree)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {tree / 'PATCHES.md'}: exists already: init never overwrites a "
        "file, and this run wrote nothing",
    )
    assert run.err.splitlines()[1:] == [
        "  hint: keep it and configure the rest by hand (docs/starting.md shows the keys), or "
        "move it away and run patchkeeper init again"
    ]
    assert not (tree / "patchkeeper.toml").exists()
    assert cli("init", "--ledger", "docs/ledger.md", cwd=tree).code == 0
    assert (tree / "PATCHES.md").read_text() == "mine\n"
    assert cli("ledger", "--check", cwd=tree).out == (
        "docs/ledger.md: the ledger is current (7 rows)\n"
    )


def test_a_pyproject_table_counts_as_a_configuration(cli, example: Example) -> None:
    tree = quilt_tree(example)
    with (tree / "pyproject.toml").open("a") as handle:
        handle.write('\n[tool.patchkeeper]\nupstream = "minihttp"\n')
    run = cli("init", cwd=tree)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {tree / 'pyproject.toml'}: this downstream is configured "
        "already: pyproject.toml has a [tool.patchkeeper] table; init never overwrites",
    )


def test_a_failed_write_leaves_nothing(cli, example: Example, monkeypatch) -> None:
    """A kill between two files of init's transaction: the next command rolls back, and no
    file of init is left."""
    repo = format_patch_branch(example)
    monkeypatch.setenv("PATCHKEEPER_INTERRUPT_AT", "3")
    run = cli("init", cwd=repo)
    assert run.code == 130
    monkeypatch.delenv("PATCHKEEPER_INTERRUPT_AT")
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def bare(data: bytes) -> bytes:
    """A patch with its preamble taken off: the diff alone."""
    return data[data.index(b"diff --git") :]


def test_an_sdist_with_bare_patches_keeps_the_ledger_schema_and_says_so(
    cli, example: Example
) -> None:
    tree = quilt_tree(example)
    (tree / "pyproject.toml").unlink()
    (tree / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: minihttp\nVersion: 1.0\n")
    for name in EXAMPLE_SERIES:
        patch = tree / "patches" / name
        patch.write_bytes(bare(patch.read_bytes()))
    run = cli("init", "--directory", "minihttp", cwd=tree)
    assert run.out.splitlines()[1:3] + run.out.splitlines()[5:6] == [
        "upstream minihttp, pin 1.0: from PKG-INFO",
        "header schema ledger: the patches carry neither schema's fields: the default",
        "note: no patch carries the ledger schema's headers yet (Kind, What, Upstream, "
        "Cut-against, Retires-when): patchkeeper lint names each one missing",
    ]
    assert "| retry-backoff-cap |  |  |  |  |  |\n" in (tree / "PATCHES.md").read_text()
    assert cli("ledger", "--check", cwd=tree).code == 0
    assert cli("lint", cwd=tree).code == 1


def test_a_quilt_series_with_dep3_headers_gets_the_dep3_schema(cli, example: Example) -> None:
    tree = quilt_tree(example)
    for name in EXAMPLE_SERIES:
        patch = tree / "patches" / name
        patch.write_bytes(b"Description: " + name.encode() + b"\n---\n" + bare(patch.read_bytes()))
    run = cli("init", "--directory", "minihttp", cwd=tree)
    assert run.out.splitlines()[2] == (
        "header schema dep3: the patches carry DEP-3 fields (Description, Subject, Origin, ...)"
    )
    assert cli("lint", cwd=tree).out == "no problems in 7 patches\n"


def test_git_format_patch_files_in_the_current_directory(cli, example: Example) -> None:
    repo = format_patch_branch(example)
    out = example.root / "outgoing"
    git(repo, "format-patch", "-q", "-v", "2", "-o", str(out), "v1.0")
    run = cli("init", "--upstream", "minihttp==1.0", cwd=out)
    assert run.out.splitlines()[0] == (
        "found a git format-patch directory (2 patches): this directory holds 2 git format-patch "
        "file(s) (v2-0001-retry-backoff-cap.patch ...) and no series file: their numbers give "
        "the order"
    )
    assert (out / "series").read_text().splitlines()[1:] == [
        "v2-0001-retry-backoff-cap.patch",
        "v2-0002-redirect-strip-proxy-auth.patch",
    ]


def test_a_ledger_outside_the_downstream_is_refused(cli, example: Example) -> None:
    tree = quilt_tree(example)
    run = cli("init", "--ledger", "../PATCHES.md", cwd=tree)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: --ledger '../PATCHES.md' must name a file inside the downstream "
        f"{tree}\n  hint: give a path relative to it, e.g. --ledger PATCHES.md\n",
    )


def test_a_directory_outside_the_upstream_tree_is_refused(cli, example: Example) -> None:
    tree = quilt_tree(example)
    run = cli("init", "--directory", "../minihttp", cwd=tree)
    assert (run.code, run.err) == (
        2,
        "patchkeeper: error: --directory '../minihttp' must stay inside the upstream tree\n"
        '  hint: name a directory of the upstream tree, relative to its root ("vllm")\n',
    )
    assert not (tree / "patchkeeper.toml").exists()


@pytest.mark.parametrize(
    ("file", "text", "note"),
    [
        (
            "control",
            "Source: minihttp\n"
            "Homepage: https://github.com/example/minihttp.fork\n\n"
            "Package: python3-minihttp\n",
            "; but debian/control's Homepage is the repository minihttp.fork: if the package "
            'index names the project minihttp.fork, set upstream = "minihttp.fork" in '
            "patchkeeper.toml",
        ),
        (
            "upstream/metadata",
            "---\nRepository: https://github.com/example/minihttp.fork.git\n",
            "; but debian/upstream/metadata's Repository is the repository minihttp.fork: if "
            "the package index names the project minihttp.fork, set upstream = "
            '"minihttp.fork" in patchkeeper.toml',
        ),
        ("control", "Homepage: https://github.com/example/MiniHTTP/\n", ""),
    ],
)
def test_a_project_named_after_the_source_says_where_another_name_is(
    cli, example: Example, file: str, text: str, note: str
) -> None:
    """Debian's pdfminer packages the project pdfminer.six, whose repository its Homepage
    names: the project init took from the source name is another one on the package index
    (``pdfminer``, whose releases stop at 20191125), and audit then said only that no
    release of it matched. The repository's name is said, and where to write it."""
    tree = debian_tree(example, "python-minihttp (1.0-1) unstable; urgency=medium")
    (tree / "debian" / file).parent.mkdir(parents=True, exist_ok=True)
    (tree / "debian" / file).write_text(text)
    run = cli("init", cwd=tree)
    assert (run.code, run.out.splitlines()[1]) == (
        0,
        "upstream minihttp, pin 1.0: minihttp from the source name python-minihttp "
        f"(python-NAME), 1.0 from debian/changelog (1.0-1){note}",
    )
    assert 'upstream = "minihttp"\n' in (tree / "patchkeeper.toml").read_text()


def test_a_tag_without_v_is_written_as_the_pin_tag_form(cli, example: Example) -> None:
    """A branch over an upstream tag written without ``v`` (``1.0``, as Django and OpenStack
    projects tag): init read the pin from that tag, but the default ``pin-tag = "v{pin}"``
    then sent ``import``, ``check-branch`` and ``port --upstream-repo`` looking for ``v1.0``,
    which is not there. init now writes the tag's form."""
    repo = format_patch_branch(example)
    git(repo, "tag", "-d", "v1.0")
    git(repo, "tag", "1.0", "HEAD~2")
    run = cli("init", cwd=repo)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[1] == (
        "upstream minihttp, pin 1.0: minihttp from pyproject.toml, 1.0 from the tag 1.0"
    )
    config = (repo / "patchkeeper.toml").read_text(encoding="utf-8")
    assert config.endswith('\n[git]\npin-tag = "{pin}"  # the form of the upstream\'s tags\n')
    run = cli("import", "--checkout", ".", "--tag", "topic", "--branch", "imported", cwd=repo)
    assert (run.code, run.err) == (0, "")
    assert git(repo, "rev-parse", "imported~2") == git(repo, "rev-parse", "1.0")


def test_an_absolute_series_path_inside_the_downstream_is_written_relative(
    cli, example: Example, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``QUILT_PATCHES`` (or ``--patches``) given as an absolute path through a symbolic link
    to the downstream names the downstream's own series: the configuration names it relative
    to the downstream (it wrote the absolute path, which no other checkout has)."""
    tree = quilt_tree(example)
    link = example.root / "tree-link"
    link.symlink_to(tree)
    monkeypatch.setenv("QUILT_PATCHES", str(link / "patches"))
    run = cli("init", "--directory", "minihttp", cwd=tree)
    assert (run.code, run.err) == (0, "")
    assert 'series = "patches/series"' in (tree / "patchkeeper.toml").read_text().splitlines()
    assert "What each patch in `patches/` is" in (tree / "PATCHES.md").read_text()
    assert not [line for line in run.out.splitlines() if line.startswith("note:")]
    monkeypatch.delenv("QUILT_PATCHES")
    (tree / "patchkeeper.toml").unlink()
    (tree / "PATCHES.md").unlink()
    run = cli(
        "init", "--directory", "minihttp", "--patches", f"{link}/patches/../patches", cwd=tree
    )
    assert (run.code, run.err) == (0, "")
    assert 'series = "patches/series"' in (tree / "patchkeeper.toml").read_text().splitlines()


def test_a_series_outside_the_downstream_is_named_absolute_and_said_so(
    cli, example: Example
) -> None:
    tree = debian_tree(example, "python-minihttp (1.0-2) unstable; urgency=medium")
    downstream = example.root / "downstream-of-deb"
    downstream.mkdir()
    run = cli("init", "--patches", str(tree / "debian" / "patches"), cwd=downstream)
    assert (run.code, run.err) == (0, "")
    series = tree / "debian" / "patches" / "series"
    assert f'series = "{series}"' in (downstream / "patchkeeper.toml").read_text().splitlines()
    assert [line for line in run.out.splitlines() if line.startswith("note:")] == [
        f"note: the series {series} is outside the downstream {downstream}: patchkeeper.toml "
        "names it by this absolute path, which another checkout of the downstream does not "
        "have; to share it, copy the series into the downstream and set series to its path "
        "relative to the downstream"
    ]


def test_a_series_from_elsewhere_is_named_from_the_current_directory(cli, tmp_path: Path) -> None:
    """``init --patches ../shared/series`` (or a format-patch directory beside the
    downstream): the first line named it by its absolute path while the lines after it name
    the files relative to the current directory; it is named up from it."""
    for name, given in (("quilt", "series"), ("format-patch", "")):
        shared, downstream = tmp_path / name / "shared", tmp_path / name / "downstream"
        shared.mkdir(parents=True)
        downstream.mkdir()
        patch = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"
        if given:
            (shared / "fix.patch").write_text(patch)
            (shared / "series").write_text("fix.patch\n")
        else:
            (shared / "0001-fix.patch").write_text(f"From 1\nSubject: [PATCH] fix\n\n---\n{patch}")
        run = cli("init", "--upstream", "foo==1.0", "--patches", f"../shared/{given}",
                  cwd=downstream)  # fmt: skip
        assert (run.code, run.err) == (0, "")
        assert (
            run.out.splitlines()[0]
            == {
                "quilt": "found a quilt series (1 patch): ../shared/series lists the patches in "
                "apply order (quilt)",
                "format-patch": "found a git format-patch directory (1 patch): ../shared holds 1 "
                "git format-patch file(s) (0001-fix.patch ...) and no series file: their numbers "
                "give the order",
            }[name]
        )
        assert run.out.splitlines()[3:5] == ["wrote patchkeeper.toml", "wrote PATCHES.md"]


def test_a_second_init_names_what_an_earlier_one_wrote(cli, example: Example) -> None:
    """An init interrupted (Ctrl-C) after it wrote its files says only "interrupted"; run
    again, it said "wrote nothing", as if no init had written anything. The refusal names
    the files there, and the two ways on: check them with lint, or move them away."""
    tree = quilt_tree(example)
    assert cli("init", "--directory", "minihttp", cwd=tree).code == 0
    (tree / "PATCHES.md").unlink()  # as if the user had moved the ledger away, not the rest
    run = cli("init", cwd=tree)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {tree / 'patchkeeper.toml'}: exists already: init never "
        "overwrites a file, and this run wrote nothing\n"
        "  hint: an earlier init (even an interrupted one) or a hand wrote patchkeeper.toml: "
        "check it with patchkeeper lint and go on from there, or move it away and run "
        "patchkeeper init again\n"
    )
    (tree / "patchkeeper.toml").unlink()
    assert cli("init", "--directory", "minihttp", cwd=tree).code == 0
