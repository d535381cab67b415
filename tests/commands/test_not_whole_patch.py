"""A patch file that is not a whole text patch is refused, not taken as an empty no-op.

A series may hold a patch that has no diff on purpose (``quilt new`` writes a header alone,
quilt applies it as empty). Three other files hold no diff line either and were taken the
same way, applied as "0 files changed", audited *clean* (carry) and linted clean:

- a compressed patch (quilt reads ``NAME.patch.gz`` and the like; read as it is, none of its
  lines is a diff line);
- a ``git format-patch`` mail cut off after its diffstat (``1 file changed, 1 insertion(+),
  1 deletion(-)``: its diff is missing);
- binary data (a NUL byte, which no header holds).

Each is now a parse error naming the file, the line and what to do: ``lint`` PK304,
``apply`` exit 2, ``audit`` *unreadable*.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from patchkeeper.errors import PatchFormatError
from patchkeeper.series.parse import read_patch

#: A fix as ``git format-patch`` writes it, in the shape of a Debian security backport.
MAIL = (
    b"From: Dev <dev@example.org>\n"
    b"Date: Sat, 4 May 2024 21:28:47 +0200\n"
    b"Subject: Clean the request path before logging it\n"
    b"\n"
    b"Bug-Debian: https://bugs.example.org/1069764\n"
    b"---\n"
    b" pkg/x.py | 2 +-\n"
    b" 1 file changed, 1 insertion(+), 1 deletion(-)\n"
    b"\n"
)
DIFF = (
    b"diff --git a/pkg/x.py b/pkg/x.py\n"
    b"--- a/pkg/x.py\n"
    b"+++ b/pkg/x.py\n"
    b"@@ -1,3 +1,3 @@\n"
    b" a\n"
    b"-b\n"
    b"+B\n"
    b" c\n"
)

#: (the series' name of the patch, its bytes, the line and message of the parse error)
CASES = [
    (
        "clean-path.patch.gz",
        gzip.compress(MAIL + DIFF, mtime=0),
        1,
        "the patch file is gzip-compressed; patchkeeper reads plain patches",
        "decompress it (gunzip -c clean-path.patch.gz > clean-path.patch), then list "
        "clean-path.patch in the series in its place",
    ),
    (
        "clean-path.patch",
        MAIL,
        8,
        "the patch holds no diff, yet it has the diffstat '1 file changed, 1 insertion(+), "
        "1 deletion(-)', but no diff follows it: it is not a whole patch",
        "take the patch again from where it came from (its git commit, the source package), "
        "or regenerate it",
    ),
    (
        "clean-path.patch",
        b"Description: fix\n\x00\x01\x02\n",
        2,
        "the patch holds no diff, yet it has binary data (a NUL byte), which no patch header "
        "holds: it is not a whole patch",
        "take the patch again from where it came from (its git commit, the source package), "
        "or regenerate it",
    ),
]


def _downstream(root: Path, name: str, data: bytes) -> Path:
    patches = root / "patches"
    patches.mkdir(parents=True)
    (patches / name).write_bytes(data)
    (patches / "series").write_text(f"{name}\n")
    (root / "patchkeeper.toml").write_text(
        'upstream = "pkg"\npin = "1.0"\nseries = "patches/series"\npristine = "up"\n'
        '[headers]\nschema = "dep3"\n'
    )
    for tree in ("up", "target"):
        (root / tree / "pkg").mkdir(parents=True)
        (root / tree / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n")
        (root / tree / "pkg" / "x.py").write_text("a\nb\nc\n")
    return root


@pytest.mark.parametrize(("name", "data", "line", "message", "hint"), CASES)
def test_a_patch_that_is_not_whole_is_refused(
    cli, tmp_path: Path, name: str, data: bytes, line: int, message: str, hint: str
) -> None:
    root = _downstream(tmp_path / "ds", name, data)
    patch = root / "patches" / name
    with pytest.raises(PatchFormatError) as caught:
        read_patch(patch, allow_empty=True)
    assert (caught.value.line, caught.value.message, caught.value.hint) == (line, message, hint)

    lint = cli("lint", cwd=root)
    assert (lint.code, lint.out.splitlines()) == (
        1,
        [f"patches/{name}:{line}: PK304 {message}: {hint}", "1 problem in 1 patch"],
    )
    apply = cli("apply", "--target", "target", cwd=root)
    assert (apply.code, apply.out) == (2, "")
    assert apply.err == f"patchkeeper: error: {patch.resolve()}:{line}: {message}\n  hint: {hint}\n"
    assert (root / "target" / "pkg" / "x.py").read_text() == "a\nb\nc\n"
    audit = cli("audit", "--to", "target", "--json", cwd=root)
    (verdict,) = json.loads(audit.out)["verdicts"]
    assert (audit.code, verdict["verdict"], verdict["action"]) == (2, "unreadable", "look")


def test_a_header_alone_stays_an_empty_patch(cli, tmp_path: Path) -> None:
    """A mail's message with its ``---`` line and no diffstat is a header alone: empty."""
    root = _downstream(tmp_path / "ds", "next.patch", MAIL.split(b" pkg/x.py")[0])
    apply = cli("apply", "--target", "target", cwd=root)
    assert (apply.code, apply.out.splitlines()[-1]) == (
        0,
        "  empty: next.patch: no diff (zero bytes, or only a header): a no-op",
    )
