"""Files the machine refuses to write or read, met where no check before caught them.

- A target (or downstream) whose top directory cannot be written, though the directories of
  the files the series changes can: the journal (``.patchkeeper/journal``, made in the top
  directory before any file is written) is where the machine refuses. The check before a
  write asks about the files to change and their directories only, and for root ``access``
  answers yes whatever the file system says, so the refusal was met only when the journal was
  made: exit 3, "internal error" and a traceback in ``crash.log`` from a plain ``apply``
  (which runs without the command line's modules), a bare ``Operation not permitted`` from
  the rest. Each now says whose directory it is, that nothing was changed, and what to do.
- A path longer than the file system takes: given as an option, a plain ``apply`` called it
  an internal error where the command line names it; named by a patch, the hint said to make
  the file readable.

The shape is a Debian source package's series (``debian/patches/series``, a DEP-3 patch) on
an sdist-like tree (``PKG-INFO``, the package's code one directory down). Tests run as root,
which ignores permission bits, so the top directory is made immutable (``chattr +i``); as
another user its write bit is taken away.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import patchkeeper_on_read_only_mount, set_read_only, tree_bytes, write_files

CORE = 'def where() -> str:\n    return _bundle()\n\n\ndef contents() -> str:\n    return ""\n'
PATCH = """\
From: A Maintainer <maintainer@example.org>
Subject: Use the system's CA bundle
Forwarded: not-needed

---
 certbundle/core.py | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/certbundle/core.py b/certbundle/core.py
--- a/certbundle/core.py
+++ b/certbundle/core.py
@@ -1,5 +1,5 @@
 def where() -> str:
-    return _bundle()
+    return "/etc/ssl/certs/ca-certificates.crt"
 
 
 def contents() -> str:
