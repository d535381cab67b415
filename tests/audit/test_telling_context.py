"""Where else a failing hunk's context is rests on lines that tell one file from another:
two modules of one package share their imports, so a hunk whose context is only imports
(and comments, blank lines, brackets) is not said to be in the sibling module that imports
the same names. A hunk that is there whole in another file is still found by its imports
(:mod:`test_removals` covers imports moved to ``conftest.py``)."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

JWE_OLD = """import zlib

from pkg.common import base64url_decode, base64url_encode
from pkg.common import json_decode, json_encode
from pkg.jwa import JWA


# RFC 7516 - 4.1
# name: (description, supported?)
HEADERS = {
    'alg': ('Algorithm', False),
}


def decrypt(data, header):
    if header.get('zip') == 'DEF':
        return zlib.decompress(data)
    return data
"""

# the new release sets its own default where the patch inserts: the hunk fails, and git's
# three-way merge cannot place it either
JWE_NEW = JWE_OLD.replace(
    "from pkg.jwa import JWA\n\n", "from pkg.jwa import JWA\n\nDEFAULT_ZIP = 'DEF'\n"
)

JWK = """import os

from pkg.common import KeyError_
from pkg.common import base64url_decode, base64url_encode
from pkg.common import json_decode, json_encode
from pkg.jwa import JWA


class Key:
    def export(self):
        return json_encode({'kty': 'oct'})
"""

LIMIT = """Subject: limit the size of compressed data
---
--- a/pkg/jwe.py
+++ b/pkg/jwe.py
@@ -4,6 +4,9 @@ from pkg.common import base64url_decode, base64url_encode
 from pkg.common import json_decode, json_encode
 from pkg.jwa import JWA
 
+# Limit the amount of data we are willing to decompress by default.
+max_compressed_size = 256 * 1024
+
 
 # RFC 7516 - 4.1
 # name: (description, supported?)
"""


def test_a_hunk_whose_context_is_only_imports_is_not_placed_in_a_sibling_module(
    tmp_path: Path,
) -> None:
    old = {"pkg/jwe.py": JWE_OLD, "pkg/jwk.py": JWK}
    new = {"pkg/jwe.py": JWE_NEW, "pkg/jwk.py": JWK}
    [verdict] = judge(tmp_path, new, [("limit.patch", LIMIT)], old)
    # not "its context is in pkg/jwk.py", nor a refresh of the constant into that module
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
    assert [(h.path, h.status, h.moved_to) for h in verdict.hunks] == [
        ("pkg/jwe.py", "fails", None)
    ]
    assert verdict.summary == (
        "pkg/jwe.py #1 fails at fuzz 0 (closest: pkg/jwe.py line 4, 3 of 6 lines match); "
        "0 of 1 substantive added lines already upstream (strongest: pkg/jwe.py 0/1); "
        "to do: port (rework the failing hunks)"
    )
