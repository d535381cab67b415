"""A hunk that adds code at the end of a file, where the new release added code of its own
after the same last lines, is refreshed by the audit and the port alike (the shape of
Debian's sqlparse CVE-2024-4340 patch on 0.4.4: its test appended to
``tests/test_regressions.py``, after which upstream appended another test). The hunk has
fewer trailing than leading context lines, so GNU patch places it only at the end of the
file and git's three-way merge stops on the two additions; the refresh places the patch's
lines right after their context, before upstream's, says so, and the port carries it the
same way instead of stopping. Its other file merges cleanly."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from helpers import make_checkout, write_files

SQL_OLD = '''"""Statements."""


def parse(text, limit=None):
    tokens = text.split()
    return tokens
'''
SQL_NEW = SQL_OLD.replace('"""Statements."""', '"""Statements and their tokens."""')
TESTS_OLD = """import sqlparse


def test_splitting_at_and_backticks_issue588():
    splitted = sqlparse.split(
        'grant foo to user1@`myhost`; grant bar to user1@`myhost`;')
    assert len(splitted) == 2
    assert splitted[-1] == 'grant bar to user1@`myhost`;'
"""
TESTS_NEW = (
    TESTS_OLD
    + """

def test_comment_between_cte_clauses_issue632():
    p, = sqlparse.parse("WITH foo AS () SELECT * FROM baz;")
    assert p.get_type() == "SELECT"
"""
)
PATCH = """Subject: limit the nesting of parsed statements
---
--- a/sqlparse/sql.py
+++ b/sqlparse/sql.py
@@ -3,4 +3,6 @@
 
 def parse(text, limit=None):
     tokens = text.split()
+    if limit is not None and len(tokens) > limit:
+        raise RecursionError("too deeply nested")
     return tokens
--- a/tests/test_regressions.py
+++ b/tests/test_regressions.py
@@ -6,3 +6,8 @@ def test_splitting_at_and_backticks_issue588():
         'grant foo to user1@`myhost`; grant bar to user1@`myhost`;')
     assert len(splitted) == 2
     assert splitted[-1] == 'grant bar to user1@`myhost`;'
+
+
+def test_max_recursion():
+    with pytest.raises(RecursionError):
+        sqlparse.parse('[' * 1000 + ']' * 1000, limit=100)
"""
EVIDENCE = (
    "tests/test_regressions.py #1 fails at fuzz 0 (closest: tests/test_regressions.py line 6, "
    "3 of 3 lines match)"
)


def _downstream(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The two releases' trees and the downstream checkout: ``(old, new, downstream)``."""
    trees = []
    for version, sql, tests in (("0.4.2", SQL_OLD, TESTS_OLD), ("0.4.4", SQL_NEW, TESTS_NEW)):
        info = f"Metadata-Version: 2.1\nName: sqlparse\nVersion: {version}\n"
        tree = tmp_path / f"sqlparse-{version}"
        files = {"PKG-INFO": info, "sqlparse/sql.py": sql, "tests/test_regressions.py": tests}
        write_files(tree, files)
        trees.append(tree)
    downstream = tmp_path / "downstream"
    write_files(
        downstream,
        {
            "patchkeeper.toml": 'upstream = "sqlparse"\npin = "0.4.2"\n',
            "patches/series": "CVE-2024-4340.patch\n",
            "patches/CVE-2024-4340.patch": PATCH,
        },
    )
    make_checkout(downstream)
    return trees[0], trees[1], downstream


REFRESH = (
    "its 2 hunks (2 files) land with their + and - lines unchanged (at the file's old end, "
    "before the code upstream added after it, by git's three-way merge)"
)


def test_an_addition_at_the_end_where_upstream_appended_is_refreshed_by_both(
    cli, tmp_path: Path
) -> None:
    old, new, downstream = _downstream(tmp_path)
    audit = cli("audit", "--json", "--to", str(new), "--pristine", str(old), cwd=downstream)
    [verdict] = json.loads(audit.out)["verdicts"]
    assert (verdict["verdict"], verdict["action"], verdict["refresh"]) == (
        "conflict",
        "carry",
        REFRESH,
    )
    assert verdict["summary"].startswith(EVIDENCE)
    run = cli("port", "--json", "--to", str(new), "--from", str(old), cwd=downstream)
    assert run.code == 0, run.out + run.err
    [patch] = json.loads(run.out)["patches"]
    assert (patch["verdict"], patch["summary"]) == (
        "merged",
        "git's three-way merge stopped at tests/test_regressions.py (1 conflict region); "
        f"refreshed as the audit does: {REFRESH}",
    )
    assert not (downstream / ".patchkeeper-port").exists()  # nothing waits to be resolved
    # the refreshed patch applies to the new release at fuzz 0, as GNU patch applies it
    target = tmp_path / "target"
    subprocess.run(["cp", "-r", str(new), str(target)], check=True)
    ported = downstream / "patches-0.4.4" / "CVE-2024-4340.patch"
    subprocess.run(
        ["patch", "-p1", "--fuzz", "0", "-s", "--no-backup-if-mismatch", "-i", str(ported)],
        cwd=target,
        check=True,
    )
    tests = (target / "tests" / "test_regressions.py").read_text()
    assert tests.index("def test_max_recursion") < tests.index("def test_comment_between_cte")
    assert tests.count("def test_max_recursion") == 1


def test_the_terminal_says_the_refresh_carried_the_conflicted_file(cli, tmp_path: Path) -> None:
    """A merged patch's file where git's merge stopped is not left in conflict: the details
    say the refresh carried it, so "merged" and "conflict" do not read as a contradiction."""
    old, new, downstream = _downstream(tmp_path)
    run = cli("port", "--to", str(new), "--from", str(old), cwd=downstream)
    assert run.code == 0, run.out + run.err
    assert "  CVE-2024-4340.patch (merged):" in run.out.splitlines()
    assert (
        "    file: tests/test_regressions.py: conflict (1 region), set aside: the refresh "
        "carried the patch"
    ) in run.out.splitlines()
