"""``upgrade`` of a downstream of runtime patches alone (the runtime tests' ``metaplug`` plugin
of ``tinyup``, 1.0 -> 2.0) whose ``runtime port`` merge leaves conflict markers in a plugin's
file: the upgrade stops at that step as it stops at the port's conflict, its state kept, so
``status`` names the next step, ``--continue`` refuses while a marker is left and finishes
the step (the pin moved) once they are resolved, and ``--abort`` puts the plugin back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from upgrade_support import (
    RUNTIME_ONLY_FIRST_STEPS,
    committed_files,
    ctrl_c_at_the_report,
    git,
    make_checkout,
    resolve,
    step_rows,
    subjects,
    tracked_tree,
)

FIXTURES = Path(__file__).resolve().parent.parent / "runtime" / "fixtures"
SCHEDULER = "metaplug/patch/bugfix/fix_scheduler.py"
PORTED = [
    "metaplug/patch/bugfix/fix_sampler.py",
    SCHEDULER,
    "metaplug/patch/performance/kernels.py",
]
RECORD = [".patchkeeper/evidence/environment.json", "AUDIT.md"]
#: The two conflict regions of the scheduler's copy, resolved: upstream's cap kept, with
#: the plugin's zero budget.
RESOLVED = (
    b'    """Return how many requests run (changed in 2.0: a cap)."""\n'
    b"    # /------------------------  MetaX Modification -------------------------\\\n"
    b"    if budget < 0:\n",
    b"    # \\-----------------------------------------------------------------------/\n"
    b"    return min(budget, 64)\n",
)
THEN = "then run 'patchkeeper upgrade --continue' (or 'patchkeeper upgrade --abort')"
CONFLICT = {
    "kind": "runtime",
    "name": "tinyup.scheduler.Scheduler.schedule",
    "files": [SCHEDULER],
    "hint": "2 conflict region(s) marked in the copy at line 11 (the first marker at line "
    f"13): keep what the plugin needs of both sides and remove the markers, {THEN}",
}


@pytest.fixture
def plugin(tmp_path: Path, private_cache: Path) -> Path:
    shutil.copytree(FIXTURES, tmp_path / "work")
    plugin = tmp_path / "work" / "plugin"
    pyproject = plugin / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            'upstream = "tinyup"\n',
            'upstream = "tinyup"\npin = "1.0"\npristine = "../upstream-1.0"\n',
            1,
        )
    )
    return plugin


def test_a_runtime_merge_conflict_stops_the_upgrade_until_it_is_resolved(cli, plugin: Path) -> None:
    """The upgrade ended "done" (exit 1) with the markers in the plugin and no state: there
    was no ``--continue`` to finish it with, ``status`` saw nothing waiting and the pin was
    moved over a plugin that Python cannot import."""
    base = make_checkout(plugin)
    state = plugin / ".git" / "patchkeeper-upgrade"

    run = cli("upgrade", "--to", "../upstream-2.0", "--branch", "up", "--json", cwd=plugin)

    assert run.code == 1, run.err
    data = json.loads(run.out)
    assert (data["outcome"], data["state_dir"], data["conflicts"]) == (
        "stopped",
        str(state),
        [CONFLICT],
    )
    assert step_rows(data) == [
        *RUNTIME_ONLY_FIRST_STEPS,
        (
            "runtime port",
            "stopped",
            PORTED,
            "upgrade: port the runtime patches to 2.0 (stopped at a conflict)",
        ),
        ("port", "skipped", [], None),
        ("report", "done", RECORD, "upgrade: write the audit record (the runtime port stopped)"),
    ]
    assert data["steps"][3]["summary"] == (
        "8 entries (and 1 import), 6 changed or left by hand; 3 files written; stopped at conflict markers "
        f"in {SCHEDULER}: the pin moves once they are resolved"
    )
    assert 'pin = "1.0"\n' in (plugin / "pyproject.toml").read_text()
    assert git(plugin, "status", "--porcelain", "--untracked-files=all") == ""

    status = cli("status", cwd=plugin)
    assert (status.code, status.out) == (2, "")
    assert status.err.endswith(
        "  hint: an upgrade to 2.0 is in progress here, stopped at the runtime port's "
        "conflict: the next step is 'patchkeeper upgrade --continue' (or 'patchkeeper "
        "upgrade --abort' to put the downstream back)\n"
    )

    refused = cli("upgrade", "--continue", cwd=plugin)
    assert (refused.code, refused.out) == (2, "")
    assert refused.err == (
        f"patchkeeper: error: {plugin / SCHEDULER}:13: conflict markers are left in this file\n"
        "  hint: keep what the plugin needs of both sides and remove the markers, "
        f"{THEN}\n"
    )
    assert state.is_dir()

    resolve(plugin / SCHEDULER, *RESOLVED)
    run = cli("upgrade", "--continue", "--json", cwd=plugin)

    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert (data["outcome"], data["state_dir"], data["conflicts"]) == ("done", None, [])
    assert step_rows(data)[3:] == [
        (
            "runtime port",
            "done",
            [*PORTED, "pyproject.toml"],
            "upgrade: port the runtime patches to 2.0",
        ),
        ("port", "skipped", [], None),
        ("report", "done", RECORD, "upgrade: write the audit record"),
    ]
    assert data["steps"][3]["summary"] == (
        "8 entries (and 1 import), 6 changed or left by hand; 3 files written; conflict markers resolved in "
        f'{SCHEDULER}; set pin = "2.0", pristine = "../upstream-2.0" in pyproject.toml'
    )
    assert data["edited"] == []
    assert subjects(plugin, base) == [
        "upgrade: audit the runtime patches against 2.0",
        "upgrade: suggest decisions from the evidence",
        "upgrade: port the runtime patches to 2.0 (stopped at a conflict)",
        "upgrade: write the audit record (the runtime port stopped)",
        "upgrade: port the runtime patches to 2.0",
        "upgrade: write the audit record",
    ]
    # the resolution is the runtime port's, committed with the pin it then moved
    assert committed_files(plugin, "HEAD~1") == [
        "metaplug/patch/bugfix/fix_scheduler.py",
        "pyproject.toml",
    ]
    assert git(plugin, "status", "--porcelain", "--untracked-files=all") == ""
    assert not state.exists()
    assert 'pin = "2.0"\n' in (plugin / "pyproject.toml").read_text()


def test_abort_at_the_runtime_conflict_puts_the_plugin_back(cli, plugin: Path) -> None:
    base = make_checkout(plugin)
    before = tracked_tree(plugin)
    run = cli("upgrade", "--to", "../upstream-2.0", "--branch", "up", cwd=plugin)
    assert run.code == 1, run.err
    stop = run.out[run.out.index("stopped at the") : run.out.index("2. look")]
    assert stop.splitlines() == [
        "stopped at the runtime port's conflict; state in "
        f"{plugin / '.git' / 'patchkeeper-upgrade'}",
        "left for a person:",
        "1. conflicts to resolve:",
        f"   - runtime tinyup.scheduler.Scheduler.schedule: {SCHEDULER}",
        f"     {CONFLICT['hint']}",
    ]

    run = cli("upgrade", "--abort", cwd=plugin)

    assert (run.code, run.out, run.err) == (
        0,
        f"aborted the upgrade of {plugin} to 2.0\nback on main; branch up deleted\n",
        "",
    )
    assert (git(plugin, "rev-parse", "HEAD"), tracked_tree(plugin)) == (base, before)
    assert not (plugin / ".git" / "patchkeeper-upgrade").exists()


def test_a_ctrl_c_after_the_runtime_port_stopped_names_its_markers(
    cli, plugin: Path, monkeypatch
) -> None:
    """A Ctrl-C in the record's step once the runtime port has stopped at conflict markers:
    the interrupted run prints no list of what is left, and its hint said only to continue,
    which then refused the markers. The hint names each file and its first marker's line."""
    assert ctrl_c_at_the_report(plugin, monkeypatch).hint == (
        f"the runtime port is stopped at conflict markers in {SCHEDULER}:13: keep what the "
        "plugin needs of both sides and remove the markers; then run 'patchkeeper upgrade "
        "--continue' (the upgrade stopped at its report step), or 'patchkeeper upgrade "
        "--abort' to put the downstream back"
    )
    run = cli("upgrade", "--continue", cwd=plugin)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {plugin / SCHEDULER}:13: conflict markers are left in this file",
    )


def test_an_edit_while_the_runtime_port_waits_is_told_at_that_step(cli, plugin: Path) -> None:
    """A file a person changed while the upgrade waited at the runtime port's markers is
    committed on its own and shown under the step it waited at, not under the series
    port (which a downstream without a series does not run)."""
    make_checkout(plugin)
    assert cli("upgrade", "--to", "../upstream-2.0", "--branch", "up", cwd=plugin).code == 1
    disabled = plugin / "metaplug" / "patch" / "bugfix" / "fix_disabled.py"
    disabled.write_text(disabled.read_text() + "# reviewed for 2.0\n")
    resolve(plugin / SCHEDULER, *RESOLVED)

    run = cli("upgrade", "--continue", "--json", cwd=plugin)

    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert [(e["files"], e["before"], e["subject"]) for e in data["edited"]] == [
        (
            ["metaplug/patch/bugfix/fix_disabled.py"],
            "runtime port",
            "upgrade: edits made by hand while the upgrade waited",
        )
    ]
    body = git(plugin, "log", "-1", "--format=%b", "HEAD~2")
    assert body.startswith(
        "The files a person changed while the upgrade waited at its runtime port step"
    )
