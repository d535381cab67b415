"""A backport of an inserted function whose last lines repeat the hunk's leading context
(``return None`` and two blank lines, then the next ``def``): on the release that has the
function, the pre-image is found again just after it, so the patch applies at an offset and
would add the function a second time. The audit calls it *upstreamed* (the shape of vLLM
0.28.0's ``downstream_linear`` in ``fx_utils.py``, backported onto 0.27.1)."""

from __future__ import annotations

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
