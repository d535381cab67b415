"""``decide`` carries the audit's "review first" into its suggestion: a patch upstream has
written differently, with lines of it not found there, is suggested *retire* after
reviewing those lines, and the decisions file (and every list quoting it, ``upgrade``'s
included) says so, not a plain retire."""

from __future__ import annotations

from pathlib import Path

from recordhelpers import evidence_downstream

from patchkeeper.config import load_config
from patchkeeper.record.decisions import load
from patchkeeper.upgrade.run import suggestions

OLD = """import os


def read_limits(path):
    with open(path) as handle:
        text = handle.read()
    return parse(text)


def parse(text):
    values = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        values[key.strip()] = value.strip()
    return values
"""

# upstream checks the file and skips blank and comment lines its own way; it does not cut
# what follows a ";" as the patch does
NEW = """import os


def read_limits(path, encoding="utf-8"):
    if not os.path.exists(path):
        raise FileNotFoundError(path)
    with open(path, encoding=encoding) as handle:
        text = handle.read()
    return parse(text)


def parse(text):
    values = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        key, _, value = line.partition("=")
        values[key.strip()] = value.strip()
    return values
"""

PATCH = """Subject: skip blank lines and comments, check the file is there

--- a/pkg/limits.py
+++ b/pkg/limits.py
@@ -2,6 +2,8 @@ import os
 
 
 def read_limits(path):
+    if not os.path.exists(path):
+        raise FileNotFoundError(path)
     with open(path) as handle:
         text = handle.read()
     return parse(text)
@@ -10,6 +12,9 @@ def read_limits(path):
 def parse(text):
     values = {}
     for line in text.splitlines():
+        if not line.strip() or line.startswith("#"):
+            continue
+        line = line.split(";")[0]
         key, _, value = line.partition("=")
         values[key.strip()] = value.strip()
     return values
"""

SAID = "upstreamed, to do: retire after reviewing the lines not found"


def test_a_retire_to_review_first_is_suggested_so(cli, tmp_path: Path, private_cache: Path) -> None:
    downstream = evidence_downstream(tmp_path, "pkg/limits.py", (OLD, NEW), PATCH, "limits.patch")
    audit = cli("audit", "--to", "../pkg-1.1", cwd=downstream)
    assert "to do: retire (after reviewing the lines not found)" in audit.out
    assert audit.out.splitlines()[-1] == "upstream, to review before retiring: limits.patch"
    assert cli("decide", cwd=downstream).code == 0
    path = downstream / "patchkeeper-decisions.toml"
    decision = load(path).get("series", "limits.patch")
    assert decision is not None
    assert (decision.decision, decision.reason, decision.suggested) == (
        "retire",
        f"suggested by patchkeeper decide from the audit verdict: {SAID}",
        True,
    )
    assert f"# suggested from audit: {SAID}; to accept it, delete " in path.read_text()
    # upgrade's list of suggestions quotes the verdict from the reason
    assert suggestions(load_config(downstream / "patchkeeper.toml")) == [
        {
            "kind": "series",
            "key": "limits.patch",
            "decision": "retire",
            "verdict": SAID,
            "needs_condition": False,
        }
    ]
