"""``runtime audit`` and ``runtime port`` refuse ``--from`` and ``--to`` requirements that
name two different projects when no upstream is configured to catch either: before, the
audit warned that one project's release was "older" than the other's, then fetched both
and failed on the second as a tree without the upstream's package, naming a cache
directory the user never gave.

The plugin is written by the test in the shape of a real one (:mod:`tinyplug`), without
``upstream`` in its configuration; pip is isolated, so nothing can be fetched.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tinyplug import HEADER, PYPROJECT, write_plugin

from helpers import isolate_pip

STEP = (
    HEADER
    + "import tinyup.engine as engine\n\n\ndef step(x):\n    return x\n\n\nengine.step = step\n"
)
UNCONFIGURED = PYPROJECT.replace('[tool.patchkeeper]\nupstream = "tinyup"\n\n', "")
MESSAGE = "--from torch==2.0.0 and --to tinyup==1.0 name two projects, torch and tinyup"
HINT = (
    "give both as releases of the upstream the plugin patches "
    "(--from tinyup==OLD --to tinyup==NEW), or either as a directory"
)


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The plugin root, with a private cache and pip told to use no index."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    isolate_pip(monkeypatch)
    return write_plugin(tmp_path, {"plug/patch/p_step.py": STEP}, pyproject=UNCONFIGURED)


@pytest.mark.parametrize("command", ["audit", "port"])
def test_two_projects_are_refused_before_fetching(plugin: Path, cli, command: str) -> None:
    releases = ["--from", "torch==2.0.0", "--to", "tinyup==1.0"]
    run = cli("runtime", command, *releases, cwd=plugin)
    assert (run.code, run.out) == (2, "")
    assert run.err == f"patchkeeper: error: {MESSAGE}\n  hint: {HINT}\n"
    as_json = cli("runtime", command, "--json", *releases, cwd=plugin)
    assert json.loads(as_json.out)["error"] == {
        "message": MESSAGE,
        "file": None,
        "line": None,
        "hint": HINT,
    }
    assert not (plugin.parent / "cache").exists()
