"""A backport of an inserted function whose last lines repeat the hunk's leading context
(``return None`` and two blank lines, then the next ``def``): on the release that has the
function, the pre-image is found again just after it, so the patch applies at an offset and
would add the function a second time. The audit calls it *upstreamed* (the shape of vLLM
0.28.0's ``downstream_linear`` in ``fx_utils.py``, backported onto 0.27.1)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from audit_support import judge

OLD = '''def first_linear(node, module):
    """The first linear after ``node``."""
    if node is None:
        return None
    return None


def returned_linear(graph, module):
    """Name of the linear producing the graph's output."""
    value = output_value(graph)
    return value
'''

ADDED = '''def downstream_linear(node, module):
    """Nearest linear consuming ``node``'s output."""
    queue = list(node.users)
    while queue:
        current = queue.pop(0)
        if is_linear(current, module):
            return current
    return None


'''

NEW = OLD.replace("def returned_linear", ADDED + "def returned_linear")

BACKPORT = """--- a/pkg/fx_utils.py
+++ b/pkg/fx_utils.py
@@ -5,6 +5,16 @@ def first_linear(node, module):
     return None
 
 
+def downstream_linear(node, module):
+    \"\"\"Nearest linear consuming ``node``'s output.\"\"\"
+    queue = list(node.users)
+    while queue:
+        current = queue.pop(0)
+        if is_linear(current, module):
+            return current
+    return None
+
+
 def returned_linear(graph, module):
     \"\"\"Name of the linear producing the graph's output.\"\"\"
     value = output_value(graph)
"""

OWN = """--- a/pkg/fx_utils.py
+++ b/pkg/fx_utils.py
@@ -8,4 +8,5 @@ def first_linear(node, module):
 def returned_linear(graph, module):
     \"\"\"Name of the linear producing the graph's output.\"\"\"
     value = output_value(graph)
+    log_value(value)
     return value
"""


def test_backport_that_would_insert_its_function_again_is_upstreamed(tmp_path: Path) -> None:
    verdicts = judge(
        tmp_path,
        {"pkg/fx_utils.py": NEW},
        [("downstream-linear.patch", BACKPORT), ("log-value.patch", OWN)],
        {"pkg/fx_utils.py": OLD},
    )
    assert [(v.verdict, v.action) for v in verdicts] == [
        ("upstreamed", "retire"),
        ("offset", "carry"),
    ]
    assert [v.rule for v in verdicts] == ["applies-twice", "applies"]
    assert verdicts[0].summary == (
        "the new upstream already has its post-image (pkg/fx_utils.py #1 at line 5); the patch "
        "still applies only further on, where it would add its lines a second time; 6 of 6 "
        "substantive added lines already upstream (strongest: pkg/fx_utils.py 6/6); to do: "
        "retire (upstream has it)"
    )
    # the own patch is judged on the tree without a second copy of the function
    assert verdicts[1].summary == (
        "applies at fuzz 0; hunks moved: pkg/fx_utils.py #1 +10; to do: carry (it applies)"
    )


def test_patch_that_applies_where_its_post_image_is_not_stays_carried(tmp_path: Path) -> None:
    # the same insertion on the old pin: the post-image is nowhere, the patch applies in place
    [verdict] = judge(
        tmp_path,
        {"pkg/fx_utils.py": OLD},
        [("downstream-linear.patch", BACKPORT)],
        {"pkg/fx_utils.py": OLD},
    )
    assert (verdict.verdict, verdict.summary) == (
        "clean",
        "applies at fuzz 0, every hunk in place; to do: carry (it applies)",
    )


TAIL = '''

def last_linear(graph, module):
    """The graph's last node."""
    node = graph.nodes[-1]
    return node
'''

ADDED_TOO = '''def upstream_linear(node, module):
    """Nearest linear feeding ``node``."""
    value = node.args[0]
    return value


