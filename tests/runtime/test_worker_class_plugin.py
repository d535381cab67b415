"""A plugin loaded by a worker class named on vLLM's command line (``--worker-cls
scaleplug.worker.Worker``) that patches another hardware plugin, ``ascend-up``: configured as
its upstream by its distribution name, with ``activation`` naming the class and no
``upstream-packages``, the runtime commands read the upstream's import package,
``ascend_up``."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from plugin_trees import TreeWriter

#: The plugin: a worker class deriving from the upstream's, whose ``__init__`` installs the
#: patch, and no entry point (vLLM imports the class from the name on its command line).
PLUGIN = {
    "scaleplug/__init__.py": "",
    "scaleplug/worker.py": (
        '"""The only public entry: vllm serve ... --worker-cls scaleplug.worker.Worker."""\n\n'
        "from ascend_up.worker import NPUWorker\n\n\n"
        "class Worker(NPUWorker):\n"
        "    def __init__(self, config):\n"
        "        from .patches import replay\n\n"
        "        replay.install()\n"
        "        super().__init__(config)\n"
    ),
    "scaleplug/patches/__init__.py": "",
    "scaleplug/patches/replay.py": (
        '"""Replays graphs in order.\n\nNote: keeps replay order for the draft model.\n'
        'Affected versions: 1.0\nRemove at: when upstream orders replays\n"""\n'
        "from ascend_up.graph import GraphWrapper\n\n\n"
        "def _ordered_call(self, *args, **kwargs):\n"
        "    return self.runnable(*args, **kwargs)\n\n\n"
        "def install():\n"
        "    GraphWrapper.__call__ = _ordered_call\n"
    ),
}

WORKER = "class NPUWorker:\n    def __init__(self, config):\n        self.config = config\n"

OLD = {
    "pyproject.toml": '[project]\nname = "ascend-up"\nversion = "1.0"\n',
    "ascend_up/__init__.py": "",
    "ascend_up/worker.py": WORKER,
    "ascend_up/graph.py": (
        "class GraphWrapper:\n"
        "    def __call__(self, *args, **kwargs):\n"
        "        return self.runnable(*args, **kwargs)\n"
    ),
}

NEW = {
    **OLD,
    "pyproject.toml": '[project]\nname = "ascend-up"\nversion = "2.0"\n',
    "ascend_up/graph.py": (
        "class GraphWrapper:\n"
        "    def __call__(self, *args, **kwargs):\n"
        "        self.replays += 1\n"
        "        return self.runnable(*args, **kwargs)\n"
    ),
}

CONFIG = (
    'upstream = "ascend-up"\n\n[runtime]\npackage = "scaleplug"\nroot = "../scaleplug"\n'
    'activation = "scaleplug.worker:Worker"\n'
)


def test_the_configured_upstream_is_read_by_its_import_name(plugin_trees: TreeWriter, cli) -> None:
    plugin_trees.write("scaleplug", PLUGIN, OLD, NEW)
    downstream = plugin_trees.root / "downstream"
    downstream.mkdir()
    (downstream / "patchkeeper.toml").write_text(CONFIG)
    run = cli("runtime", "audit", "--from", "../up-1.0", "--to", "../up-2.0", cwd=downstream)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[1] == (
        "RETAIN       scaleplug/patches/replay.py:15  assignment  "
        "ascend_up.graph.GraphWrapper.__call__  <- scaleplug.patches.replay:_ordered_call"
    )
    assert run.out.splitlines()[-2:] == ["activation: active 1", "decision: retain 1"]


def test_a_tree_without_it_names_the_import_name(plugin_trees: TreeWriter, cli) -> None:
    plugin_trees.write("scaleplug", PLUGIN, {"vllm/__init__.py": ""})
    downstream = plugin_trees.root / "downstream"
    downstream.mkdir()
    (downstream / "patchkeeper.toml").write_text(CONFIG)
    run = cli("runtime", "audit", "--from", "../up-1.0", "--to", "../up-2.0", cwd=downstream)
    tree = Path(plugin_trees.root / "up-1.0").resolve()
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines()[0] == (
        f"patchkeeper: error: {tree}: no ascend_up package in this upstream tree"
    )


