"""A hunk kept out at the new release by white space at the ends of lines says which side
changed it.

In the shape of a Debian patch that drops a README's badges: the README of 1.0 has a line
ending in a space, and the patch, cut against 1.0, has it too. 1.1 strips the white space at
the ends of its lines. The audit used to say that a mail client or an editor stripped the
patch's white space and to take the patch again from where it came from, which is wrong: the
patch is whole, upstream changed the file. When the pin's file has the hunk's lines as the
patch has them, the evidence now says so and asks for a refresh; a patch that lost white
space the pin has keeps the first advice.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import write_files

README = [
    "Badger",
    "======",
    "",
    "|Build Status| |Latest Version|",
    "",
    "A library for badges. ",  # ends in a space at 1.0
    "",
    "Install it with pip.",
]

PATCH = (
    "From: Packager <packager@example.org>\n"
    "Subject: Privacy: Remove linking to external resources\n"
    "Forwarded: not-needed\n"
    "\n"
    "--- a/README.rst\n"
    "+++ b/README.rst\n"
    "@@ -1,8 +1,6 @@\n"
    " Badger\n"
    " ======\n"
    " \n"
    "-|Build Status| |Latest Version|\n"
    "-\n"
    " A library for badges. \n"
    " \n"
    " Install it with pip.\n"
)

#: What the evidence says after the line that differs, when the pin has the patch's lines.
UPSTREAM_CHANGED = (
    "the lines match but for white space at their ends: at line 6, the patch's line ends in "
    "white space the file's lacks; the old pin's file has the patch's lines as they are, so "
    "upstream changed the white space at their ends since the pin and the patch is whole: "
    "refresh it on the new release (apply it with 'patch -l', then regenerate it)"
)


def _downstream(root: Path, patch: str = PATCH) -> Path:
    """badger 1.0 (its README line ends in a space), 1.1 (stripped), and a downstream whose
    series holds ``patch``."""
    for version, text in (
        ("1.0", "".join(f"{line}\n" for line in README)),
        ("1.1", "".join(f"{line.rstrip()}\n" for line in README)),
    ):
        write_files(
            root / f"badger-{version}",
            {
                "PKG-INFO": f"Metadata-Version: 2.1\nName: badger\nVersion: {version}\n",
                "README.rst": text,
            },
        )
    return write_files(
        root / "down",
        {
            "patchkeeper.toml": 'upstream = "badger"\npin = "1.0"\npristine = "../badger-1.0"\n'
            'series = "debian/patches/series"\n',
            "debian/patches/series": "privacy.patch\n",
            "debian/patches/privacy.patch": patch,
        },
    )


def test_white_space_upstream_stripped_asks_for_a_refresh(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    run = cli("audit", "--to", "../badger-1.1", cwd=down)
    assert run.code == 1, run.err
    details = run.out[run.out.index("hunk #1 @@") :].splitlines()[:5]
    assert [line.strip() for line in details] == [
        "hunk #1 @@ -1,8 +1,6 @@  (patch line 7)",
        "expected at line 1; closest match at line 1: 7 of 8 lines match",
        "line 6: expected 'A library for badges. '",
        "found    'A library for badges.'",
        UPSTREAM_CHANGED,
    ]
    data = json.loads(cli("audit", "--to", "../badger-1.1", "--json", cwd=down).out)
    (verdict,) = data["verdicts"]
    assert [h["note"] for f in verdict["failures"] for h in f["hunks"]] == [UPSTREAM_CHANGED]


def test_a_patch_that_lost_the_pins_white_space_is_taken_again(cli, tmp_path: Path) -> None:
    """The patch's context lost the space that both releases have: the pin's file does not
    have the patch's lines either, and the patch is what changed."""
    down = _downstream(
        tmp_path, PATCH.replace(" A library for badges. \n", " A library for badges.\n")
    )
    (tmp_path / "badger-1.1" / "README.rst").write_text("".join(f"{line}\n" for line in README))
    data = json.loads(cli("audit", "--to", "../badger-1.1", "--json", cwd=down).out)
    (verdict,) = data["verdicts"]
    assert [h["note"] for f in verdict["failures"] for h in f["hunks"]] == [
        "the lines match but for white space at their ends: at line 6, the file's line ends in "
        "white space the patch's lacks (a mail client or an editor stripped it); take the patch "
        "again from where it came from (its git commit, the source package), or apply it with "
        "'patch -l' and refresh it"
    ]
