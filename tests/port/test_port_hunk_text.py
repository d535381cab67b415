"""A ported patch keeps the hunk-header text its writer gave it (the shape of Debian's
python-ldap ``CVE-2025-61911.patch``, refreshed by quilt with ``diff -p``: quilt-style
``pkg.orig/`` names and the function line cut at 40 bytes, ``@@ -24,6 +24,8 @@ def
escape_filter_chars(assertion_value,``). Ported to a release where the file did not change,
the patch was rewritten with git's 80-byte text (``...(assertion_value,escape_mode=0):``), a
change of the Debian patch that says nothing; where its hunk moved, the text is the one
``diff -p`` writes, and a plain ``diff -u`` hunk (no text) gets none."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import make_checkout, write_files

FILTER = '''"""filters - misc stuff for handling LDAP filter strings (see RFC 4515)"""

from ldap.functions import strf_secs


def escape_filter_chars(assertion_value,escape_mode=0):
  """
  Replace all special characters found in assertion_value
  by quoted notation.
  """
  if escape_mode:
    r = []
    for c in assertion_value:
      r.append("\\\\%02x" % ord(c))
    s = ''.join(r)
  else:
    s = assertion_value.replace('\\\\', r'\\5c')
    s = s.replace(r'*', r'\\2a')
  return s
'''
#: The same file with three lines more above the function: the hunk moves down by 3.
FILTER_MOVED = FILTER.replace(
    "from ldap.functions import strf_secs\n",
    "from ldap.functions import strf_secs\n\n__all__ = ['escape_filter_chars']\n\n",
)
DIFF_P = """\
From: Debian Python Team <team+python@tracker.debian.org>
Subject: escape every character in mode 1

--- ldap-3.4.3.orig/ldap/filter.py
+++ ldap-3.4.3/ldap/filter.py
@@ -10,6 +10,8 @@ def escape_filter_chars(assertion_value,
   \"\"\"
   if escape_mode:
     r = []
+    if not isinstance(assertion_value, str):
+      raise TypeError("assertion_value must be of type str")
     for c in assertion_value:
       r.append("\\\\%02x" % ord(c))
     s = ''.join(r)
"""
#: The same patch as a plain ``diff -u`` writes it: no text after the hunk's numbers.
DIFF_U = DIFF_P.replace(" def escape_filter_chars(assertion_value,\n", "\n")


def _downstream(tmp_path: Path, patch: str) -> tuple[Path, Path]:
    """The releases 3.4.3 (the pin), 3.4.4 (``filter.py`` unchanged, another file changed)
    and 3.4.5 (``filter.py`` with lines added above the hunk), and the downstream."""
    for version, text in (("3.4.3", FILTER), ("3.4.4", FILTER), ("3.4.5", FILTER_MOVED)):
        info = f"Metadata-Version: 2.1\nName: python-ldap\nVersion: {version}\n"
        write_files(
            tmp_path / f"ldap-{version}",
            {"PKG-INFO": info, "ldap/filter.py": text, "ldap/pkginfo.py": f"v = '{version}'\n"},
        )
    downstream = tmp_path / "downstream"
    write_files(
        downstream,
        {
            "patchkeeper.toml": 'upstream = "python-ldap"\npin = "3.4.3"\n',
            "patches/series": "CVE-2025-61911.patch\n",
            "patches/CVE-2025-61911.patch": patch,
        },
    )
    make_checkout(downstream)
    return tmp_path, downstream


def _port(cli, tmp_path: Path, patch: str, to: str) -> tuple[str, bytes]:
    trees, downstream = _downstream(tmp_path, patch)
    run = cli(
        "port",
        "--json",
        "--in-place",
        "--to",
        str(trees / f"ldap-{to}"),
        "--from",
        str(trees / "ldap-3.4.3"),
        cwd=downstream,
    )
    assert run.code == 0, run.out + run.err
    [ported] = json.loads(run.out)["patches"]
    return ported["verdict"], (downstream / "patches" / "CVE-2025-61911.patch").read_bytes()


def test_a_clean_patch_on_an_unchanged_file_keeps_its_bytes(cli, tmp_path: Path) -> None:
    assert _port(cli, tmp_path, DIFF_P, "3.4.4") == ("clean", DIFF_P.encode())


def test_a_moved_hunk_gets_the_text_diff_p_writes(cli, tmp_path: Path) -> None:
    verdict, data = _port(cli, tmp_path, DIFF_P, "3.4.5")
    assert verdict == "offset"
    assert (
        data
        == DIFF_P.replace(
            "@@ -10,6 +10,8 @@ def escape_filter_chars(assertion_value,\n",
            "@@ -13,6 +13,8 @@ def escape_filter_chars(assertion_value,\n",
        ).encode()
    )


def test_a_moved_hunk_of_a_plain_diff_gets_no_text(cli, tmp_path: Path) -> None:
    verdict, data = _port(cli, tmp_path, DIFF_U, "3.4.5")
    assert verdict == "offset"
    assert data == DIFF_U.replace("@@ -10,6 +10,8 @@\n", "@@ -13,6 +13,8 @@\n").encode()
