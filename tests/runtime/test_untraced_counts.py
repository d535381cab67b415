"""A plugin whose loading nothing declares (a worker class its users name on vLLM's command
line, no entry point, no pinned release): the summary line of its activations says how many
of the entries it counts as never imported are untraced, as each entry's line does."""

from __future__ import annotations

from pathlib import Path

import pytest
from tinyplug import HEADER, copy_releases, versions, write_plugin

#: No entry point and no pin: only the package's import is a root of the search.
UNDECLARED = """[project]
name = "plug"
version = "0.1"

[tool.patchkeeper.runtime]
package = "plug"
upstream-packages = ["tinyup"]
"""

#: The worker module the users name; nothing in the plugin imports it.
WORKER = """import tinyup.engine


def _fixed_step(logits):
    return logits


class Worker:
    def __init__(self):
        tinyup.engine.step = _fixed_step
"""


@pytest.mark.parametrize("command", ["inventory", "audit"])
def test_the_activation_count_says_untraced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli, command: str
) -> None:
    base = copy_releases(tmp_path, monkeypatch)
    root = write_plugin(base, {"plug/patch/worker.py": HEADER + WORKER}, pyproject=UNDECLARED)
    options = versions(base) if command == "audit" else []
    run = cli("runtime", command, *options, cwd=root)
    assert [line for line in run.out.splitlines() if line.startswith("activation:")] == [
        "activation: never-imported 1 (1 of them untraced: whether they run is not known)"
    ]
