"""Near misses: carried patches whose new release has lines like theirs, but not their change.

A rule that retires a patch on "most of its added lines are there" loses a real fix when the
new release has those lines at another place (another function, another module), with
another meaning (a negated condition, a turned comparison, another number), or only shares
the patch's imports. None of these is retired: the evidence is partial, so a person looks,
told which lines and why; the same lines at the patch's own place still retire it.
"""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

PIN = """import logging

from pkg.util import check_port

log = logging.getLogger(__name__)


def connect(host, port=None):
    check_port(port)
    return open_socket(host, port)


def listen(host, port=None):
    check_port(port)
    return bind_socket(host, port)
"""

# the downstream fix of connect(): four added lines the old pin lacks
PATCH = """Subject: limit the host name length
---
--- a/pkg/net.py
+++ b/pkg/net.py
@@ -8,3 +8,7 @@ log = logging.getLogger(__name__)
 def connect(host, port=None):
     check_port(port)
+    if len(host) > MAX_HOST_LENGTH:
+        log.warning("host name too long: %d characters", len(host))
+        raise ValueError("host name too long: %d" % len(host))
+    host = host.strip().lower()
     return open_socket(host, port)
"""

FIX = """    if len(host) > MAX_HOST_LENGTH:
        log.warning("host name too long: %d characters", len(host))
        raise ValueError("host name too long: %d" % len(host))
    host = host.strip().lower()
"""

UDP = "def send(host, port=None):\n    return 1\n"


def _net(connect: str, listen: str = "") -> str:
    """The new release's pkg/net.py: every function takes a timeout (the patch's hunk no
    longer applies), ``connect`` and ``listen`` with ``connect``'s and ``listen``'s extra
    lines before their return."""
    return (
        "import logging\n\nfrom pkg.util import check_port\n\n"
        "log = logging.getLogger(__name__)\n\n\n"
        "def connect(host, port=None, timeout=None):\n    check_port(port)\n"
        f"{connect}    return open_socket(host, port, timeout)\n\n\n"
        "def listen(host, port=None, timeout=None):\n    check_port(port)\n"
        f"{listen}    return bind_socket(host, port)\n"
    )


def _judge(tmp_path: Path, new: dict[str, str]) -> tuple[str, str, str, str]:
    old = {"pkg/net.py": PIN, "pkg/udp.py": UDP}
    [verdict] = judge(tmp_path, {"pkg/udp.py": UDP, **new}, [("host.patch", PATCH)], old)
    return verdict.verdict, verdict.action, verdict.rule, verdict.summary


def test_fix_in_its_own_function_is_retired(tmp_path: Path) -> None:
    verdict, action, rule, _ = _judge(tmp_path, {"pkg/net.py": _net(FIX)})
    assert (verdict, action, rule) == ("upstreamed", "retire", "hunks-present")


def test_fix_in_another_function_is_looked_at(tmp_path: Path) -> None:
    # upstream put the same check into listen(), which the pin had; connect() lacks it
    verdict, action, rule, summary = _judge(tmp_path, {"pkg/net.py": _net("", FIX)})
    assert (verdict, action, rule) == ("partially upstreamed", "look", "mostly-there")
    assert summary.startswith(
        "its new lines are upstream but not as it adds them: 0 of 4 there as it adds them "
        "(pkg/net.py 0/4) (lines the old pin already had are not counted); only at another "
        "place than the patch's: `if len(host) > MAX_HOST_LENGTH:` in listen(); "
        '`log.warning("host name too long: %d characters", len(host))` in listen() and 2 more;'
    )


def test_fix_in_a_helper_upstream_wrote_is_retired(tmp_path: Path) -> None:
    # upstream moved the check to a helper of its own (new since the pin) that connect() calls
    helper = "\n\ndef _checked(host):\n" + FIX + "    return host\n"
    new = _net("    host = _checked(host)\n") + helper
    verdict, action, rule, _ = _judge(tmp_path, {"pkg/net.py": new})
    assert (verdict, action, rule) == ("upstreamed", "retire", "hunks-present")


def test_fix_in_another_module_s_old_function_is_looked_at(tmp_path: Path) -> None:
    # pkg/udp.py send() (at the pin already) gained the lines; connect() did not
    udp = "def send(host, port=None):\n" + FIX + "    return 1\n"
    verdict, action, rule, summary = _judge(tmp_path, {"pkg/net.py": _net(""), "pkg/udp.py": udp})
    assert (verdict, action, rule) == ("partially upstreamed", "look", "mostly-there")
    assert (
        "only at another place than the patch's: `if len(host) > MAX_HOST_LENGTH:` in " in summary
    )
    assert "pkg/udp.py send()" in summary


def test_negated_condition_is_looked_at(tmp_path: Path) -> None:
    negated = FIX.replace("if len(host) >", "if not len(host) >")
    verdict, action, rule, summary = _judge(tmp_path, {"pkg/net.py": _net(negated)})
    assert (verdict, action, rule) == ("partially upstreamed", "look", "mostly-there")
    assert (
        "there with another meaning: `if len(host) > MAX_HOST_LENGTH:` as "
        "`if not len(host) > MAX_HOST_LENGTH:`" in summary
    )


def test_turned_comparison_is_looked_at(tmp_path: Path) -> None:
    turned = FIX.replace("len(host) > MAX", "len(host) < MAX")
    verdict, action, rule, summary = _judge(tmp_path, {"pkg/net.py": _net(turned)})
    assert (verdict, action, rule) == ("partially upstreamed", "look", "mostly-there")
    assert (
        "there with another meaning: `if len(host) > MAX_HOST_LENGTH:` as "
        "`if len(host) < MAX_HOST_LENGTH:`" in summary
    )


