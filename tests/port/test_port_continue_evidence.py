"""A ``port --continue`` keeps the evidence of the port it finishes: the new upstream and the
release the series was carried from (``--to`` and ``--from``), as the ``port`` that started
it recorded them, so that the audit record's environment names both trees whichever run
saved the evidence last. ``--continue`` takes neither option: they come from the port's
work directory, read before the finished port removes it.

The downstream is the bundled example committed to a git checkout (a port is most often run
in one), ported from its configured pristine tree (no ``--from``) to minihttp 1.1."""

from __future__ import annotations

from typing import Any

from port_support import API_KEY, PROXY, resolve, work_files

from helpers import Example, make_checkout
from patchkeeper.commands.port import run
from patchkeeper.config import load_config
from patchkeeper.port.request import PortRequest
from patchkeeper.record import evidence_store
from patchkeeper.record.build import environment_sources
from patchkeeper.record.settings import report_settings


def _checkout(example: Example) -> None:
    down = example.downstream
    make_checkout(down)


def _argv(example: Example) -> tuple[str, ...]:
    stored = evidence_store.load(load_config(start=example.downstream), "port")
    assert stored is not None
    return stored.argv


def test_a_continued_port_names_the_trees_the_port_started_with(cli: Any, example: Example) -> None:
    _checkout(example)
    down = example.downstream
    new, old = str(example.new), str(example.old)

    first = cli("port", "--to", "../upstream/minihttp-1.1", "--save-evidence", cwd=down)
    assert first.code == 1
    assert _argv(example) == (
        "port", "--to", "../upstream/minihttp-1.1", "--save-evidence", "--from", old,
    )  # fmt: skip

    resolve(work_files(example) / "retry.py", PROXY)
    assert cli("port", "--continue", "--save-evidence", cwd=down).code == 1
    assert _argv(example) == ("port", "--continue", "--save-evidence", "--to", new, "--from", old)

    resolve(work_files(example) / "retry.py", API_KEY)
    assert cli("port", "--continue", "--save-evidence", cwd=down).code == 0
    assert _argv(example) == ("port", "--continue", "--save-evidence", "--to", new, "--from", old)
    assert not (down / ".patchkeeper-port").exists()

    # the record's environment lists the base and the target of the finished port
    config = load_config(start=down)
    sources = environment_sources(config, report_settings(config), evidence_store.load_all(config))
    assert [(s.role, s.location) for s in sources if s.role != "downstream"] == [
        ("pin, port base", old),
        ("port target", new),
    ]


def test_a_continued_port_run_from_python_names_the_same_trees(cli: Any, example: Example) -> None:
    """``upgrade``'s port step goes on with ``run(config, PortRequest(action="continue"))``,
    no command line given: the evidence is the command line that asks for it, with both
    trees."""
    _checkout(example)
    down = example.downstream
    config = load_config(start=down)
    assert run(config, PortRequest(to=str(example.new)), save_evidence=True).outcome == "stopped"
    resolve(work_files(example) / "retry.py", PROXY)

    result = run(config, PortRequest(action="continue"), save_evidence=True)

    assert (result.outcome, result.stopped_at) == ("stopped", "redirect-strip-api-key.patch")
    assert _argv(example) == (
        "port", "--continue", "--to", str(example.new), "--from", str(example.old),
    )  # fmt: skip