"""
READ_ONLY_TARGET = [
    "  hint: run as a user who can write the target, or apply to a copy with --target",
]


@pytest.fixture
def package(tmp_path: Path) -> Iterator[tuple[Path, Path, Path]]:
    """(the downstream, the pristine tree, a copy of it to apply to), the copy's top
    directory left writable; made writable again at the end, whatever the test did."""
    tree = {"PKG-INFO": "Metadata-Version: 2.1\nName: certbundle\nVersion: 2022.9.24\n"}
    tree |= {"certbundle/__init__.py": "", "certbundle/core.py": CORE}
    pristine = write_files(tmp_path / "certbundle-2022.9.24", tree)
    target = shutil.copytree(pristine, tmp_path / "target")
    downstream = write_files(
        tmp_path / "downstream",
        {
            "patchkeeper.toml": 'upstream = "certbundle"\npin = "2022.9.24"\n'
            'series = "debian/patches/series"\n[headers]\nschema = "dep3"\n'
            '[ledger]\nfile = "debian/PATCHES.md"\n',
            "debian/patches/series": "use-system-bundle.patch\n",
            "debian/patches/use-system-bundle.patch": PATCH,
            "debian/PATCHES.md": "# Patches\n\n<!-- table:begin -->\n<!-- table:end -->\n",
        },
    )
    yield downstream, pristine, target
    for top in (target, downstream):
        set_read_only(top, on=False)


def _module(*args: str, cwd: Path) -> tuple[int, str, str]:
    """``python -m patchkeeper ARGS``: a plain ``apply`` runs without the command line's
    modules (``patchkeeper.__main__``), the path the in-process runner does not take."""
    done = subprocess.run(
        [sys.executable, "-m", "patchkeeper", *args], cwd=cwd, capture_output=True, text=True
    )
    return done.returncode, done.stdout, done.stderr


def test_apply_to_a_target_whose_top_directory_is_read_only(cli, package) -> None:
    downstream, _, target = package
    before = tree_bytes(target)
    set_read_only(target, on=True)
    expected = [
        f"patchkeeper: error: {target}/.patchkeeper: the target is read-only here; "
        "nothing was changed",
        *READ_ONLY_TARGET,
    ]
    assert _module("apply", "--target", str(target), cwd=downstream) == (
        2,
        "",
        "\n".join(expected) + "\n",
    )
    run = cli("apply", "--target", str(target), cwd=downstream)
    assert (run.code, run.out, run.err.splitlines()) == (2, "", expected)
    assert tree_bytes(target) == before
    assert not (target / ".patchkeeper").exists()


def test_unapply_from_a_target_whose_top_directory_is_read_only(cli, package) -> None:
    downstream, pristine, target = package
    assert cli("apply", "--target", str(target), cwd=downstream).code == 0
    applied = tree_bytes(target)
    assert (
        applied["certbundle/core.py"]
        == CORE.replace("_bundle()", '"/etc/ssl/certs/ca-certificates.crt"').encode()
    )
    set_read_only(target, on=True)
    run = cli("unapply", "--target", str(target), "--pristine", str(pristine), cwd=downstream)
    assert (run.code, run.out, run.err.splitlines()) == (
        2,
        "",
        [
            f"patchkeeper: error: {target}/.patchkeeper: the target is read-only here; "
            "nothing was changed",
            *READ_ONLY_TARGET,
        ],
    )
    assert tree_bytes(target) == applied


def test_retire_in_a_downstream_whose_top_directory_is_read_only(cli, package) -> None:
    downstream, _, _ = package
    assert cli("ledger", cwd=downstream).code == 0  # the series and its ledger in debian/
    before = tree_bytes(downstream)
    set_read_only(downstream, on=True)
    run = cli(
        "retire", "use-system-bundle", "--at", "2023.5.7", "--why", "upstream", cwd=downstream
    )
    assert (run.code, run.out, run.err.splitlines()) == (
        2,
        "",
        [
            f"patchkeeper: error: {downstream}/.patchkeeper: the downstream is read-only here; "
            "nothing was changed",
            "  hint: make the downstream's files and directories writable, or run as a user who "
            "can write them",
        ],
    )
    assert tree_bytes(downstream) == before


def test_upgrade_in_a_downstream_whose_top_directory_is_read_only(cli, package) -> None:
    """The upgrade locks the downstream in a folder it makes there (``.patchkeeper``): the
    machine's refusal to make it names the folder and says what to do."""
    downstream, pristine, _ = package
    new = shutil.copytree(pristine, downstream.parent / "certbundle-2023.5.7")
    (new / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: certbundle\nVersion: 2023.5.7\n")
    before = tree_bytes(downstream)
    set_read_only(downstream, on=True)
    run = cli("upgrade", "--to", str(new), cwd=downstream)
    refused = os.strerror(errno.EPERM if os.geteuid() == 0 else errno.EACCES)
    assert (run.code, run.out, run.err.splitlines()) == (
        2,
        "",
        [
            f"patchkeeper: error: {downstream}/.patchkeeper: cannot make the folder to lock "
            f"it: {refused}",
            "  hint: let this user write it and its directory, or work on a copy",
        ],
    )
    assert tree_bytes(downstream) == before


# --------------------------------------------------------------------------- names too long

TOO_LONG = "b" * 300  # a name longer than the 255 bytes file systems take
NAME_TOO_LONG_OPTION = (
    "  hint: a name in that path is longer than the file system allows (most allow 255 bytes "
    "a name, 4096 a path): check the option or the configuration key that gives it, and pass "
    "a shorter one"
)


@pytest.mark.parametrize("option", ["--target", "--config"])
def test_plain_apply_names_a_path_too_long_as_the_command_line_does(
    cli, package, option: str
) -> None:
    """A plain ``apply`` (run without the command line's modules) and one with ``--json``
    (run by the command line) stop alike on a path the machine refuses: exit 2, the path and
    what to do; the plain one said "internal error" (exit 3) and wrote ``crash.log``."""
    downstream, _, _ = package
    path = f"{downstream.parent}/{TOO_LONG}"
    expected = [
        f"patchkeeper: error: {path}: File name too long; patchkeeper stopped here",
        NAME_TOO_LONG_OPTION,
    ]
    code, out, err = _module("apply", option, path, cwd=downstream)
    assert (code, out, err.splitlines()) == (2, "", expected)
    run = cli("apply", option, path, cwd=downstream)
    assert (run.code, run.out, run.err.splitlines()) == (2, "", expected)


def test_a_patch_path_too_long_says_to_shorten_it_in_the_patch(cli, package) -> None:
    """A patch that names a file whose name is longer than the file system takes: the read
    of that file fails with ``ENAMETOOLONG``, which is no matter of permissions."""
    downstream, pristine, target = package
    series = downstream / "debian" / "patches"
    (series / "long-name.patch").write_text(
        f"Subject: a new module\n\n--- /dev/null\n+++ b/certbundle/{TOO_LONG}.py\n"
        "@@ -0,0 +1 @@\n+LONG = True\n"
    )
    (series / "series").write_text("use-system-bundle.patch\nlong-name.patch\n")
    expected = [
        f"patchkeeper: error: {target}/certbundle/{TOO_LONG}.py: cannot read: File name too long",
        "  hint: the patch names a file whose name or path is longer than this file system "
        "allows (most allow 255 bytes a name, 4096 a path): shorten it in the patch, or check "
        "the strip level",
    ]
    before = tree_bytes(target)
    for args in (("apply",), ("verify", "--pristine", str(pristine))):
        run = cli(*args, "--target", str(target), cwd=downstream)
        assert (run.code, run.out, run.err.splitlines()) == (2, "", expected)
    assert _module("apply", "--target", str(target), cwd=downstream) == (
        2,
        "",
        "\n".join(expected) + "\n",
    )
    assert tree_bytes(target) == before


def test_apply_to_a_target_on_a_read_only_mount_says_so(package) -> None:
    """A target on a file system mounted read-only (a tmpfs mounted in a mount namespace of
    its own, ``unshare``, holding a copy of the target, then made read-only) was told to
    "run as a user who can write the target": the check before the write asked
    ``os.access``, whose no does not say why. The hint is the read-only file system's."""
    downstream, _, target = package
    before = tree_bytes(target)
    mounted = target.parent / "mounted"
    mounted.mkdir()
    done = patchkeeper_on_read_only_mount(
        mounted, ["apply", "--target", str(mounted)], downstream, copy_of=target
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"patchkeeper: error: {mounted}/certbundle/core.py: the target is read-only here; "
        "nothing was changed\n"
        "  hint: the file system is mounted read-only: work on a copy on a writable one\n"
    )
    assert tree_bytes(target) == before
    assert list(mounted.iterdir()) == []  # the mount went with its namespace
