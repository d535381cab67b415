"""An empty patch in a series (zero bytes, or only a DEP-3 header, as ``quilt new`` writes
them) is a no-op: apply, verify, unapply, audit and port take it, name it as empty, and exit 0.
Alone, outside a series, such a patch is still refused, as ``git apply`` refuses it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers import git
from patchkeeper.errors import PatchFormatError
from patchkeeper.series.parse import read_patch

FIX = b"--- a/pkg/x.py\n+++ b/pkg/x.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
HEADER_ONLY = b"Description: placeholder for the next fix\nAuthor: Ann <ann@example.org>\n\n"
NOTICES = [
    "  empty: 02-header.patch: no diff (zero bytes, or only a header): a no-op",
    "  empty: 03-zero.patch: no diff (zero bytes, or only a header): a no-op",
]
EMPTY_ROWS = [
    "    02-header.patch: no diff (zero bytes, or only a header): a no-op",
    "    03-zero.patch: no diff (zero bytes, or only a header): a no-op",
]


def _release(root: Path, version: str, text: bytes) -> Path:
    root.mkdir(parents=True)
    (root / "PKG-INFO").write_text(f"Metadata-Version: 2.1\nName: pkg\nVersion: {version}\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "x.py").write_bytes(text)
    return root


@pytest.fixture
def downstream(tmp_path: Path) -> Path:
    """A downstream whose series is a fix, a header-only patch and a zero-byte patch, with
    the pin's tree in ``up/`` and a copy of it to patch in ``target/``."""
    root = tmp_path / "ds"
    patches = root / "patches"
    patches.mkdir(parents=True)
    (patches / "01-fix.patch").write_bytes(FIX)
    (patches / "02-header.patch").write_bytes(HEADER_ONLY)
    (patches / "03-zero.patch").write_bytes(b"")
    (patches / "series").write_text("01-fix.patch\n02-header.patch\n03-zero.patch\n")
    (root / "patchkeeper.toml").write_text(
        'upstream = "pkg"\npin = "1.0"\nseries = "patches/series"\npristine = "up"\n'
    )
    _release(root / "up", "1.0", b"a\nb\nc\n")
    _release(root / "target", "1.0", b"a\nb\nc\n")
    return root


def test_git_apply_refuses_an_empty_patch_alone(tmp_path: Path) -> None:
    for name, data in (("zero.patch", b""), ("header.patch", HEADER_ONLY)):
        (tmp_path / name).write_bytes(data)
        done = subprocess.run(
            ["git", "apply", "--check", name], cwd=tmp_path, capture_output=True, text=True
        )
        assert (done.returncode, done.stderr) == (
            128,
            'error: No valid patches in input (allow with "--allow-empty")\n',
        )
        with pytest.raises(PatchFormatError) as caught:
            read_patch(tmp_path / name)
        what = "is empty" if not data else "holds no diff"
        assert caught.value.message == (
            f"the patch {what}: no '--- a/FILE' / '+++ b/FILE' or 'diff --git' header with "
            "hunks was found"
        )


def test_apply_verify_unapply_take_empty_patches_as_no_ops(cli, downstream: Path) -> None:
    target = (downstream / "target").resolve()
    label = f"directory {target}"
    pristine = f"directory {(downstream / 'up').resolve()}"

    applied = cli("apply", "--target", "target", cwd=downstream)
    assert (applied.code, applied.err) == (0, "")
    assert applied.out.splitlines() == [f"applied 3 patches on {label}: 1 file changed", *NOTICES]
    assert (target / "pkg" / "x.py").read_bytes() == b"a\nB\nc\n"

    verified = cli("verify", "--target", "target", cwd=downstream)
    assert (verified.code, verified.err) == (0, "")
    assert verified.out.splitlines() == [
        f"verify: {label} against {pristine}",
        "  applied  01-fix.patch",
        "  empty    02-header.patch",
        "  empty    03-zero.patch",
        *EMPTY_ROWS,
        "ok: 1 of 1 patches applied, 2 empty patches (no-ops), 0 files drifted",
    ]

    again = cli("apply", "--target", "target", cwd=downstream)
    assert (again.code, again.out) == (
        0,
        f"apply: the series is already applied on {label}\nnothing was changed\n",
    )

    undone = cli("unapply", "--target", "target", cwd=downstream)
    assert (undone.code, undone.err) == (0, "")
    assert undone.out.splitlines() == [f"unapplied 3 patches on {label}: 1 file changed", *NOTICES]
    assert (target / "pkg" / "x.py").read_bytes() == b"a\nb\nc\n"

    pristine_again = cli("unapply", "--target", "target", cwd=downstream)
    assert (pristine_again.code, pristine_again.out) == (
        0,
        f"unapply: the series is already pristine on {label}\nnothing was changed\n",
    )
    status = cli("status", "--target", "target", cwd=downstream)
    assert status.code == 1
    assert status.out.splitlines() == [
        f"status: {label} against {pristine}",
        "  not applied  01-fix.patch",
        "  empty        02-header.patch",
        "  empty        03-zero.patch",
        "    01-fix.patch: pkg/x.py hunk #1 not applied",
        *EMPTY_ROWS,
        "not ok: 0 of 1 patches applied, 2 empty patches (no-ops), 0 files drifted",
    ]


