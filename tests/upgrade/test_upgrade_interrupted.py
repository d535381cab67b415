"""An upgrade cut short is resumed by ``--continue`` at the step it was in: a Ctrl-C right
after ``decide`` wrote the decisions file, before the upgrade recorded the step, leaves the
state saying so; ``--continue`` runs ``decide`` again (it keeps every table), commits the
file the interrupted run wrote, and goes on to the port's conflict."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from upgrade_support import committed_files, ctrl_c, git, make_checkout, subjects

from helpers import Example
from patchkeeper.commands import decide
from patchkeeper.commands.upgrade import STEPS
from patchkeeper.config import load_config
from patchkeeper.errors import Interrupted
from patchkeeper.upgrade.request import UpgradeRequest
from patchkeeper.upgrade.run import upgrade


def interrupted_decide(config: Any) -> Any:
    """The real ``decide``, then a Ctrl-C before the upgrade records it."""
    decide.run(config)
    raise KeyboardInterrupt


def test_continue_after_a_ctrl_c_in_a_step(cli, example: Example, monkeypatch) -> None:
    down = example.downstream
    base = make_checkout(down)
    monkeypatch.chdir(down)
    config = load_config(down / "patchkeeper.toml")
    steps = replace(STEPS, decide=interrupted_decide)
    with pytest.raises(Interrupted) as caught:
        upgrade(config, steps, UpgradeRequest(to="../upstream/minihttp-1.1", branch="up"))
    assert (caught.value.message, caught.value.hint) == (
        "interrupted",
        "run 'patchkeeper upgrade --continue' (the upgrade stopped at its decide step), or "
        "'patchkeeper upgrade --abort' to put the downstream back",
    )
    state = down / ".git" / "patchkeeper-upgrade"
    assert json.loads((state / "running.json").read_text())["step"] == "decide"
    assert subjects(down, base) == ["upgrade: audit the series against 1.1"]
    assert git(down, "status", "--porcelain") == "?? patchkeeper-decisions.toml"
    run = cli("upgrade", "--continue", "--json", cwd=down)
    assert run.code == 1, run.err
    data = json.loads(run.out)
    decided = data["steps"][2]
    assert (decided["status"], decided["summary"], decided["files"]) == (
        "done",
        "0 tables added, 7 kept",
        ["patchkeeper-decisions.toml"],
    )
    assert committed_files(down, decided["commit"]) == ["patchkeeper-decisions.toml"]
    assert len(data["suggestions"]) == 7
    assert subjects(down, base) == [
        "upgrade: audit the series against 1.1",
        "upgrade: suggest decisions from the evidence",
        "upgrade: port the series to 1.1 (stopped at a conflict)",
        "upgrade: write the audit record (the port stopped)",
    ]
    assert not (state / "running.json").exists()


def test_continue_after_a_ctrl_c_while_the_port_writes_its_conflict(
    cli, example: Example, monkeypatch
) -> None:
    """The port's work directory has ``state.json`` but not yet the conflict: ``--continue``
    goes on with the port (it replays to the same stop), as the state's docs promise."""
    from patchkeeper.port import workdir

    down = example.downstream
    make_checkout(down)
    real = workdir._write

    def write(path: Any, data: bytes) -> None:
        if "conflict.part" in path.parts:
            raise KeyboardInterrupt
        real(path, data)

    monkeypatch.setattr(workdir, "_write", write)
    assert (
        cli("upgrade", "--to", "../upstream/minihttp-1.1", "--branch", "up", cwd=down).code == 130
    )
    assert (down / ".patchkeeper-port" / "state.json").is_file()
    monkeypatch.undo()
    run = cli("upgrade", "--continue", "--json", cwd=down)
    assert run.code == 1, run.err
    port = json.loads(run.out)["steps"][4]
    assert (port["status"], port["summary"]) == (
        "stopped",
        "stopped at redirect-strip-proxy-auth.patch; 1 upstreamed, 1 conflict, 5 pending",
    )
    files = down / ".patchkeeper-port" / "conflict" / "files"
    assert sorted(p.name for p in files.iterdir()) == ["retry.py"]


def _cut_short_before_the_branch(example: Example, monkeypatch) -> tuple[Any, str]:
    """The checkout as a Ctrl-C leaves it after the upgrade's state names its branch and
    before git created it: the state kept, ``main`` still checked out, no branch ``up``."""
    down = example.downstream
    base = make_checkout(down)
    monkeypatch.chdir(down)
    config = load_config(down / "patchkeeper.toml")
    with pytest.raises(Interrupted):
        upgrade(
            config,
            replace(STEPS, audit=ctrl_c),
            UpgradeRequest(to="../upstream/minihttp-1.1", branch="up"),
        )
    git(down, "checkout", "-q", "main")
    git(down, "branch", "-q", "-D", "up")
    return down, base


