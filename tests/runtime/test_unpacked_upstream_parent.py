"""An upstream tree given as the directory an sdist was unpacked into (``vllm-0.31.0/``
holding only ``vllm-0.31.0/``, as the tar file leaves it) holds no upstream package: the
runtime commands refuse it naming the tree inside to pass (before: "give the directory
holding the upstream package", which the user believed they had). A directory holding
nothing of the kind keeps the general advice."""

from __future__ import annotations

import shutil
from pathlib import Path


def test_the_tree_inside_an_unpacked_directory_is_named(runtime_trees: Path, cli) -> None:
    outer = runtime_trees / "unpacked" / "tinyup-1.0"
    shutil.copytree(runtime_trees / "upstream-1.0", outer / "tinyup-1.0")
    plugin = runtime_trees / "plugin"
    new = str(runtime_trees / "upstream-2.0")
    run = cli("runtime", "audit", "--from", str(outer), "--to", new, cwd=plugin)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {outer}: no tinyup package in this upstream tree\n"
        f"  hint: it holds one tree, tinyup-1.0, with the package: pass {outer / 'tinyup-1.0'}\n",
    )
    empty = runtime_trees / "empty"
    empty.mkdir()
    run = cli("runtime", "lock", "--at", str(empty), cwd=plugin)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: {empty}: no tinyup package in this upstream tree\n"
        "  hint: give the directory holding the upstream package (an unpacked sdist); the "
        "packages looked for are [runtime] upstream-packages in the configuration (default: "
        'the import name of the configured upstream = "NAME", else vllm)\n',
    )
    assert not (plugin / "metaplug" / "patch" / "patchkeeper.lock").exists()