def test_audit_and_port_carry_empty_patches(cli, downstream: Path) -> None:
    _release(downstream / "up2", "2.0", b"z\na\nb\nc\n")
    empty = (
        "the patch holds no diff (zero bytes, or only a header): a no-op on any release; "
        "to do: carry (it applies)"
    )
    audit = cli("audit", "--to", "up2", "--json", cwd=downstream)
    assert (audit.code, audit.err) == (0, "")
    verdicts = json.loads(audit.out)["verdicts"]
    assert [(v["name"], v["verdict"], v["summary"], v["rule"]) for v in verdicts] == [
        (
            "01-fix.patch",
            "offset",
            "applies at fuzz 0; hunks moved: pkg/x.py #1 +1; to do: carry (it applies)",
            "applies",
        ),
        ("02-header.patch", "clean", empty, "applies"),
        ("03-zero.patch", "clean", empty, "applies"),
    ]

    port = cli("port", "--to", "up2", "--output", "out", cwd=downstream)
    assert (port.code, port.err) == (0, "")
    out = downstream / "out"
    assert (out / "series").read_text() == "01-fix.patch\n02-header.patch\n03-zero.patch\n"
    assert (out / "02-header.patch").read_bytes() == HEADER_ONLY
    assert (out / "03-zero.patch").read_bytes() == b""


def test_import_commits_an_empty_patch_as_a_commit_of_no_change(cli, tmp_path: Path) -> None:
    up = tmp_path / "up"
    (up / "pkg").mkdir(parents=True)
    (up / "pkg" / "x.py").write_bytes(b"a\nb\nc\n")
    git(up, "init", "-q")
    git(up, "add", "-A")
    git(up, "commit", "-qm", "base")
    git(up, "tag", "v1.0")
    down = tmp_path / "down"
    (down / "patches").mkdir(parents=True)
    (down / "patches" / "01-fix.patch").write_bytes(FIX)
    (down / "patches" / "02-header.patch").write_bytes(HEADER_ONLY)
    (down / "patches" / "series").write_text("02-header.patch\n01-fix.patch\n")
    (down / "patchkeeper.toml").write_text(
        'upstream = "pkg"\npin = "1.0"\nseries = "patches/series"\n\n'
        f'[git]\ncheckout = "{up}"\ntag = "ours"\nbranch = "work"\n'
    )
    run = cli("import", cwd=down)
    assert (run.code, run.err) == (0, "")
    assert git(up, "log", "--format=%s", "work").splitlines() == [
        "[ours] 01-fix",
        "[ours] 02-header",
        "base",
    ]
    assert git(up, "diff", "--stat", "v1.0", "work~1") == ""  # the empty patch changes nothing
    assert git(up, "show", "-s", "--format=%b", "work~1") == (
        "Description: placeholder for the next fix\nAuthor: Ann <ann@example.org>"
    )
    # export gives the files back byte for byte; without the file, a commit of no change is
    # written in git's form: its body and the exported-from line, no diff
    exported = cli("export", "--range", "v1.0..work", cwd=down)
    assert (exported.code, exported.err) == (0, "")
    assert (down / "patches" / "02-header.patch").read_bytes() == HEADER_ONLY
    assert (down / "patches" / "01-fix.patch").read_bytes() == FIX
    (down / "patches" / "02-header.patch").unlink()
    assert cli("export", "work~1", "-o", "patches/02-header.patch", cwd=down).code == 0
    commit = git(up, "rev-parse", "work~1")
    assert (down / "patches" / "02-header.patch").read_bytes() == (
        HEADER_ONLY + f"--- exported from {commit}\n".encode()
    )
