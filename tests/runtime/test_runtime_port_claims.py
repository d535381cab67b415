"""``runtime port`` claims only what it did (the plugin and releases of ``portclaims.py``):
a wrapper is not merged into, a copy of an unchanged upstream is not said to have the
change, a clean merge of a copy that missed an earlier upstream change is *clean but
behind*, ``Reviewed against`` marks only files whose every entry is done, a retarget through
``import cup.kernels`` rewrites the import too, and a helper import the new release breaks
is rewritten or named."""

from __future__ import annotations

from pathlib import Path

import pytest
from portclaims import ALIAS, PATCHES, make

from patchkeeper.config import load_config
from patchkeeper.runtime.port import runtime_port as port

EXPECTED = [
    (
        "cplug/patch/patch_behind.py",
        15,
        "by hand",
        "upstream left cup.ops.scale unchanged from 1.0 to 2.0, nothing to merge; the copy "
        "differs from the old upstream outside its Modification banners at 1 line(s) (line "
        "12: return y): an earlier upstream change it lacks; port that by hand",
    ),
    (
        "cplug/patch/patch_clean.py",
        16,
        "merged",
        "three-way merge of cplug/patch/patch_clean.py:7: clean",
    ),
    (
        "cplug/patch/patch_conflict.py",
        17,
        "conflict",
        "three-way merge of cplug/patch/patch_conflict.py:7: 1 conflict(s) marked",
    ),
    (
        "cplug/patch/patch_dormant.py",
        12,
        "by hand",
        "never imported (no import of cplug.patch.patch_dormant in the modules read): remove "
        "it, or re-enable the import",
    ),
    (
        "cplug/patch/patch_moved.py",
        12,
        "retargeted",
        "cup.kernels -> cup.fastk at line 12; import cup.kernels -> import cup.fastk at line 4",
    ),
    (
        "cplug/patch/patch_norm.py",
        18,
        "clean but behind",
        "three-way merge of cplug/patch/patch_norm.py:7: clean but behind: the copy differs "
        "from the old upstream outside its Modification banners at 1 line(s) (line 12: t = "
        "abs(s)): an earlier upstream change it lacks; port that by hand",
    ),
    (
        "cplug/patch/patch_wrapper.py",
        14,
        "by hand",
        "the replacement at cplug/patch/patch_wrapper.py:9 calls the original (the patch "
        "reads cup.ops.shift before it replaces it): a wrapper, not a copy; upstream's body "
        "is not merged into it; check its call against upstream's change by hand (signature: "
        "(x, by) -> (x, by, inplace=False); body)",
    ),
    (
        "cplug/patch/patch_moved.py",
        5,
        "retargeted",
        "from cup.util import clamp -> from cup.helpers import clamp at line 5 (cup.util has no "
        "clamp at 2.0)",
    ),
    (
        "cplug/patch/patch_moved.py",
        5,
        "by hand",
        "`from cup.util import legacy` breaks at 2.0: cup.util has no legacy there (no module "
        "of 2.0 defines it): rewrite the import by hand",
    ),
]

MOVED_DIFF = """--- a/cplug/patch/patch_moved.py
+++ b/cplug/patch/patch_moved.py
@@ -1,12 +1,13 @@
 # Note: n
 # Affected versions: cup 1.0
 # Remove at: 3.0
-import cup.kernels
-from cup.util import clamp, legacy
+import cup.fastk
+from cup.util import legacy
+from cup.helpers import clamp
 
 
 def fast(x):
     return clamp(legacy(x))
 
 
-cup.kernels.fast = fast
+cup.fastk.fast = fast
"""

KEPT_DIFF = """--- a/cplug/patch/patch_moved.py
+++ b/cplug/patch/patch_moved.py
@@ -2,10 +2,11 @@
 # Affected versions: cup 1.0
 # Remove at: 3.0
 import cup.kernels
+import cup.fastk
 
 
 def fast(x):
     return cup.kernels.__name__
 
 
-cup.kernels.fast = fast
+cup.fastk.fast = fast
"""