#: The new release moved the class the plugin patches: the port retargets its import.
MOVED = {
    **{name: text for name, text in NEW.items() if name != "ascend_up/graph.py"},
    "ascend_up/compilation/__init__.py": "",
    "ascend_up/compilation/graph.py": OLD["ascend_up/graph.py"],
}


@pytest.fixture
def read_only_plugin(plugin_trees: TreeWriter) -> Iterator[Path]:
    """The plugin and its releases (the class moved at 2.0), the plugin made read-only for
    real: immutable files as root (who ignores permission bits), else permission bits; the
    downstream directory beside it, writable. Yields the downstream."""
    plugin = plugin_trees.write("scaleplug", PLUGIN, OLD, MOVED).plugin
    downstream = plugin_trees.root / "downstream"
    downstream.mkdir()
    (downstream / "patchkeeper.toml").write_text(CONFIG)
    if os.geteuid() == 0:
        immutable = subprocess.run(["chattr", "-R", "+i", str(plugin)], capture_output=True)
        if immutable.returncode != 0:
            pytest.fail(f"chattr +i does not work here: {immutable.stderr.decode()}")
    else:
        for path in [plugin, *plugin.rglob("*")]:
            path.chmod(path.stat().st_mode & ~0o222)
    yield downstream
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-R", "-i", str(plugin)], check=True)
    for path in [plugin, *plugin.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_read_only_plugin_says_what_to_do(read_only_plugin: Path, cli) -> None:
    plugin = (read_only_plugin.parent / "scaleplug").resolve()
    before = _files(plugin)
    port = cli("runtime", "port", "--from", "../up-1.0", "--to", "../up-2.0", "--write",
               cwd=read_only_plugin)  # fmt: skip
    assert (port.code, port.out) == (2, "")
    assert port.err.splitlines()[-2:] == [
        f"patchkeeper: error: {plugin}/scaleplug/patches/replay.py: the plugin is read-only "
        "here; nothing was changed",
        "  hint: make the plugin's files writable, or leave --write out and write the diff "
        "elsewhere with --output FILE",
    ]
    lock = cli("runtime", "lock", "--at", "../up-1.0", cwd=read_only_plugin)
    assert (lock.code, lock.out) == (2, "")
    assert lock.err.splitlines() == [
        f"patchkeeper: error: {plugin}/scaleplug: the lock file's directory is read-only "
        "here; nothing was changed",
        "  hint: pass --output a file in a directory you can write (the plugin reads its lock "
        "from where the plugin ships it), or make that directory writable",
    ]
    # a lock written elsewhere needs nothing of the plugin's directory, its journal included
    elsewhere = cli("runtime", "lock", "--at", "../up-1.0", "--output", "patchkeeper.lock",
                    cwd=read_only_plugin)  # fmt: skip
    assert (elsewhere.code, elsewhere.err) == (0, "")
    assert elsewhere.out == "locked 1 target in 1 upstream file at 1.0: patchkeeper.lock\n"
    assert sorted(p.name for p in read_only_plugin.iterdir()) == [
        "patchkeeper.lock",
        "patchkeeper.toml",
    ]
    assert _files(plugin) == before


def test_a_port_to_an_unversioned_tree_asks_no_header_of_files_without_one(
    plugin_trees: TreeWriter, cli
) -> None:
    """A checkout states no version, so the port writes no ``Reviewed against`` mark and says
    to add it by hand: to the files that have the header, none here (the plugin's files
    have none), so it says nothing."""
    headless = {**PLUGIN, "scaleplug/patches/replay.py": PLUGIN["scaleplug/patches/replay.py"]}
    text = headless["scaleplug/patches/replay.py"]
    headless["scaleplug/patches/replay.py"] = text[text.index("from ascend_up") :]
    checkout = {n: t for n, t in MOVED.items() if n != "pyproject.toml"}
    plugin_trees.write("scaleplug", headless, OLD, checkout)
    downstream = plugin_trees.root / "downstream"
    downstream.mkdir()
    (downstream / "patchkeeper.toml").write_text(CONFIG)
    run = cli("runtime", "port", "--from", "../up-1.0", "--to", "../up-2.0", cwd=downstream)
    new = (plugin_trees.root / "up-2.0").resolve()
    assert run.code == 1
    assert run.err.splitlines() == [
        "BY HAND       scaleplug/patches/replay.py:9 ascend_up.graph.GraphWrapper.__call__: "
        "ascend_up.graph is not written in the patch statement",
        "RETARGETED    scaleplug/patches/replay.py:1 ascend_up.graph.GraphWrapper: from "
        "ascend_up.graph import GraphWrapper -> from ascend_up.compilation.graph import "
        "GraphWrapper at line 1 (ascend_up.graph has no GraphWrapper at directory "
        f"{new})",
        f"runtime port 1.0 -> directory {new}: by hand 1, retargeted 1; not written "
        "(--write applies it)",
    ]


def test_a_configured_package_no_tree_holds_is_a_warning(plugin_trees: TreeWriter, cli) -> None:
    """``upstream-packages`` names vllm besides ascend_up, and the trees hold ascend_up
    alone: the patches of vllm would read as outside this upgrade, so the audit says so,
    also when it answers from what it remembers."""
    plugin_trees.write("scaleplug", PLUGIN, OLD, NEW)
    downstream = plugin_trees.root / "downstream"
    downstream.mkdir()
    (downstream / "patchkeeper.toml").write_text(
        CONFIG + 'upstream-packages = ["ascend_up", "vllm"]\n'
    )
    old, new = ((plugin_trees.root / f"up-{v}").resolve() for v in ("1.0", "2.0"))
    warning = (
        f"vllm (one of upstream-packages) is in neither upstream tree ({old}, {new}): the "
        "patches of vllm are taken as outside this upgrade and not audited; give trees that "
        "hold every package listed, or take out of upstream-packages what this upgrade does "
        "not change"
    )
    args = ("runtime", "audit", "--from", "../up-1.0", "--to", "../up-2.0")
    run = cli(*args, cwd=downstream)
    assert (run.code, run.err) == (0, f"patchkeeper: warning: {warning}\n")
    for _ in range(2):  # computed, then remembered
        run = cli(*args, "--json", cwd=downstream)
        assert json.loads(run.out)["warnings"] == [warning]
    port = cli("runtime", "port", "--from", "../up-1.0", "--to", "../up-2.0", cwd=downstream)
    assert port.err.splitlines()[0] == f"patchkeeper: warning: {warning}"


def test_a_diff_that_cannot_be_written_names_its_file(plugin_trees: TreeWriter, cli) -> None:
    """``runtime port --output`` writes through a temporary file beside the output; when that
    fails and the clean-up fails too (a read-only file system refuses both, as a folder in
    the temporary file's place does), the error names the output, not an internal one."""
    plugin_trees.write("scaleplug", PLUGIN, OLD, MOVED)
    downstream = plugin_trees.root / "downstream"
    downstream.mkdir()
    (downstream / "patchkeeper.toml").write_text(CONFIG)
    (downstream / "update.diff.patchkeeper-tmp").mkdir()
    run = cli("runtime", "port", "--from", "../up-1.0", "--to", "../up-2.0",
              "--output", "update.diff", cwd=downstream)  # fmt: skip
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines()[-2:] == [
        "patchkeeper: error: update.diff: cannot write the diff: Is a directory",
        "  hint: choose another --output",
    ]
    assert sorted(p.name for p in downstream.iterdir()) == [
        "patchkeeper.toml",
        "update.diff.patchkeeper-tmp",
    ]
