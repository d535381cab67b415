"""A hunk that only adds an import the new release's file already has elsewhere (upstream
added it, sorted into its own import block) is *present*, not a hunk to apply: GNU patch and
``git apply`` would place it at fuzz 0 and import the name twice. The shape of Debian's
urllib3 series once its six patch is refreshed onto 1.26.20: CVE-2023-45803's first hunk adds
``from ._collections import HTTPHeaderDict`` after ``from six.moves import queue``, and
1.26.20 imports it a few lines above."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

OLD = """import socket

import six
from six.moves import queue

from .connection import HTTPConnection


def urlopen(method):
    if method == "POST":
        method = "GET"
    return method
"""

NEW = """import socket

from ._collections import HTTPHeaderDict
import six
from six.moves import queue

from .connection import HTTPConnection


def urlopen(method):
    if method == "POST":
        method = "GET"
    return method
"""

IMPORT_HUNK = """@@ -3,6 +3,7 @@ import socket
 import six
 from six.moves import queue
 
+from ._collections import HTTPHeaderDict
 from .connection import HTTPConnection
 
 
"""

CODE_HUNK = """@@ -9,4 +10,5 @@ from .connection import HTTPConnection
 def urlopen(method):
     if method == "POST":
         method = "GET"
+        headers = HTTPHeaderDict()
     return method
"""

PATCH = "--- a/pkg/connectionpool.py\n+++ b/pkg/connectionpool.py\n" + IMPORT_HUNK + CODE_HUNK


def test_a_hunk_adding_an_import_the_file_has_is_present(tmp_path: Path) -> None:
    [verdict] = judge(
        tmp_path,
        {"pkg/connectionpool.py": NEW},
        [("fix.patch", PATCH)],
        {"pkg/connectionpool.py": OLD},
    )
    assert [(h.index, h.status, h.line, h.how) for h in verdict.hunks] == [
        (1, "present", 3, "its added imports are already in the file"),
        (2, "applies", 10, ""),
    ]
    assert (verdict.verdict, verdict.action) == ("partially upstreamed", "port")
    assert verdict.summary.startswith(
        "already upstream: pkg/connectionpool.py #1; still to carry: pkg/connectionpool.py #2; "
    )


def test_a_patch_whose_code_is_there_too_is_upstreamed(tmp_path: Path) -> None:
    done = NEW.replace('"GET"\n', '"GET"\n        headers = HTTPHeaderDict()\n')
    [verdict] = judge(
        tmp_path,
        {"pkg/connectionpool.py": done},
        [("fix.patch", PATCH)],
        {"pkg/connectionpool.py": OLD},
    )
    assert [(h.index, h.status, h.how) for h in verdict.hunks] == [
        (1, "present", "its added imports are already in the file"),
        (2, "present", "reverse-applies"),
    ]
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")


def test_an_import_the_pin_had_already_proves_nothing(tmp_path: Path) -> None:
    # the patch added its import beside one the pin had: it still does what it did there
    [verdict] = judge(
        tmp_path,
        {"pkg/connectionpool.py": NEW},
        [("fix.patch", PATCH)],
        {"pkg/connectionpool.py": NEW},
    )
    assert (verdict.verdict, verdict.action) == ("offset", "carry")


def test_an_indented_import_is_not_module_wide(tmp_path: Path) -> None:
    # inside a function, an import binds the name there only: the module's does not make it
    patch = PATCH.replace(
        "+        headers = HTTPHeaderDict()\n",
        "+        from ._collections import HTTPHeaderDict\n",
    )
    [verdict] = judge(
        tmp_path,
        {"pkg/connectionpool.py": NEW},
        [("fix.patch", patch.replace(IMPORT_HUNK, ""))],
        {"pkg/connectionpool.py": OLD},
    )
    assert [(h.index, h.status) for h in verdict.hunks] == [(1, "applies")]
    assert (verdict.verdict, verdict.action) == ("offset", "carry")