def _port(base: Path, monkeypatch: pytest.MonkeyPatch, patches: dict[str, str]):
    make(base, monkeypatch, patches)
    return port.port_runtime(
        load_config(base / "plugin" / "pyproject.toml"),
        port.RuntimePortRequest(
            old=str(base / "cup-1.0"),
            new=str(base / "cup-2.0"),
        ),
    )


def test_port_says_what_it_did_for_each_entry(tmp_path: Path, monkeypatch) -> None:
    result = _port(tmp_path, monkeypatch, PATCHES)
    assert [(e.file, e.line, e.action, e.detail) for e in result.entries] == EXPECTED
    assert result.exit_code == 1


def test_only_files_whose_every_entry_is_done_are_reviewed(tmp_path: Path, monkeypatch) -> None:
    """The clean merge's file gains the mark; the files with a conflict, a dormant patch, a
    wrapper, a copy behind upstream or a broken helper import do not."""
    result = _port(tmp_path, monkeypatch, PATCHES)
    marked = [
        line.split("/", 1)[1]
        for line in result.diff.splitlines()
        if line.startswith("+++ ")
        and "+# Affected versions: cup 1.0 Reviewed against 2.0." in _section(result.diff, line)
    ]
    assert marked == ["cplug/patch/patch_clean.py"]
    assert result.diff.count("Reviewed against 2.0.") == 1
    # The files port merged into and left to a human say so (the next port does not merge
    # them again).
    to_review = "+# Affected versions: cup 1.0 Ported to 2.0, to review."
    assert [
        line.split("/", 1)[1]
        for line in result.diff.splitlines()
        if line.startswith("+++ ") and to_review in _section(result.diff, line)
    ] == ["cplug/patch/patch_conflict.py", "cplug/patch/patch_norm.py"]
    assert result.files == (
        "cplug/patch/patch_clean.py",
        "cplug/patch/patch_conflict.py",
        "cplug/patch/patch_moved.py",
        "cplug/patch/patch_norm.py",
    )


def _section(diff: str, header: str) -> str:
    """The part of ``diff`` from the ``+++`` line ``header`` to the next file."""
    rest = diff.split(header + "\n", 1)[1]
    return rest.split("\n--- a/", 1)[0]


def test_a_retarget_through_an_import_rewrites_the_import(tmp_path: Path, monkeypatch) -> None:
    result = _port(tmp_path, monkeypatch, {"patch_moved.py": PATCHES["patch_moved.py"]})
    assert result.diff == MOVED_DIFF


def test_a_retarget_keeps_an_import_the_file_still_uses(tmp_path: Path, monkeypatch) -> None:
    """``cup.kernels`` is named elsewhere in the file: ``import cup.fastk`` is added after
    it, not put in its place; the kept import breaks at 2.0 (no such module) and is named,
    and the file is not marked reviewed."""
    text = (
        PATCHES["patch_moved.py"]
        .replace("    return clamp(legacy(x))\n", "    return cup.kernels.__name__\n")
        .replace("from cup.util import clamp, legacy\n", "")
    )
    result = _port(tmp_path, monkeypatch, {"patch_moved.py": text})
    assert [(e.line, e.action, e.detail) for e in result.entries] == [
        (
            11,
            "retargeted",
            "cup.kernels -> cup.fastk at line 11; import cup.fastk added after line 4",
        ),
        (
            4,
            "by hand",
            "`import cup.kernels` breaks at 2.0: no module cup.kernels there: rewrite it by hand",
        ),
    ]
    assert result.diff == KEPT_DIFF


def test_a_dropped_alias_is_imported_from_where_it_came(tmp_path: Path, monkeypatch) -> None:
    """1.0's ``cup.util`` imported ``InputBatch as Batch`` from ``cup.batch``; 2.0's dropped
    the alias but ``cup.batch`` still defines the class: the import goes there, under the
    name the file uses."""
    result = _port(tmp_path, monkeypatch, {"patch_alias.py": ALIAS})
    assert [(e.action, e.detail) for e in result.entries if e.decision == "import"] == [
        (
            "retargeted",
            "from cup.util import Batch -> from cup.batch import InputBatch as Batch at line 5 "
            "(cup.util has no Batch at 2.0)",
        )
    ]
    assert "-from cup.util import Batch\n+from cup.batch import InputBatch as Batch\n" in (
        result.diff
    )