'''

#: The release that has both functions the two-commit backport adds.
BOTH = (OLD + TAIL).replace("def returned_linear", ADDED + "def returned_linear")
BOTH = BOTH.replace("def last_linear", ADDED_TOO + "def last_linear")

#: Two commits' diffs of one file joined: the second diff's line numbers are those of the file
#: the first leaves (``downstream_linear`` added).
TWO_COMMITS = (
    BACKPORT
    + """--- a/pkg/fx_utils.py
+++ b/pkg/fx_utils.py
@@ -21,6 +21,12 @@
     return value
 
 
+def upstream_linear(node, module):
+    \"\"\"Nearest linear feeding ``node``.\"\"\"
+    value = node.args[0]
+    return value
+
+
 def last_linear(graph, module):
     \"\"\"The graph's last node.\"\"\"
     node = graph.nodes[-1]
"""
)


def test_second_diff_of_a_file_is_checked_in_the_file_the_first_left(tmp_path: Path) -> None:
    """GNU patch applies both diffs to the release that has both functions, each further
    on, and adds both a second time; the second diff's pre-image lies inside its post-image
    in the file the first diff left (with ``downstream_linear`` twice, at line 31), which
    the file before the patch has ten lines higher (at line 21)."""
    gnu = tmp_path / "gnu"
    (gnu / "pkg").mkdir(parents=True)
    (gnu / "pkg" / "fx_utils.py").write_text(BOTH)
    done = subprocess.run(
        ["patch", "-p1", "--fuzz", "0", "--no-backup-if-mismatch"],
        input=TWO_COMMITS.encode(),
        cwd=gnu,
        capture_output=True,
        check=True,
    )
    assert done.stdout.decode().splitlines() == [
        "patching file pkg/fx_utils.py",
        "Hunk #1 succeeded at 15 (offset 10 lines).",
        "patching file pkg/fx_utils.py",
        "Hunk #1 succeeded at 37 (offset 16 lines).",
    ]
    doubled = (gnu / "pkg" / "fx_utils.py").read_text()
    assert (doubled.count("def downstream_linear"), doubled.count("def upstream_linear")) == (2, 2)

    [verdict] = judge(
        tmp_path / "audit",
        {"pkg/fx_utils.py": BOTH},
        [("linears.patch", TWO_COMMITS)],
        {"pkg/fx_utils.py": OLD + TAIL},
    )
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.summary == (
        "the new upstream already has its post-image (pkg/fx_utils.py #1 (@@ -5,6 +5,16 @@) "
        "at line 5, pkg/fx_utils.py #1 (@@ -21,6 +21,12 @@) at line 21); the patch still "
        "applies only further on, where it would add its lines a second time; 9 of 9 "
        "substantive added lines already upstream (strongest: pkg/fx_utils.py 9/9); to do: "
        "retire (upstream has it)"
    )


def test_second_diff_adding_an_import_upstream_has_is_checked_where_the_first_left_it(
    tmp_path: Path,
) -> None:
    """The second diff's context holds the ``import os`` the first adds, so its hunk is found
    only in the file the first leaves; there it adds ``import sys``, which the new release
    imports at its top and the pin did not: applying the patch would import it twice."""
    pin = "import re\nimport json\n\n\ndef f():\n    return json.dumps({})\n"
    patch = """--- a/pkg/m.py
+++ b/pkg/m.py
@@ -1,4 +1,5 @@
 import re
 import json
+import os
 
 
--- a/pkg/m.py
+++ b/pkg/m.py
@@ -2,4 +2,5 @@
 import json
 import os
+import sys
 
 
"""
    gnu = tmp_path / "gnu"
    (gnu / "pkg").mkdir(parents=True)
    (gnu / "pkg" / "m.py").write_text("import sys\n" + pin)
    subprocess.run(
        ["patch", "-p1", "--fuzz", "0", "-s", "--no-backup-if-mismatch"],
        input=patch.encode(),
        cwd=gnu,
        check=True,
    )
    assert (gnu / "pkg" / "m.py").read_text() == (
        "import sys\nimport re\nimport json\nimport os\nimport sys\n\n\n"
        "def f():\n    return json.dumps({})\n"
    )
    [verdict] = judge(
        tmp_path / "audit",
        {"pkg/m.py": "import sys\n" + pin},
        [("imports.patch", patch)],
        {"pkg/m.py": pin},
    )
    assert (verdict.verdict, verdict.action, verdict.summary) == (
        "partially upstreamed",
        "port",
        "already upstream: pkg/m.py #1 (@@ -2,4 +2,5 @@); still to carry: pkg/m.py #1 "
        "(@@ -1,4 +1,5 @@); 1 of 2 substantive added lines already upstream (strongest: "
        "pkg/m.py 1/2); to do: port (drop the hunks upstream has)",
    )
