"""A path given where the runtime commands want a directory that is there but is no
directory (a file, a named pipe) was said not to exist ("the plugin directory ... does not
exist", "no such directory"): the error now says what is there.

The plugin is in the shape of a vLLM general plugin: an entry point in
``vllm.general_plugins`` whose ``register()`` wraps one upstream method."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import tree_bytes, vllm_plugin_pyproject, write_files

PYPROJECT = vllm_plugin_pyproject(
    "vllm-tiny",
    "0.1.0",
    'tiny = "vllm_tiny:register"',
    dependencies=("vllm==1.0",),
    package="vllm_tiny",
    pin="1.0",
)
REGISTER = """from vllm.engine import Engine

_original = Engine.step


def register():
    def step(self, *args):
        return _original(self, *args)

    Engine.step = step
"""


def _trees(root: Path) -> Path:
    plugin = write_files(
        root / "vllm-tiny",
        {"pyproject.toml": PYPROJECT, "vllm_tiny/__init__.py": REGISTER},
    )
    for version in ("1.0", "2.0"):
        write_files(
            root / f"vllm-{version}",
            {
                "vllm/__init__.py": "",
                "vllm/engine.py": "class Engine:\n    def step(self):\n        return 1\n",
            },
        )
    (root / "notes.txt").write_text("a file\n", encoding="utf-8")
    os.mkfifo(root / "pipe")
    return plugin


def test_a_file_or_a_named_pipe_for_a_directory_is_named_as_what_it_is(cli, tmp_path: Path) -> None:
    plugin = _trees(tmp_path)
    before = tree_bytes(tmp_path)
    run = cli("runtime", "inventory", "--plugin", "../pipe", cwd=plugin)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: the plugin directory {tmp_path / 'pipe'} is a named pipe, not a "
        "directory\n  hint: pass --plugin DIR (the directory holding the package), or set root "
        '= "DIR" in [tool.patchkeeper.runtime]\n',
    )
    run = cli("runtime", "inventory", "--patch-dir", "pyproject.toml", cwd=plugin)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: the patch directory pyproject.toml under {plugin} is a regular "
        "file, not a directory\n  hint: pass --patch-dir or set patch-directory in "
        "[tool.patchkeeper.runtime]\n",
    )
    run = cli("runtime", "audit", "--from", "../notes.txt", "--to", "../vllm-2.0", cwd=plugin)
    assert (run.code, run.err) == (
        2,
        "patchkeeper: error: the old upstream (--from): ../notes.txt is a regular file, not a "
        "directory\n  hint: give a directory, a release's sdist or wheel file, or a pinned "
        "requirement such as vllm==0.32.0\n",
    )
    output = tmp_path / "notes.txt" / "x.lock"
    run = cli("runtime", "lock", "--at", "../vllm-1.0", "--output", str(output), cwd=plugin)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {output}: cannot write the lock file: {tmp_path / 'notes.txt'} "
        "is a regular file, not a directory\n  hint: pass --output a file in a directory that "
        "exists (create it first), or leave --output out for <patch-directory>/patchkeeper.lock\n",
    )
    assert tree_bytes(tmp_path) == before
