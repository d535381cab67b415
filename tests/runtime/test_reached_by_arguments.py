"""A function the plugin calls from two branches with different constant arguments (a
worker that installs ``target_full.install(native_dsa=True)`` when its parallel layout is
native, ``target_full.install()`` otherwise): an entry after the function's own test of
that parameter is reached by the call whose arguments pass the test, and its activation
names that call's branch, not the other one's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tinyplug import HEADER, copy_releases, versions, write_plugin

PATCH = (
    HEADER
    + """import os

import tinyup.engine


def _fixed_step(logits):
    return logits


def _native_step(logits):
    return logits


def install(*, native=False):
    if native:
        tinyup.engine.step = _native_step
        return
    tinyup.engine.step = _fixed_step


def setup(layout):
    if layout == "native":
        install(native=True)
    else:
        install()


setup(os.environ.get("PLUG_LAYOUT"))
"""
)


@pytest.mark.parametrize("command", ["inventory", "audit"])
def test_the_branch_of_the_call_whose_arguments_reach_the_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli, command: str
) -> None:
    base = copy_releases(tmp_path, monkeypatch)
    root = write_plugin(base, {"plug/patch/p_install.py": PATCH})
    options = versions(base) if command == "audit" else []
    run = cli("runtime", command, *options, "--json", cwd=root)
    entries = json.loads(run.out)["entries"]
    if command == "audit":
        entries = [a["entry"] for a in entries]
    assert [
        (
            e["line"],
            e["replacement"],
            e["activation"]["status"],
            [(c["kind"], c["text"], c["line"]) for c in e["activation"]["conditions"]],
        )
        for e in entries
    ] == [
        (
            19,
            "plug.patch.p_install:_native_step",
            "conditional",
            [("if", "layout == 'native'", 25), ("if", "native", 18)],
        ),
        (
            21,
            "plug.patch.p_install:_fixed_step",
            "conditional",
            [("else", "not (layout == 'native')", 25), ("else", "not (native)", 18)],
        ),
    ]
