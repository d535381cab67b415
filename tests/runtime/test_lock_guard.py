"""``runtime lock`` and ``patchkeeper.guard.check`` on the fixture plugin and its upstreams."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from patchkeeper.config import load_config
from patchkeeper.guard import Difference, GuardError, GuardWarning, check, differences
from patchkeeper.runtime import lock


def _lock(work: Path) -> Path:
    plugin = work / "plugin"
    result = lock.write_lock(load_config(plugin / "pyproject.toml"), at=str(work / "upstream-1.0"))
    assert (result.target_count, result.file_count) == (6, 4)
    assert result.skipped == (("tinyup.kernels.sub_kernel", "removed"),)
    assert result.path == str(plugin / "metaplug/patch/patchkeeper.lock")
    return Path(result.path)


def test_lock_records_definitions_and_files(runtime_trees: Path) -> None:
    data = json.loads(_lock(runtime_trees).read_text(encoding="utf-8"))
    assert (data["format"], data["package"]) == (1, "tinyup")
    assert sorted(data["files"]) == [
        "tinyup/kernels.py",
        "tinyup/registry.py",
        "tinyup/sampler.py",
        "tinyup/scheduler.py",
    ]
    create = data["files"]["tinyup/scheduler.py"]["targets"]["tinyup.scheduler.Scheduler.create"]
    assert create["qualname"] == "Scheduler.create"
    assert len(create["sha256"]) == 64
    assert not (runtime_trees / "plugin" / ".patchkeeper" / "journal").exists()


def test_guard_silent_on_the_audited_upstream(runtime_trees: Path) -> None:
    path = _lock(runtime_trees)
    assert check(path, strict=True, root=str(runtime_trees / "upstream-1.0")) == []


def test_guard_names_every_changed_target(runtime_trees: Path) -> None:
    path = _lock(runtime_trees)
    found = differences(path, root=str(runtime_trees / "upstream-2.0"))
    assert found == [
        Difference("tinyup.kernels.add_kernel", "tinyup/kernels.py is missing"),
        Difference("tinyup.registry.BACKENDS", "BACKENDS in tinyup/registry.py changed"),
        Difference(
            "tinyup.scheduler.Scheduler.create", "Scheduler.create in tinyup/scheduler.py changed"
        ),
        Difference(
            "tinyup.scheduler.Scheduler.make", "Scheduler.make in tinyup/scheduler.py changed"
        ),
        Difference(
            "tinyup.scheduler.Scheduler.schedule",
            "Scheduler.schedule in tinyup/scheduler.py changed",
        ),
    ]
    with pytest.warns(GuardWarning, match=r"^5 patched upstream target\(s\) differ"):
        check(path, root=str(runtime_trees / "upstream-2.0"))
    with pytest.raises(
        GuardError, match=r"tinyup\.kernels\.add_kernel: tinyup/kernels\.py is missing"
    ):
        check(path, strict=True, root=str(runtime_trees / "upstream-2.0"))


def test_guard_ignores_changes_outside_the_locked_definitions(runtime_trees: Path) -> None:
    path = _lock(runtime_trees)
    scheduler = runtime_trees / "upstream-1.0" / "tinyup" / "scheduler.py"
    scheduler.write_text(scheduler.read_text() + "\n\nUNRELATED = 1\n")
    assert differences(path, root=str(runtime_trees / "upstream-1.0")) == []


def test_guard_refuses_a_file_that_is_not_a_lock(tmp_path: Path) -> None:
    bad = tmp_path / "x.lock"
    bad.write_text('{"format": 9}')
    with pytest.raises(GuardError, match=r"x.lock: not a patchkeeper lock file of format 1"):
        check(bad)


def test_guard_imports_only_the_standard_library(runtime_trees: Path) -> None:
    path = _lock(runtime_trees)
    code = (
        "import sys; before = set(sys.modules); import patchkeeper.guard as g; "
        f"g.check({str(path)!r}, strict=True, root={str(runtime_trees / 'upstream-1.0')!r}); "
        "new = sorted(m.split('.')[0] for m in set(sys.modules) - before); "
        "print(sorted(set(new) & {'click', 'rich', 'unidiff', 'unearth', 'packaging', 'tomli'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n"