IMPORTS_PIN = "import os\n\n\ndef run(cmd):\n    return os.system(cmd)\n"

IMPORTS_PATCH = """--- a/pkg/run.py
+++ b/pkg/run.py
@@ -1,5 +1,8 @@
 import os
+import shlex
+import subprocess
+from pkg.util import check_port
 
 
 def run(cmd):
-    return os.system(cmd)
+    return subprocess.call(shlex.split(cmd), shell=False)
"""

# the new release imports the same names for a function of its own; run() is as it was
IMPORTS_NEW = """import os
import shlex
import subprocess
from pkg.util import check_port


def run(cmd, env=None):
    return os.system(cmd)


def quote(arg):
    check_port(1)
    return shlex.quote(subprocess.list2cmdline([arg]))
"""


def test_only_its_imports_there_is_looked_at(tmp_path: Path) -> None:
    [verdict] = judge(
        tmp_path,
        {"pkg/run.py": IMPORTS_NEW},
        [("run.patch", IMPORTS_PATCH)],
        {"pkg/run.py": IMPORTS_PIN},
    )
    assert (verdict.verdict, verdict.action, verdict.rule) == (
        "partially upstreamed",
        "look",
        "mostly-there",
    )
    [share] = verdict.shares
    assert (share.counted, share.imports) == ((3, 4), (3, 3))
    assert verdict.summary.startswith(
        "most of its new lines are upstream, written differently: 3 of 4 (pkg/run.py 3/4) "
        "(lines the old pin already had are not counted); not found, review before retiring: "
        "`return subprocess.call(shlex.split(cmd), shell=False)`;"
    )


CONSTANTS_PIN = "RETRIES = 1\n\n\ndef fetch(url):\n    return get(url)\n"

CONSTANTS_PATCH = """--- a/pkg/fetch.py
+++ b/pkg/fetch.py
@@ -1,5 +1,9 @@
 RETRIES = 1
+MAX_REDIRECTS = 5
+BACKOFF_FACTOR = 0.5
+VERIFY_CERTIFICATES = True
+POOL_SIZE = 10
 
 
 def fetch(url):
"""


def _constants(tmp_path: Path, verify: str) -> tuple[str, str, str, str]:
    new = (
        "RETRIES = 1\nMAX_REDIRECTS = 5\nBACKOFF_FACTOR = 0.5\n"
        f"VERIFY_CERTIFICATES = {verify}\nPOOL_SIZE = 10\n\n\n"
        "def fetch(url, session=None):\n    return get(url)\n"
    )
    [verdict] = judge(
        tmp_path,
        {"pkg/fetch.py": new},
        [("limits.patch", CONSTANTS_PATCH)],
        {"pkg/fetch.py": CONSTANTS_PIN},
    )
    return verdict.verdict, verdict.action, verdict.rule, verdict.summary


def test_its_setting_turned_off_is_looked_at(tmp_path: Path) -> None:
    verdict, action, rule, summary = _constants(tmp_path, "False")
    assert (verdict, action, rule) == ("partially upstreamed", "look", "mostly-there")
    assert summary.startswith(
        "its new lines are upstream but not as it adds them: 3 of 4 there as it adds them "
        "(pkg/fetch.py 3/4) (lines the old pin already had are not counted); there with "
        "another meaning: `VERIFY_CERTIFICATES = True` as `VERIFY_CERTIFICATES = False`;"
    )


def test_its_constants_as_it_sets_them_are_retired(tmp_path: Path) -> None:
    verdict, action, rule, _ = _constants(tmp_path, "True")
    assert (verdict, action, rule) == ("upstreamed", "retire", "hunks-present")


QUERY_PIN = """class Query:
    def add_annotation(self, annotation, alias):
        self.check_alias(alias)
        self.annotations[alias] = annotation

    def add_filtered_relation(self, filtered_relation, alias):
        filtered_relation.alias = alias
        self.relations[alias] = filtered_relation
"""

QUERY_PATCH = """--- a/pkg/query.py
+++ b/pkg/query.py
@@ -5,4 +5,5 @@ class Query:
 
     def add_filtered_relation(self, filtered_relation, alias):
+        self.check_alias(alias)
         filtered_relation.alias = alias
         self.relations[alias] = filtered_relation
"""


def test_its_line_found_at_its_place_after_another_place_is_retired(tmp_path: Path) -> None:
    # the line is in add_annotation() (at the pin already) before the place the patch adds
    # it to: the hunk is found at its own place, the second one
    new = QUERY_PIN.replace("alias = alias\n", "alias = alias.lower()\n").replace(
        "    def add_filtered_relation(self, filtered_relation, alias):\n",
        "    def add_filtered_relation(self, filtered_relation, alias):\n"
        "        self.check_alias(alias)\n",
    )
    [verdict] = judge(
        tmp_path, {"pkg/query.py": new}, [("alias.patch", QUERY_PATCH)], {"pkg/query.py": QUERY_PIN}
    )
    assert (verdict.verdict, verdict.action, verdict.rule) == (
        "upstreamed",
        "retire",
        "hunks-present",
    )
    [hunk] = verdict.hunks
    assert (hunk.status, hunk.line, hunk.how) == ("present", 6, "post-image found")
