"""The cross-checks read a patch file's facts from the tree the plugin's scan parsed: the
scan keeps the names of every package, and narrowed to the upstream's they are what a parse
of the file for the cross-checks gives."""

from __future__ import annotations

from pathlib import Path

from patchkeeper.runtime.inventory.file_facts import ScanSettings, from_record, to_record
from patchkeeper.runtime.inventory.scan import scan_source
from patchkeeper.runtime.judge.crosscheck import file_facts
from patchkeeper.runtime.syntax.references import for_roots

PATCH = (
    "import os.path\n"  # 1
    "import up.sched\n"  # 2
    "from up.core import Engine\n"  # 3
    "from other.lib import helper\n"  # 4
    "from . import sibling\n"  # 5
    "\n"  # 6
    "if up.sched.VERSION >= (2, 0):\n"  # 7
    "    Engine.step = helper\n"  # 8
    "\n"  # 9
    "\n"  # 10
    "def patched(self):\n"  # 11
    "    other.lib.x if os.path.sep else up.sched.run(self)\n"  # 12
    "    return up.sched.Scheduler.schedule\n"  # 13
)


def test_the_scan_s_facts_for_the_upstream_equal_a_parse_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "p.py"
    path.write_text(PATCH, encoding="utf-8")
    settings = ScanSettings("plug", patch_package="plug.patch")
    facts = scan_source(path.read_bytes(), "plug.patch.p", "plug/patch/p.py", False, settings)
    kept = from_record(to_record(facts)).references  # as the plugin's store gives it back
    assert kept is not None
    assert for_roots(kept, ("up",)) == file_facts((str(path), "plug.patch.p", False, ("up",)))
    assert for_roots(kept, ("up",)) == (
        (
            # in ast.walk's order: breadth first
            ("up.sched", 2, True, 0),
            ("up.core.Engine", 3, True, 0),
            ("up.sched.VERSION", 7, True, 0),
            ("up.sched.Scheduler.schedule", 13, False, 0),
            ("up.sched", 7, True, 0),
            ("up.sched.Scheduler", 13, False, 0),
            ("up.sched.run", 12, False, 0),
            ("up.sched", 13, False, 0),
            ("up.sched", 12, False, 0),
        ),
        ((7, "up.sched.VERSION >= (2, 0)"), (12, "os.path.sep")),
    )


def test_a_file_outside_the_patch_directory_keeps_none(tmp_path: Path) -> None:
    settings = ScanSettings("plug", patch_package="plug.patch")
    facts = scan_source(PATCH.encode(), "plug.helpers", "plug/helpers.py", False, settings)
    assert facts.references is None
