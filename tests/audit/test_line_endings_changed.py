"""A hunk whose file changed its line endings upstream is shown where it comes closest.

An upstream that converted a CRLF module to LF between releases leaves none of a CRLF
patch's lines in the new file byte for byte. The closest match is then found with CRLF read
as LF on both sides: the evidence names the line that really differs and says that the
line endings differ too, where it said that none of the hunk's lines occur in the file.
Here a module written with CRLF at 1.0 is LF at 1.1, which also changed one line of the
hunk's context; the patch, cut from a checkout of 1.0, carries CRLF.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import write_files

MODULE = [
    "import enum",
    "",
    "",
    "class _Missing:",
    "    pass",
    "",
    "",
    "MISSING = _Missing()",
    "DATA_SIZE_DEFAULT = 2**25",
    "CALL_LIMIT_DEFAULT = 20",
    "",
    "",
    "def ident():",
    "    return 'mailserve'",
]

#: As ``git format-patch`` writes it from a checkout of 1.0: its own lines end in LF, the
#: lines of the CRLF file in CRLF.
PATCH = (
    "From: Dev <dev@example.org>\n"
    "Subject: [PATCH] Larger default DATA size\n"
    "\n"
    "--- a/mailserve/smtp.py\n"
    "+++ b/mailserve/smtp.py\n"
    "@@ -6,7 +6,7 @@ class _Missing:\n"
    " \r\n"
    " \r\n"
    " MISSING = _Missing()\r\n"
    "-DATA_SIZE_DEFAULT = 2**25\r\n"
    "+DATA_SIZE_DEFAULT = 2**26\r\n"
    " CALL_LIMIT_DEFAULT = 20\r\n"
    " \r\n"
    " \r\n"
)


def _downstream(
    root: Path, changed: tuple[str, str] = ("MISSING = _Missing()", "MISSING = _Missing.MISSING")
) -> Path:
    """1.0 (CRLF), 1.1 (LF, with ``changed`` made) and a downstream carrying :data:`PATCH`."""
    old = "".join(f"{line}\r\n" for line in MODULE)
    new = "".join(f"{line}\n" for line in MODULE).replace(*changed)
    for version, module in (("1.0", old), ("1.1", new)):
        tree = write_files(
            root / f"mailserve-{version}",
            {"PKG-INFO": f"Metadata-Version: 2.1\nName: mailserve\nVersion: {version}\n"},
        )
        (tree / "mailserve").mkdir()
        (tree / "mailserve" / "smtp.py").write_bytes(module.encode())
    down = write_files(
        root / "down",
        {
            "patchkeeper.toml": 'upstream = "mailserve"\npin = "1.0"\n'
            'pristine = "../mailserve-1.0"\n',
            "patches/series": "0001-Larger-default-DATA-size.patch\n",
        },
    )
    (down / "patches" / "0001-Larger-default-DATA-size.patch").write_bytes(PATCH.encode())
    return down


def test_the_closest_match_reads_crlf_as_lf(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    run = cli("audit", "--to", "../mailserve-1.1", cwd=down)
    assert run.code == 1, run.err
    assert (
        "mailserve/smtp.py #1 fails at fuzz 0 (closest: mailserve/smtp.py line 6, 6 of 7 "
        "lines match)"
    ) in run.out
    details = run.out[run.out.index("hunk #1 @@") :].splitlines()[:5]
    assert [line.strip() for line in details] == [
        "hunk #1 @@ -6,7 +6,7 @@ class _Missing:  (patch line 6)",
        "expected at line 6; closest match at line 6: 6 of 7 lines match",
        "line 8: expected 'MISSING = _Missing()'",
        "found    'MISSING = _Missing.MISSING'",
        "the file's lines end in LF, the patch's in CRLF: the lines are compared with CRLF "
        "read as LF; convert the patch's line endings to the file's (or the file's to the "
        "patch's) as well as reworking the lines that differ",
    ]


def test_apply_names_the_line_that_differs(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    run = cli("apply", "--target", "../mailserve-1.1", "--json", cwd=down)
    assert run.code == 1, run.err
    text = json.dumps(json.loads(run.out))
    assert '"closest_line": 6' in text
    assert "the file's lines end in LF, the patch's in CRLF" in text
    assert (tmp_path / "mailserve-1.1" / "mailserve" / "smtp.py").read_bytes().count(b"\r") == 0


#: The patch the port writes for 1.1: its lines in the new file's LF endings.
PORTED_HUNK = (
    "@@ -6,7 +6,7 @@ class _Missing:\n"
    " \n"
    " \n"
    " MISSING = _Missing()\n"
    "-DATA_SIZE_DEFAULT = 2**25\n"
    "+DATA_SIZE_DEFAULT = 2**26\n"
    " CALL_LIMIT_DEFAULT = 20\n"
    " \n"
    " \n"
)


def test_the_port_merges_in_the_new_files_line_endings(cli, tmp_path: Path) -> None:
    """Merged as it was, every line of the file differs between the pins and the whole
    file is one conflict region; read in the new pin's endings, the patch merges with the
    change upstream made further down."""
    down = _downstream(tmp_path, ("    return 'mailserve'", "    return 'mailserve 1.1'"))
    run = cli("port", "--to", "../mailserve-1.1", "--in-place", cwd=down)
    assert run.code == 0, run.out + run.err
    patch = (down / "patches" / "0001-Larger-default-DATA-size.patch").read_bytes().decode()
    assert patch[patch.index("@@") :] == PORTED_HUNK
    assert not (down / ".patchkeeper-port").exists()
