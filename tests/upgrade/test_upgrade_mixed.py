"""``upgrade`` of a downstream that carries a series and runtime patches: the plugin's
patches are audited and ported (``runtime port --write``) and the series ported, each step
one commit; the port's conflict stops it, ``--continue`` finishes, the new series verifies on
the new release, and the runtime merge's conflict markers are left for a person."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from mixed_downstream import RESOLVED, mixed_downstream
from upgrade_support import committed_files, git, make_checkout, resolve, subjects, tracked_tree

RUNTIME_FILES = [
    "metaplug/patch/bugfix/fix_sampler.py",
    "metaplug/patch/bugfix/fix_scheduler.py",
    "metaplug/patch/performance/kernels.py",
]
AT_THE_STOP = [
    "upgrade: audit the series against 2.0",
    "upgrade: audit the runtime patches against 2.0",
    "upgrade: suggest decisions from the evidence",
    "upgrade: port the runtime patches to 2.0",
    "upgrade: port the series to 2.0 (stopped at a conflict)",
    "upgrade: write the audit record (the port stopped)",
]
RECORD = [".patchkeeper/evidence/environment.json", "AUDIT.md"]
RUNTIME_CONFLICT = {
    "kind": "runtime",
    "name": "tinyup.scheduler.Scheduler.schedule",
    "files": ["metaplug/patch/bugfix/fix_scheduler.py"],
    "hint": "2 conflict region(s) marked in the copy at line 11: keep what the plugin needs "
    "of both sides and remove the markers",
}


@pytest.fixture
def plugin(tmp_path: Path, private_cache: Path) -> Path:
    return mixed_downstream(tmp_path / "work")


def _steps(data: dict) -> list[tuple[str, str, list[str], str | None]]:
    return [(s["name"], s["status"], s["files"], s["subject"]) for s in data["steps"]]


def test_series_and_runtime_upgrade_to_the_end(cli, plugin: Path) -> None:
    base = make_checkout(plugin)
    run = cli("upgrade", "--to", "../upstream-2.0", "--branch", "up", "--json", cwd=plugin)
    assert run.code == 1, run.err
    data = json.loads(run.out)
    assert _steps(data) == [
        ("audit", "done", [".patchkeeper/evidence/audit.json"], AT_THE_STOP[0]),
        ("runtime audit", "done", [".patchkeeper/evidence/runtime-audit.json"], AT_THE_STOP[1]),
        ("decide", "done", ["patchkeeper-decisions.toml"], AT_THE_STOP[2]),
        ("runtime port", "done", RUNTIME_FILES, AT_THE_STOP[3]),
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
    run = cli("upgrade", "--continue", "--json", cwd=plugin)
    data = json.loads(run.out)
    # done, but the runtime merge's markers wait for a person: exit 1
    assert (run.code, data["outcome"], data["conflicts"]) == (1, "done", [RUNTIME_CONFLICT])
    assert _steps(data)[4:] == [
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
    assert subjects(plugin, base) == [
        *AT_THE_STOP,
        "upgrade: port the series to 2.0",
        "upgrade: write the audit record",
    ]
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

    run = cli("upgrade", "--continue", "--json", cwd=plugin)

    assert (run.code, json.loads(run.out)["undecided"]) == (1, [])
