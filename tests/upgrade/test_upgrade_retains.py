"""What ``upgrade`` leaves for a person lists the suggestions that need judging one by one
and the runtime entries the runtime audit found nothing to change in (suggested *retain*,
verdict *retain*) in one line: each still needs accepting (``report --check`` asks for it), none needs thought,
and on a real plugin they were two hundred lines hiding the rest. ``--json`` lists each (test_upgrade_mixed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mixed_downstream import mixed_downstream
from upgrade_support import make_checkout


@pytest.fixture
def plugin(tmp_path: Path, private_cache: Path) -> Path:
    return mixed_downstream(tmp_path / "work")


def test_retained_runtime_entries_are_counted_in_one_line(cli, plugin: Path) -> None:
    make_checkout(plugin)
    run = cli("upgrade", "--to", "../upstream-2.0", "--branch", "up", cwd=plugin)
    assert run.code == 1, run.err
    lines = run.out.splitlines()
    start = next(i for i, line in enumerate(lines) if ". suggestions to review" in line)
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith("   "))
    assert lines[start + 1 : end] == [
        "   - series registry-ascend.patch: update (verdict: conflict)",
        "   - series sampler-tie.patch: carry (verdict: clean)",
        "   - runtime metaplug/patch/bugfix/fix_disabled.py::tinyup.sampler.sample: remove "
        "(verdict: remove)",
        "   - runtime metaplug/patch/bugfix/fix_scheduler.py::tinyup.scheduler.Scheduler.schedule"
        ": update (verdict: update)",
        "   - runtime metaplug/patch/bugfix/fix_scheduler.py::tinyup.scheduler.Scheduler.create: "
        "update (verdict: update)",
        "   - runtime metaplug/patch/performance/kernels.py::tinyup.kernels.add_kernel: update "
        "(verdict: update)",
        "   - runtime: retain for 3 entries the runtime audit found nothing to change in "
        "(verdict: retain): accept them",
    ]
