"""A patch whose hunk lines mix CRLF and LF line endings: apply, lint and audit agree.

In the shape of a patch written by hand on Windows, then edited with an editor that wrote
its new lines with LF: its header lines end in LF, two hunk lines in CRLF, the rest in LF.
GNU patch reads such a patch line by line and fails the hunk ("different line endings"),
as ``apply`` does; ``lint`` names the line where the ending changes (PK306) and ``audit``
does not retire it on lines found with the endings set aside (rule ``mixed-endings``). A
patch whose every line ends in CRLF is read as LF (GNU patch strips the CR), and is none of
these.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import write_files

CORE_OLD = "a = 1\nb = 2\nc = 3\nd = 4\n"
CORE_NEW = "a = 1\nb = 20\nc = 3\nd = 4\ne = 5\n"
MIXED = (
    b"--- a/app/core.py\n+++ b/app/core.py\n@@ -1,4 +1,4 @@\n"
    b" a = 1\r\n-b = 2\r\n+b = 20\n c = 3\n d = 4\n"
)
HEADERS = (
    "Kind: fix\nWhat: b is 20\nUpstream: none\nCut-against: 1.0\nRetires-when: upstream has it\n"
)


def downstream(tmp_path: Path, patch: bytes) -> Path:
    """A downstream of one patch on a directory pin (1.0), with the release 1.1 beside it."""
    write_files(tmp_path / "up/app-1.0", {"app/core.py": CORE_OLD})
    write_files(tmp_path / "up/app-1.1", {"app/core.py": CORE_NEW})
    write_files(tmp_path / "work", {"app/core.py": CORE_OLD})
    root = write_files(
        tmp_path / "ds",
        {
            "patchkeeper.toml": 'upstream = "app"\npin = "1.0"\nseries = "patches/series"\n'
            'pristine = "../up/app-1.0"\n',
            "patches/series": "fix.patch\n",
        },
    )
    (root / "patches/fix.patch").write_bytes(HEADERS.encode() + b"---\n" + patch)
    return root


def test_apply_lint_and_audit_agree_on_mixed_endings(cli, tmp_path: Path) -> None:
    root = downstream(tmp_path, MIXED)
    applied = cli("apply", "--target", "../work", cwd=root)
    assert applied.code == 1
    assert (
        "different line endings: the file's lines end in LF, the patch's in a mix of CRLF and LF"
        in applied.out + applied.err
    )
    linted = cli("lint", cwd=root)
    assert (linted.code, linted.out.splitlines()) == (
        1,
        [
            "patches/fix.patch:12: PK306 hunk #1 of app/core.py mixes line endings: CRLF "
            "before this line, LF here; apply refuses it against a file whose lines end alike "
            "(different line endings): convert it to LF (dos2unix patches/fix.patch, or sed -i 's/\\r$//' patches/fix.patch), or "
            "regenerate it",
            "1 problem in 1 patch",
        ],
    )
    audited = cli("audit", "--to", "../up/app-1.1", "--json", cwd=root)
    (verdict,) = json.loads(audited.out)["verdicts"]
    assert (verdict["verdict"], verdict["action"], verdict["rule"]) == (
        "upstreamed",
        "look",
        "mixed-endings",
    )
    assert verdict["endings"] == (
        "the line endings change from CRLF to LF at patch line 12, inside hunk #1 of "
        "app/core.py: apply refuses it (different line endings)"
    )


def test_a_patch_all_in_crlf_is_read_as_lf_by_all_three(cli, tmp_path: Path) -> None:
    root = downstream(tmp_path, MIXED.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    assert cli("lint", cwd=root).code == 0
    audited = cli("audit", "--to", "../up/app-1.1", "--json", cwd=root)
    (verdict,) = json.loads(audited.out)["verdicts"]
    assert (verdict["verdict"], verdict["action"], verdict["endings"]) == (
        "upstreamed",
        "retire",
        "",
    )
    applied = cli("apply", "--target", "../work", cwd=root)
    assert applied.code == 0
    assert (tmp_path / "work/app/core.py").read_bytes() == b"a = 1\nb = 20\nc = 3\nd = 4\n"


def test_a_pin_whose_file_mixes_the_endings_alike_takes_the_patch(cli, tmp_path: Path) -> None:
    """A file whose own lines mix CRLF and LF as the hunk does (GNU patch applies it there):
    the audit's evidence is not contradicted at the pin, and the retire stands; lint, which
    reads no tree, still names the mix."""
    root = downstream(tmp_path, MIXED)
    mixed_file = b"a = 1\r\nb = 2\r\nc = 3\nd = 4\n"
    (tmp_path / "up/app-1.0/app/core.py").write_bytes(mixed_file)
    (tmp_path / "work/app/core.py").write_bytes(mixed_file)
    assert cli("apply", "--target", "../work", cwd=root).code == 0
    audited = cli("audit", "--to", "../up/app-1.1", "--json", cwd=root)
    (verdict,) = json.loads(audited.out)["verdicts"]
    assert (verdict["verdict"], verdict["action"], verdict["endings"]) == (
        "upstreamed",
        "retire",
        "",
    )
    assert cli("lint", cwd=root).code == 1
