"""Hunks that change only comments, and imports the patch itself puts back, never decide a
verdict: an upstream commit backported with the next one (a licence header rewritten, an
import dropped and restored) is judged on the hunks that change code."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_support import judge

#: The collector both releases define; upstream's fix adds :data:`RETRY` to ``run_facter``.
COLLECTOR = """class FacterFactCollector(BaseFactCollector):
    name = "facter"
    namespace = PrefixFactNamespace(namespace_name="facter", prefix="facter_")

    def find_facter(self, module):
        return module.get_bin_path("facter")

    def run_facter(self, module, facter_path):
        rc, out, err = module.run_command(facter_path + " --puppet --json")
        return rc, out, err

    def collect(self, module=None) -> dict[str, t.Any]:
        return json.loads(self.run_facter(module, self.find_facter(module))[1])
"""
RETRY = """
        # some versions of facter fail on --puppet without puppet: try again without it
        if rc != 0:
            rc, out, err = module.run_command(facter_path + " --json")

"""
FACTER_OLD = (
    """# This file is part of Pkg
#
# Pkg is free software: you can redistribute it and/or modify
# it under the terms of the GNU General Public License.

import json

import pkg.compat.typing as t

from pkg.namespace import PrefixFactNamespace

from pkg.collector import BaseFactCollector


"""
    + COLLECTOR
)
# upstream took the fix with its own header and import order
FACTER_NEW = """# Copyright (c) Pkg Project
# GNU General Public License v3.0+ (see COPYING)

from __future__ import annotations

import json
import typing as t

from pkg.namespace import PrefixFactNamespace
from pkg.collector import BaseFactCollector


""" + COLLECTOR.replace('--puppet --json")\n', '--puppet --json")\n' + RETRY)
# an upstream commit backported with the next one, which put back the import it dropped
FIRST = """From: Pkg Developer <dev@example.org>
Subject: [PATCH 1/2] retry facter without --puppet

---
--- a/pkg/facter.py
+++ b/pkg/facter.py
@@ -1,14 +1,9 @@
-# This file is part of Pkg
-#
-# Pkg is free software: you can redistribute it and/or modify
-# it under the terms of the GNU General Public License.
+# Copyright (c) Pkg Project
+# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
 
 import json
 
-import pkg.compat.typing as t
-
 from pkg.namespace import PrefixFactNamespace
-
 from pkg.collector import BaseFactCollector
 
 
@@ -21,6 +16,11 @@
 
     def run_facter(self, module, facter_path):
         rc, out, err = module.run_command(facter_path + " --puppet --json")
+
+        # some versions of facter fail on --puppet without puppet: try again without it
+        if rc != 0:
+            rc, out, err = module.run_command(facter_path + " --json")
+
         return rc, out, err
 
     def collect(self, module=None) -> dict[str, t.Any]:
"""
SECOND = """
From: Pkg Developer <dev@example.org>
Subject: [PATCH 2/2] restore import

---
--- a/pkg/facter.py
+++ b/pkg/facter.py
@@ -3,6 +3,8 @@
 
 import json
 
+import pkg.compat.typing as t
+
 from pkg.namespace import PrefixFactNamespace
 from pkg.collector import BaseFactCollector
 
"""


@pytest.mark.parametrize(
    ("fix", "verdict", "action", "rule", "summary"),
    [
        pytest.param(
            FIRST + SECOND,
            "upstreamed",
            "retire",
            "cosmetic-aside",
            # the two diffs of pkg/facter.py each number their first hunk #1
            "every code hunk's post-image is there (pkg/facter.py #2); set aside: "
            "pkg/facter.py #1 (@@ -1,14 +1,9 @@), pkg/facter.py #1 (@@ -3,6 +3,8 @@) only "
            "change comments and imports the patch puts back; 2 of 3 substantive added lines already upstream (strongest: "
            "pkg/facter.py 2/3); to do: retire (upstream has it)",
            id="the-import-is-put-back",
        ),
        # the import it drops may be its point: the failing hunk decides, and with the
        # hunk upstream took by code the pin lacked, a person does (some-hunks-there)
        pytest.param(
            FIRST,
            "conflict",
            "look",
            "some-hunks-there",
            "pkg/facter.py #1 fails at fuzz 0 (closest: pkg/facter.py line 1, 3 of 14 lines "
            "match); already upstream: pkg/facter.py #2; 2 of 2 substantive added lines "
            "already upstream (strongest: pkg/facter.py 2/2); upstream has some of its hunks, "
            "with code the old pin lacks: pkg/facter.py #2 (1 of 2 hunks there); to do: look "
            "(upstream took part of it; decide whether the failing hunks are still needed)",
            id="the-import-stays-dropped",
        ),
    ],
)
def test_hunks_that_only_change_comments_and_put_back_imports_do_not_decide(
    tmp_path: Path, fix: str, verdict: str, action: str, rule: str, summary: str
) -> None:
    [judged] = judge(
        tmp_path,
        {"pkg/facter.py": FACTER_NEW},
        [("facter.patch", fix)],
        old={"pkg/facter.py": FACTER_OLD},
    )
    assert (judged.verdict, judged.action, judged.summary) == (verdict, action, summary)
    assert judged.rule == rule
    assert [(h.index, h.status) for h in judged.hunks][:2] == [(1, "fails"), (2, "present")]
