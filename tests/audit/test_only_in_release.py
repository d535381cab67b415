"""A patch on a file the old pin's tree lacks and the new release has (a Debian patch to a
``pytest.ini`` the pin's sdist does not ship, which a later release does): the series does
not apply at its own pin. An audit of a range that holds the pin shows it (*target gone* at
the pin); an audit of one release said nothing, judging the patch *clean* there. Its
evidence now says so; the verdict and the action stay the new release's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import write_files

CORE = "def f():\n    return 1\n"
PYTEST_INI = "[pytest]\naddopts = -ra\ntestpaths = tests\n"

PYTEST_PATCH = """Description: declare the network marker
---
--- a/pytest.ini
+++ b/pytest.ini
@@ -1,3 +1,4 @@
 [pytest]
 addopts = -ra
 testpaths = tests
+markers = network
"""

CORE_PATCH = """Description: return two
---
--- a/pkg/core.py
+++ b/pkg/core.py
@@ -1,2 +1,2 @@
 def f():
-    return 1
+    return 2
"""

#: An earlier patch creates ``conftest.py``, which a later one changes: not a miss of the pin.
CREATES = """Description: add a conftest
---
--- /dev/null
+++ b/conftest.py
@@ -0,0 +1 @@
+collect_ignore = []
"""

CHANGES_CREATED = """Description: ignore the docs
---
--- a/conftest.py
+++ b/conftest.py
@@ -1 +1 @@
-collect_ignore = []
+collect_ignore = ["docs"]
"""


def _downstream(root: Path, series: dict[str, str]) -> Path:
    """Releases 1.0 (no ``pytest.ini``) and 1.1 (with it) under ``up``, a downstream pinned
    to 1.0 whose series is ``series`` (name -> patch, in order)."""
    write_files(root / "up" / "pkg-1.0", {"pkg/core.py": CORE})
    write_files(root / "up" / "pkg-1.1", {"pkg/core.py": CORE, "pytest.ini": PYTEST_INI})
    down = root / "down"
    write_files(
        down,
        {
            "patchkeeper.toml": 'upstream = "pkg"\npin = "1.0"\npristine = "../up/pkg-1.0"\n',
            "patches/series": "".join(f"{name}\n" for name in series),
            **{f"patches/{name}": text for name, text in series.items()},
        },
    )
    return down


def test_a_single_release_audit_says_the_patch_misses_the_pin(cli: Any, tmp_path: Path) -> None:
    down = _downstream(tmp_path, {"core.patch": CORE_PATCH, "pytest-ini.patch": PYTEST_PATCH})
    new = tmp_path / "up" / "pkg-1.1"

    run = cli("audit", "--to", str(new), cwd=down)

    assert run.code == 0
    assert run.out.splitlines()[-4:] == [
        "  core.patch        clean    applies at fuzz 0, every hunk in place; to do: carry (it "
        "applies)",
        "  pytest-ini.patch  clean    applies at fuzz 0, every hunk in place; pytest.ini is not "
        "in the old pin's tree, only in the new release: the series does not apply at its pin "
        "itself; to do: carry (it applies)",
        "",
        "2 patches: 2 clean",
    ]
    verdicts = json.loads(cli("audit", "--to", str(new), "--json", cwd=down).out)["verdicts"]
    assert [
        (v["name"], v["verdict"], v["action"], v["rule"], v["not_at_pin"]) for v in verdicts
    ] == [
        ("core.patch", "clean", "carry", "applies", ""),
        ("pytest-ini.patch", "clean", "carry", "applies", "pytest.ini"),
    ]


def test_a_file_an_earlier_patch_creates_is_not_a_miss(cli: Any, tmp_path: Path) -> None:
    """``conftest.py`` is at neither release, but the series creates it before changing it:
    the series applies at its pin."""
    down = _downstream(tmp_path, {"creates.patch": CREATES, "changes.patch": CHANGES_CREATED})

    run = cli("audit", "--to", str(tmp_path / "up" / "pkg-1.1"), "--json", cwd=down)

    assert [
        (v["name"], v["summary"], v["not_at_pin"]) for v in json.loads(run.out)["verdicts"]
    ] == [
        ("creates.patch", "applies at fuzz 0, every hunk in place; to do: carry (it applies)", ""),
        ("changes.patch", "applies at fuzz 0, every hunk in place; to do: carry (it applies)", ""),
    ]
