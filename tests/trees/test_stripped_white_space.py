"""A patch whose context lines lost the white space at their ends (a mail client or an
editor stripped it) while the file kept it: the hunk does not apply at fuzz 0, as GNU patch
without ``-l`` refuses it, and the failure says that only white space at the ends of lines
differs, where, and what to do, in the shape of a Debian ``conf.py`` patch."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import write_files
from json_schema_check import output
from patchkeeper.jsonable import to_jsonable
from patchkeeper.series.engine import FileState, Workspace, apply_patch
from patchkeeper.series.hunk_evidence import HunkEvidence, LineMismatch, failure_evidence
from patchkeeper.series.hunks import SpaceMismatch
from patchkeeper.series.parse import parse_patch

CONF = (
    "extensions = [\n"
    "    'sphinx.ext.autodoc',\n"
    "    'sphinx.ext.coverage', \n"  # upstream's line ends in a space
    "    'sphinx.ext.intersphinx',\n"
    "]\n"
)

PATCH = (
    "Description: Patch out intersphinx\n"
    "Forwarded: not-needed\n"
    "\n"
    "--- a/doc/source/conf.py\n"
    "+++ b/doc/source/conf.py\n"
    "@@ -1,5 +1,4 @@\n"
    " extensions = [\n"
    "     'sphinx.ext.autodoc',\n"
    "     'sphinx.ext.coverage',\n"  # the space is gone
    "-    'sphinx.ext.intersphinx',\n"
    " ]\n"
)


NOTE = (
    "the lines match but for white space at their ends: at line 3, the file's line ends in "
    "white space the patch's lacks (a mail client or an editor stripped it); take the patch "
    "again from where it came from (its git commit, the source package), or apply it with "
    "'patch -l' and refresh it"
)


def _downstream(tmp_path: Path) -> tuple[Path, Path]:
    down = write_files(
        tmp_path / "down",
        {
            "patchkeeper.toml": 'upstream = "pkg"\npin = "1.0"\nseries = "debian/patches/series"\n',
            "debian/patches/series": "no-intersphinx.patch\n",
            "debian/patches/no-intersphinx.patch": PATCH,
        },
    )
    return down, write_files(tmp_path / "target", {"doc/source/conf.py": CONF})


def test_the_failure_names_the_white_space(cli, tmp_path: Path) -> None:
    down, target = _downstream(tmp_path)
    run = cli("apply", "--target", str(target), cwd=down)
    assert (run.code, run.err) == (1, "")
    assert run.out.splitlines() == [
        f"no-intersphinx.patch does not apply to directory {target}",
        "  doc/source/conf.py:",
        "    hunk #1 @@ -1,5 +1,4 @@  (patch line 6)",
        "      expected at line 1; closest match at line 1: 4 of 5 lines match",
        "      line 3: expected \"    'sphinx.ext.coverage',\"",
        "              found    \"    'sphinx.ext.coverage', \"",
        "      the lines match but for white space at their ends: at line 3, the file's line "
        "ends in white space the patch's lacks (a mail client or an editor stripped it); take "
        "the patch again from where it came from (its git commit, the source package), or "
        "apply it with 'patch -l' and refresh it",
        "nothing was changed",
    ]
    assert (target / "doc" / "source" / "conf.py").read_text() == CONF


def test_the_json_form_has_the_words_and_not_the_place(cli, tmp_path: Path) -> None:
    """The hunk's evidence keeps where the white space differs for the audit's advice
    (``space``), but its JSON form says it in ``note`` alone, as it always has: the
    failure as printed, byte for byte."""
    down, target = _downstream(tmp_path)
    run = cli("apply", "--target", str(target), "--json", cwd=down)
    assert (run.code, run.err) == (1, "")
    assert len(output(run.out)["failures"]) == 1
    printed = run.out[run.out.index('  "failures"') : run.out.index('  "state"')]
    assert printed.splitlines() == [
        '  "failures": [',
        "    {",
        '      "path": "doc/source/conf.py",',
        '      "problem": null,',
        '      "hunks": [',
        "        {",
        '          "path": "doc/source/conf.py",',
        '          "index": 1,',
        '          "header": "@@ -1,5 +1,4 @@",',
        '          "patch_line": 6,',
        '          "expected_line": 1,',
        '          "closest_line": 1,',
        '          "matching": 4,',
        '          "total": 5,',
        '          "mismatches": [',
        "            {",
        '              "line": 3,',
        '              "expected": "    \'sphinx.ext.coverage\',",',
        '              "found": "    \'sphinx.ext.coverage\', "',
        "            }",
        "          ],",
        f'          "note": {json.dumps(NOTE)}',
        "        }",
        "      ]",
        "    }",
        "  ],",
    ]


def test_the_evidence_keeps_the_place() -> None:
    patch = parse_patch(PATCH.encode(), name="no-intersphinx.patch", path=Path("p"))
    files = {"doc/source/conf.py": FileState.from_bytes(CONF.encode())}
    outcome = apply_patch(Workspace(files.get), patch)
    ((failure,),) = [file.hunks for file in failure_evidence(outcome)]
    assert failure.space == SpaceMismatch(line=3, in_file=True)
    assert failure == HunkEvidence(
        "doc/source/conf.py",
        1,
        "@@ -1,5 +1,4 @@",
        6,
        1,
        1,
        4,
        5,
        (LineMismatch(3, "    'sphinx.ext.coverage',", "    'sphinx.ext.coverage', "),),
        NOTE,
    )
    assert "space" not in to_jsonable(failure)
