"""A port cut short (Ctrl-C) while it writes its work directory is taken up again by
``port --continue``, and by ``upgrade --continue`` through it: the run had written
``state.json`` and the series' copy but not yet the conflict (or, on a ``--continue``, had
recorded the resolution but not yet written the next stop), and the replay with the
resolutions recorded so far stops where the whole run would have stopped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from port_support import API_KEY, CONFLICT_REGION, FINAL, PROXY, resolve, start, work_files

from helpers import Example
from patchkeeper.port import workdir


def interrupt_conflict_after(monkeypatch: pytest.MonkeyPatch, files: int) -> None:
    """The real writes of the port's work directory, with a Ctrl-C after ``files`` files of
    the stopped patch's conflict were written."""
    real = workdir._write
    written: list[Path] = []

    def write(path: Path, data: bytes) -> None:
        if "conflict.part" in path.parts or "conflict" in path.parts:
            if len(written) == files:
                raise KeyboardInterrupt
            written.append(path)
        real(path, data)

    monkeypatch.setattr(workdir, "_write", write)


def continued(cli: Any, example: Example) -> dict[str, Any]:
    run = cli("port", "--continue", "--json", cwd=example.downstream)
    assert run.code == 1, run.out + run.err
    data: dict[str, Any] = json.loads(run.out)
    return data


@pytest.mark.parametrize("files", [0, 2])
def test_continue_after_a_ctrl_c_before_the_first_conflict_was_written(
    cli: Any, example: Example, monkeypatch: pytest.MonkeyPatch, files: int
) -> None:
    interrupt_conflict_after(monkeypatch, files)
    assert start(cli, example).code == 130
    work = example.downstream / ".patchkeeper-port"
    assert (work / "state.json").is_file()
    assert not (work / "conflict").exists()
    monkeypatch.undo()
    data = continued(cli, example)
    assert (data["outcome"], data["stopped_at"]) == ("stopped", "redirect-strip-proxy-auth.patch")
    assert CONFLICT_REGION in (work_files(example) / "retry.py").read_bytes()
    assert (
        (work / "conflict" / "INSTRUCTIONS.md")
        .read_text()
        .startswith("# Port stopped at `redirect-strip-proxy-auth.patch`: conflict")
    )
    assert not (work / "conflict.part").exists()


def test_continue_after_a_ctrl_c_between_a_resolution_and_the_next_stop(
    cli: Any, example: Example, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert start(cli, example).code == 1
    resolve(work_files(example) / "retry.py", PROXY)
    interrupt_conflict_after(monkeypatch, 0)
    assert cli("port", "--continue", cwd=example.downstream).code == 130
    work = example.downstream / ".patchkeeper-port"
    assert sorted(p.name for p in (work / "resolved").iterdir()) == ["0000"]
    assert not (work / "conflict").exists()
    monkeypatch.undo()
    data = continued(cli, example)
    assert (data["outcome"], data["stopped_at"]) == ("stopped", "redirect-strip-api-key.patch")
    resolve(work_files(example) / "retry.py", API_KEY)
    run = cli("port", "--continue", "--json", cwd=example.downstream)
    assert run.code == 0, run.out + run.err
    final = json.loads(run.out)
    assert [(p["name"], p["verdict"]) for p in final["patches"]] == FINAL
    assert not work.exists()


def test_a_resolution_cut_short_is_not_read(
    cli: Any, example: Example, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert start(cli, example).code == 1
    resolve(work_files(example) / "retry.py", PROXY)
    real = workdir._write

    def write(path: Path, data: bytes) -> None:
        if path.name == workdir.MANIFEST and "resolved" in path.parts:
            raise KeyboardInterrupt
        real(path, data)

    monkeypatch.setattr(workdir, "_write", write)
    assert cli("port", "--continue", cwd=example.downstream).code == 130
    work = example.downstream / ".patchkeeper-port"
    assert sorted(p.name for p in (work / "resolved").iterdir()) == ["0000.part"]
    monkeypatch.undo()
    # the conflict still waits, resolved: the next --continue records it and goes on
    data = continued(cli, example)
    assert (data["outcome"], data["stopped_at"]) == ("stopped", "redirect-strip-api-key.patch")
    assert sorted(p.name for p in (work / "resolved").iterdir()) == ["0000"]