def test_continue_creates_the_branch_a_ctrl_c_left_uncreated(
    cli, example: Example, monkeypatch
) -> None:
    down, base = _cut_short_before_the_branch(example, monkeypatch)
    run = cli("upgrade", "--continue", cwd=down)
    assert run.code == 1, run.err
    assert git(down, "branch", "--show-current") == "up"
    assert subjects(down, base) == [
        "upgrade: audit the series against 1.1",
        "upgrade: suggest decisions from the evidence",
        "upgrade: port the series to 1.1 (stopped at a conflict)",
        "upgrade: write the audit record (the port stopped)",
    ]


def test_abort_after_a_ctrl_c_before_the_branch(cli, example: Example, monkeypatch) -> None:
    down, base = _cut_short_before_the_branch(example, monkeypatch)
    run = cli("upgrade", "--abort", cwd=down)
    assert run.code == 0, run.err
    assert (git(down, "branch", "--show-current"), git(down, "rev-parse", "HEAD")) == (
        "main",
        base,
    )
    assert (git(down, "branch", "--list", "up"), git(down, "status", "--porcelain")) == ("", "")
    assert not (down / ".git" / "patchkeeper-upgrade").exists()


def test_a_ctrl_c_in_a_step_says_how_to_go_on(cli, example: Example, monkeypatch) -> None:
    """The state of an upgrade cut short stays: the message says to continue or abort it,
    where a bare "interrupted" left the next 'upgrade --to' to find it "already in
    progress"."""
    down = example.downstream
    make_checkout(down)
    monkeypatch.setattr("patchkeeper.commands.upgrade.STEPS", replace(STEPS, decide=ctrl_c))
    run = cli("upgrade", "--to", "../upstream/minihttp-1.1", cwd=down)
    assert (run.code, run.err) == (
        130,
        "patchkeeper: error: interrupted\n"
        "  hint: run 'patchkeeper upgrade --continue' (the upgrade stopped at its decide "
        "step), or 'patchkeeper upgrade --abort' to put the downstream back\n",
    )
    monkeypatch.undo()
    assert cli("upgrade", "--continue", cwd=down).code == 1


def test_a_ctrl_c_after_the_port_stopped_names_its_conflict_first(
    cli, example: Example, monkeypatch
) -> None:
    """A Ctrl-C in the record's step once the port has stopped at a conflict: the interrupted
    run prints no list of what is left, and its hint said only to continue, which then refused
    the conflict's markers. The hint names the conflict to resolve first."""
    down = example.downstream
    make_checkout(down)
    monkeypatch.chdir(down)
    config = load_config(down / "patchkeeper.toml")
    with pytest.raises(Interrupted) as caught:
        upgrade(
            config,
            replace(STEPS, report=ctrl_c),
            UpgradeRequest(to="../upstream/minihttp-1.1", branch="up"),
        )
    assert caught.value.hint == (
        "the port is stopped at a conflict: resolve it in .patchkeeper-port/conflict/files (see "
        ".patchkeeper-port/conflict/INSTRUCTIONS.md); then run 'patchkeeper upgrade --continue' "
        "(the upgrade stopped at its report step), or 'patchkeeper upgrade --abort' to put the "
        "downstream back"
    )
    run = cli("upgrade", "--continue", cwd=down)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {down / '.patchkeeper-port/conflict/files/retry.py'}:11: conflict "
        "markers are left in this file",
    )


def test_a_ctrl_c_before_the_first_step_says_how_to_go_on(
    cli, example: Example, monkeypatch
) -> None:
    """A Ctrl-C after the upgrade saved its state and before its first step (while git
    creates the branch) leaves an upgrade in progress: the message says to continue or
    abort it, as for a Ctrl-C in a step; it said only "interrupted"."""
    down = example.downstream
    base = make_checkout(down)
    monkeypatch.setattr("patchkeeper.upgrade.run.create_branch", ctrl_c)
    run = cli("upgrade", "--to", "../upstream/minihttp-1.1", "--branch", "up", cwd=down)
    assert (run.code, run.err) == (
        130,
        "patchkeeper: error: interrupted\n"
        "  hint: run 'patchkeeper upgrade --continue' (the upgrade stopped before its first "
        "step), or 'patchkeeper upgrade --abort' to put the downstream back\n",
    )
    assert (down / ".git" / "patchkeeper-upgrade" / "state.json").is_file()
    monkeypatch.undo()
    run = cli("upgrade", "--abort", cwd=down)
    assert run.code == 0, run.err
    assert (git(down, "branch", "--show-current"), git(down, "rev-parse", "HEAD")) == (
        "main",
        base,
    )
    assert git(down, "status", "--porcelain") == ""
    assert not (down / ".git" / "patchkeeper-upgrade").exists()
