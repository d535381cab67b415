"""A hunk that only inserts lines, where git's merge stops because upstream moved the code on
one side of it, is refreshed (carried) where GNU patch places it at fuzz 1 or 2, when what is
left of its context is found exactly once: quilt pushes it there and the maintainer refreshes
it. The shape of a real security backport: a path check inserted before
``parent_dir = os.path.dirname(file_path)``, whose "skip an existing file" block upstream
moved from before that line to after it."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_support import judge

SKIP_BLOCK = """\
        if os.path.exists(file_path):
            if verbose:
                print(f' {msg}', file=sys.stderr)
            return

"""
HEAD = """\
import os
import sys


def download(file_path, destdir=None, verbose=False):
    msg = f'skipping {file_path}'
    if destdir:
        file_path = os.path.join(destdir, file_path)

"""
TAIL = """\
        parent_dir = os.path.dirname(file_path)
        try:
            if parent_dir != '':
                os.makedirs(parent_dir, exist_ok=True)
        except OSError:
            pass
        return file_path
"""
# the pin: the skip block, then the directory made for the file
OLD = (
    HEAD.replace("    if destdir:", "    if True:\n        if destdir:").replace(
        "        file_path = os.path.join", "            file_path = os.path.join"
    )
    + SKIP_BLOCK
    + TAIL
)
# the new release: the skip block moved after ``parent_dir = ...``, under a new comment
NEW = (
    HEAD.replace("    if destdir:", "    if True:\n        if destdir:").replace(
        "        file_path = os.path.join", "            file_path = os.path.join"
    )
    + "        parent_dir = os.path.dirname(file_path)\n\n"
    + "        # skip a file that is there already\n"
    + SKIP_BLOCK
    + TAIL.replace("        parent_dir = os.path.dirname(file_path)\n", "")
)
CHECK = """Subject: refuse a download path outside the target directory
---
--- a/pkg/files.py
+++ b/pkg/files.py
@@ -12,6 +12,11 @@
                 print(f' {msg}', file=sys.stderr)
             return
 
+        target = os.path.realpath(file_path)
+        base = os.path.realpath(destdir or os.getcwd())
+        if os.path.commonpath([target, base]) != base:
+            raise ValueError(f'{file_path} is outside {base}')
+
         parent_dir = os.path.dirname(file_path)
         try:
             if parent_dir != '':
"""
REFRESH = "its 1 hunk (1 file) lands with its + and - lines unchanged (at fuzz 2)"


def test_the_check_lands_before_the_line_it_was_written_against(tmp_path: Path) -> None:
    (verdict,) = judge(
        tmp_path, {"pkg/files.py": NEW}, [("check.patch", CHECK)], old={"pkg/files.py": OLD}
    )
    assert (verdict.verdict, verdict.action, verdict.refresh) == ("conflict", "carry", REFRESH)
    assert verdict.summary.startswith("pkg/files.py #1 fails at fuzz 0")


@pytest.mark.parametrize(
    ("patch", "new", "why"),
    [
        pytest.param(
            CHECK,
            NEW.replace("        return file_path\n", "")
            + "\n\ndef mirror(file_path):\n    if True:\n\n"
            "        parent_dir = os.path.dirname(file_path)\n        return parent_dir\n",
            "what is left of its context at fuzz 2 occurs twice: no place is told",
            id="left-context-found-twice",
        ),
        pytest.param(
            CHECK,
            NEW.replace(
                "os.path.dirname(file_path)", "os.path.dirname(os.path.abspath(file_path))"
            ),
            "upstream rewrote the line its context holds: nothing is left to place it by",
            id="left-context-rewritten",
        ),
        pytest.param(
            CHECK,
            NEW.replace(
                "file_path = os.path.join(destdir, file_path)\n",
                "file_path = os.path.join(destdir, file_path)\n        check_quota(file_path)\n",
            ),
            "upstream wrote code of its own where the context left out was",
            id="upstream-code-at-the-place",
        ),
    ],
)
def test_an_insertion_fuzz_cannot_place_for_sure_is_ported(
    tmp_path: Path, patch: str, new: str, why: str
) -> None:
    (verdict,) = judge(
        tmp_path, {"pkg/files.py": new}, [("check.patch", patch)], old={"pkg/files.py": OLD}
    )
    assert (verdict.verdict, verdict.action, verdict.refresh) == ("conflict", "port", ""), why
