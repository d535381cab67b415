"""The shape of python-dateutil 2.8.2 -> 2.9.0.post0 (``dateutil/`` moved to
``src/dateutil/``) and a series on it, written for the tests of a module created in a
brand-new subpackage of a moved package (tests/audit/test_moved_subpackage.py,
tests/port/test_port_moved_subpackage.py)."""

from __future__ import annotations

PIN = {
    "dateutil/__init__.py": "__all__ = ['easter', 'parser', 'tz', 'utils']\n",
    "dateutil/easter.py": "EASTER_WESTERN = 3\n\n\ndef easter(year):\n    return year\n",
    "dateutil/utils.py": "def today(tzinfo=None):\n    return tzinfo\n",
    "dateutil/parser/__init__.py": "from ._parser import parse\n",
    "dateutil/parser/_parser.py": "def parse(timestr):\n    return timestr\n",
    "dateutil/tz/__init__.py": "from .tz import tzutc\n",
    "dateutil/tz/tz.py": "class tzutc:\n    pass\n",
    "setup.py": "from setuptools import setup\nsetup(name='python-dateutil')\n",
}
#: 2.9.0.post0's shape: the package under ``src/``.
MOVED = {f"src/{path}" if path.startswith("dateutil/") else path: t for path, t in PIN.items()}

LOCAL = "from dateutil import tz\n\n\ndef local():\n    return tz.tzutc()\n"

CREATES = """From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001
Subject: [PATCH 1/2] add dateutil.contrib.local
---
 dateutil/contrib/local.py | 5 +++++
 1 file changed, 5 insertions(+)
 create mode 100644 dateutil/contrib/local.py

diff --git a/dateutil/contrib/local.py b/dateutil/contrib/local.py
new file mode 100644
index 0000000..1111111
--- /dev/null
+++ b/dateutil/contrib/local.py
@@ -0,0 +1,5 @@
+from dateutil import tz
+
+
+def local():
+    return tz.tzutc()
"""

CHANGES = """From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001
Subject: [PATCH 2/2] utils: default to UTC
---
 dateutil/utils.py | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/dateutil/utils.py b/dateutil/utils.py
index 3333333..4444444 100644
--- a/dateutil/utils.py
+++ b/dateutil/utils.py
@@ -1,2 +1,2 @@
 def today(tzinfo=None):
-    return tzinfo
+    return tzinfo or 'UTC'
"""

SERIES = [("0001-add-contrib-local.patch", CREATES), ("0002-utils-utc.patch", CHANGES)]


BOTH = (
    CHANGES.replace("[PATCH 2/2] utils: default to UTC", "add local, utils to UTC")
    + (CREATES[CREATES.index("diff --git") :])
)
