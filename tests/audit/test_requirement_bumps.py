"""A configuration hunk that raises a requirement's minimum is upstream when the new release
requires at least that much; one that lowers a requirement never is."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

OLD = '[project]\nname = "pkg"\ndependencies = [\n    "Pygments>=2.12",\n    "docutils>=0.18",\n]\n'

RAISE = """--- a/pyproject.toml
+++ b/pyproject.toml
@@ -1,6 +1,6 @@
 [project]
 name = "pkg"
 dependencies = [
-    "Pygments>=2.12",
+    "Pygments>=2.13",
     "docutils>=0.18",
 ]
"""

LOWER = """--- a/pyproject.toml
+++ b/pyproject.toml
@@ -2,5 +2,5 @@
 name = "pkg"
 dependencies = [
     "Pygments>=2.12",
-    "docutils>=0.18",
+    "docutils>=0.17",
 ]
"""


def test_a_raised_minimum_upstream_raised_further_is_upstream(tmp_path: Path) -> None:
    new = OLD.replace("2.12", "2.17").replace('"docutils>=0.18"', '"docutils>=0.20,<0.22"')
    new = new.replace("dependencies = [\n", 'dependencies = [\n    "alabaster>=0.7",\n')
    [verdict] = judge(
        tmp_path, {"pyproject.toml": new}, [("p.patch", RAISE)], {"pyproject.toml": OLD}
    )
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    [hunk] = verdict.hunks
    assert hunk.how == "the new release requires at least the version it raises to"
    # lowering docutils: upstream requiring more is not the patch
    [verdict] = judge(
        tmp_path / "b", {"pyproject.toml": new}, [("p.patch", LOWER)], {"pyproject.toml": OLD}
    )
    assert verdict.verdict == "conflict"
    # upstream still at a lower floor than the patch raises to: not upstream
    lower = new.replace("2.17", "2.12")
    [verdict] = judge(
        tmp_path / "c", {"pyproject.toml": lower}, [("p.patch", RAISE)], {"pyproject.toml": OLD}
    )
    assert verdict.verdict == "conflict"
