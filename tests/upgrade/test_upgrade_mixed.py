"""``upgrade`` of a downstream that carries a series and runtime patches: the plugin's
patches are audited and ported (``runtime port --write``) and the series ported, each step
one commit; the port's conflict and the runtime merge's conflict markers stop it, its state
kept, ``--continue`` refuses while a marker is left and then finishes, and the new series
verifies on the new release."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from mixed_downstream import RESOLVED, SCHEDULER, SCHEDULER_RESOLVED, mixed_downstream
from upgrade_support import (
    committed_files,
    continued_to_the_end,
    ctrl_c_at_the_report,
    git,
    make_checkout,
    resolve,
    step_rows,
    subjects,
    tracked_tree,
)

RUNTIME_FILES = [
    "metaplug/patch/bugfix/fix_sampler.py",
    "metaplug/patch/bugfix/fix_scheduler.py",
    "metaplug/patch/performance/kernels.py",
]
AT_THE_STOP = [
    "upgrade: audit the series against 2.0",
    "upgrade: audit the runtime patches against 2.0",
    "upgrade: suggest decisions from the evidence",
    "upgrade: port the runtime patches to 2.0 (stopped at a conflict)",
    "upgrade: port the series to 2.0 (stopped at a conflict)",
    "upgrade: write the audit record (the runtime port and the port stopped)",
]
RECORD = [".patchkeeper/evidence/environment.json", "AUDIT.md"]
RUNTIME_CONFLICT = {
    "kind": "runtime",
    "name": "tinyup.scheduler.Scheduler.schedule",
    "files": ["metaplug/patch/bugfix/fix_scheduler.py"],
    "hint": "2 conflict region(s) marked in the copy at line 11 (the first marker at line 13): "
    "keep what the plugin needs of both sides and remove the markers, then run 'patchkeeper "
    "upgrade --continue' (or 'patchkeeper upgrade --abort')",
}
REFUSED = (
    "conflict markers are left in this file\n"
    "  hint: keep what the plugin needs of both sides and remove the markers, then run "
    "'patchkeeper upgrade --continue' (or 'patchkeeper upgrade --abort')\n"
)


@pytest.fixture
def plugin(tmp_path: Path, private_cache: Path) -> Path:
    return mixed_downstream(tmp_path / "work")


def test_series_and_runtime_upgrade_to_the_end(cli, plugin: Path) -> None:
    base = make_checkout(plugin)
    run = cli("upgrade", "--to", "../upstream-2.0", "--branch", "up", "--json", cwd=plugin)
    assert run.code == 1, run.err
    data = json.loads(run.out)
    assert step_rows(data) == [
        ("audit", "done", [".patchkeeper/evidence/audit.json"], AT_THE_STOP[0]),
        ("runtime audit", "done", [".patchkeeper/evidence/runtime-audit.json"], AT_THE_STOP[1]),
        ("decide", "done", ["patchkeeper-decisions.toml"], AT_THE_STOP[2]),
        ("runtime port", "stopped", RUNTIME_FILES, AT_THE_STOP[3]),
        ("port", "stopped", [".patchkeeper/evidence/port.json"], AT_THE_STOP[4]),
        ("report", "done", RECORD, AT_THE_STOP[5]),
    ]
    assert subjects(plugin, base) == AT_THE_STOP
    assert committed_files(plugin, "HEAD~2") == RUNTIME_FILES
    assert data["conflicts"] == [
        {
            "kind": "series",
            "name": "registry-ascend.patch",
            "files": [".patchkeeper-port/conflict/files/tinyup/registry.py"],
            "hint": "edit them to what the patch should make of the new pin (see "
            ".patchkeeper-port/conflict/INSTRUCTIONS.md), then run 'patchkeeper upgrade "
            "--continue' (or 'patchkeeper upgrade --abort')",
        },
        RUNTIME_CONFLICT,
    ]
    assert [(s["kind"], s["decision"]) for s in data["suggestions"]] == [
        ("series", "update"),
        ("series", "carry"),
        ("runtime", "remove"),
        ("runtime", "retain"),
        ("runtime", "update"),
        ("runtime", "retain"),
        ("runtime", "update"),
        # BACKENDS['npu']: upstream added the key with a value of its own (look: no suggestion)
        ("runtime", "update"),
        ("runtime", "retain"),
    ]
    assert data["verify"][2] == (
        "patchkeeper runtime check --python PYTHON  # PYTHON: an environment with the plugin "
        f"and {plugin.parent / 'upstream-2.0'} installed"
    )
    scheduler = (plugin / RUNTIME_FILES[1]).read_text()
    assert scheduler.count("<<<<<<< upstream 2.0\n") == 2
    resolve(plugin / ".patchkeeper-port/conflict/files/tinyup/registry.py", RESOLVED)
    # the runtime merge's markers are left: the upgrade stays where it is
    refused = cli("upgrade", "--continue", cwd=plugin)
    assert (refused.code, refused.out, refused.err) == (
        2,
        "",
        f"patchkeeper: error: {plugin / SCHEDULER}:13: {REFUSED}",
    )
    assert subjects(plugin, base) == AT_THE_STOP
    resolve(plugin / SCHEDULER, *SCHEDULER_RESOLVED)
    data = continued_to_the_end(cli, plugin)
    assert step_rows(data)[3:] == [
        ("runtime port", "done", RUNTIME_FILES, "upgrade: port the runtime patches to 2.0"),
        (
            "port",
            "done",
            [
                ".patchkeeper/evidence/port.json",
                "patches/registry-ascend.patch",
                "patches/sampler-tie.patch",
                "patchkeeper-decisions.toml",  # the resolved patch's suggestion: carry
                "pyproject.toml",
            ],
            "upgrade: port the series to 2.0",
        ),
        ("report", "done", RECORD, "upgrade: write the audit record"),
    ]
    assert data["steps"][3]["summary"] == (
        "8 entries (and 1 import), 6 changed or left by hand; 3 files written; conflict markers resolved in "
        f"{SCHEDULER}"
    )
    assert subjects(plugin, base) == [
        *AT_THE_STOP,
        "upgrade: port the runtime patches to 2.0",
        "upgrade: port the series to 2.0",
        "upgrade: write the audit record",
    ]
    # the resolution is the runtime port's; the pin moved with the series
    assert committed_files(plugin, "HEAD~2") == [SCHEDULER]
    assert git(plugin, "status", "--porcelain", "--untracked-files=all") == ""
    copy = plugin.parent / "COPY"
    shutil.copytree(plugin.parent / "upstream-2.0", copy)
    assert cli("apply", "--target", str(copy), cwd=plugin).code == 0
    assert (copy / "tinyup" / "registry.py").read_bytes() == RESOLVED
    run = cli("verify", "--target", str(copy), cwd=plugin)
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        "ok: 2 of 2 patches applied, 0 files drifted",
    )


def test_abort_puts_the_plugin_back(cli, plugin: Path) -> None:
    base = make_checkout(plugin)
    before = tracked_tree(plugin)
    assert cli("upgrade", "--to", "../upstream-2.0", "--branch", "up", cwd=plugin).code == 1
    run = cli("upgrade", "--abort", cwd=plugin)
    assert (run.code, run.out) == (
        0,
        f"aborted the upgrade of {plugin} to 2.0\nback on main; branch up deleted\n",
    )
    assert (git(plugin, "rev-parse", "HEAD"), tracked_tree(plugin)) == (base, before)


def test_an_entry_to_look_at_decided_while_stopped_is_not_listed_again(cli, plugin: Path) -> None:
    """The runtime entry the audit answers *look* for is listed for a person, who decides it
    in the decisions file while the upgrade waits at the series conflict; the
    ``--continue`` after it listed it as still to look at."""
    make_checkout(plugin)
    run = cli("upgrade", "--to", "../upstream-2.0", "--branch", "up", "--json", cwd=plugin)
    (look,) = json.loads(run.out)["undecided"]
    assert (look["kind"], look["verdict"]) == ("runtime", "look")
    decisions = plugin / "patchkeeper-decisions.toml"
    head, table, tail = decisions.read_text().partition(f'[runtime."{look["key"]}"]\n')
    assert 'decision = ""\n' in tail
    tail = tail.replace('decision = ""\n', 'decision = "update"\n', 1)
    decisions.write_text(head + table + tail)
    resolve(plugin / ".patchkeeper-port/conflict/files/tinyup/registry.py", RESOLVED)
    resolve(plugin / SCHEDULER, *SCHEDULER_RESOLVED)

    run = cli("upgrade", "--continue", "--json", cwd=plugin)

    assert (run.code, json.loads(run.out)["undecided"]) == (0, [])


def test_runtime_markers_stop_the_upgrade_once_the_series_is_through(cli, plugin: Path) -> None:
    """The series ports cleanly, the runtime merge leaves markers: the upgrade ended "done"
    (exit 1) with no state, so ``--continue`` had nothing to resume and ``status`` saw
    nothing waiting. It stops at the runtime port, the pin moved with the series."""
    (plugin / "patches" / "series").write_text("sampler-tie.patch\n")
    base = make_checkout(plugin)
    state = plugin / ".git" / "patchkeeper-upgrade"

    run = cli("upgrade", "--to", "../upstream-2.0", "--branch", "up", cwd=plugin)

    assert run.code == 1, run.err
    stop = run.out[run.out.index("stopped at the") : run.out.index("2. ")]
    assert stop.splitlines() == [
        f"stopped at the runtime port's conflict; state in {state}",
        "left for a person:",
        "1. conflicts to resolve:",
        f"   - runtime tinyup.scheduler.Scheduler.schedule: {SCHEDULER}",
        f"     {RUNTIME_CONFLICT['hint']}",
    ]
    assert subjects(plugin, base) == [
        "upgrade: audit the series against 2.0",
        "upgrade: audit the runtime patches against 2.0",
        "upgrade: suggest decisions from the evidence",
        "upgrade: port the runtime patches to 2.0 (stopped at a conflict)",
        "upgrade: port the series to 2.0",
        "upgrade: write the audit record (the runtime port stopped)",
    ]
    assert 'pin = "2.0"\n' in (plugin / "pyproject.toml").read_text()
    status = cli("status", cwd=plugin)
    # the warning first; then status checks the plugin against 2.0, not installed here
    assert (status.code, status.err.splitlines()[0]) == (
        2,
        "patchkeeper: warning: an upgrade to 2.0 is in progress here, stopped at the runtime "
        "port's conflict: the next step is 'patchkeeper upgrade --continue' (or 'patchkeeper "
        "upgrade --abort' to put the downstream back)",
    )
    refused = cli("upgrade", "--continue", cwd=plugin)
    assert (refused.code, refused.out, refused.err) == (
        2,
        "",
        f"patchkeeper: error: {plugin / SCHEDULER}:13: {REFUSED}",
    )
    assert state.is_dir()

    resolve(plugin / SCHEDULER, *SCHEDULER_RESOLVED)
    data = continued_to_the_end(cli, plugin)
    assert step_rows(data)[3:] == [
        ("runtime port", "done", RUNTIME_FILES, "upgrade: port the runtime patches to 2.0"),
        (
            "port",
            "done",
            [
                ".patchkeeper/evidence/port.json",
                "patches/sampler-tie.patch",
                "pyproject.toml",
            ],
            "upgrade: port the series to 2.0",
        ),
        ("report", "done", RECORD, "upgrade: write the audit record"),
    ]
    assert subjects(plugin, base)[6:] == [
        "upgrade: port the runtime patches to 2.0",
        "upgrade: write the audit record",
    ]
    assert committed_files(plugin, "HEAD~1") == [SCHEDULER]
    assert git(plugin, "status", "--porcelain", "--untracked-files=all") == ""
    assert not state.exists()


def test_a_ctrl_c_after_both_ports_stopped_names_both(cli, plugin: Path, monkeypatch) -> None:
    """A Ctrl-C in the record's step with the runtime port stopped at its markers and the
    port at its conflict: the hint names both, in the order ``--continue`` refuses them."""
    assert ctrl_c_at_the_report(plugin, monkeypatch).hint == (
        f"the runtime port is stopped at conflict markers in {SCHEDULER}:13: keep what the "
        "plugin needs of both sides and remove the markers; the port is stopped at a "
        "conflict: resolve it in .patchkeeper-port/conflict/files (see "
        ".patchkeeper-port/conflict/INSTRUCTIONS.md); then run 'patchkeeper upgrade "
        "--continue' (the upgrade stopped at its report step), or 'patchkeeper upgrade "
        "--abort' to put the downstream back"
    )
