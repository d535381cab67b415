"""A patch whose context lines lost the white space at their ends (a mail client or an
editor stripped it) while the file kept it: the hunk does not apply at fuzz 0, as GNU patch
without ``-l`` refuses it, and the failure says that only white space at the ends of lines
differs, where, and what to do, in the shape of a Debian ``conf.py`` patch."""

from __future__ import annotations

from pathlib import Path

from helpers import write_files

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


def test_the_failure_names_the_white_space(cli, tmp_path: Path) -> None:
    down = write_files(
        tmp_path / "down",
        {
            "patchkeeper.toml": 'upstream = "pkg"\npin = "1.0"\nseries = "debian/patches/series"\n',
            "debian/patches/series": "no-intersphinx.patch\n",
            "debian/patches/no-intersphinx.patch": PATCH,
        },
    )
    target = write_files(tmp_path / "target", {"doc/source/conf.py": CONF})
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
