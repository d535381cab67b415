"""A method the old upstream release defines and the new one removes from its class: a
patch that sets it (a wrapper calling the original, a direct assignment) sets a name
upstream no longer calls. With a clear successor in the new class (a method whose body is
mostly the old one's, or one that takes over its call sites) the decision is *update*,
retargeting to it; without one, *look*; never *retain*, never *remove*. A name in neither
release is the plugin's own and stays *retain*.

The upstream releases and the plugin are written by the test."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import mup_plugin

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit as audit

OLD = '''class Manager:
    def __init__(self):
        self.blocks = []

    def free(self, block):
        """Give a block back."""
        self.blocks.append(block)
        block.ref = 0
        block.owner = None


class Pool:
    def free(self, item):
        return item


class Cache:
    def evict(self, key):
        return key


class Scheduler:
    def step(self, cache, key):
        return cache.evict(key)


class Worker:
    def _run(self):
        return 1
'''

NEW = '''class Manager:
    def __init__(self):
        self.blocks = []

    def release(self, block, *, force=False):
        """Give a block back (renamed)."""
        self.blocks.append(block)
        block.ref = 0
        block.owner = None


class Pool:
    def drain(self):
        return None


class Cache:
    def purge(self, keys):
        for key in keys:
            print(key)


class Scheduler:
    def step(self, cache, key):
        return cache.purge([key])


class Worker:
    def run(self, steps):
        return steps
'''

PATCH = """from mup.kv import Cache, Manager, Pool, Worker

orig_free = Manager.free


def free(self, *args):
    print("freeing")
    return orig_free(self, *args)


Manager.free = free


def pool_free(self, item):
    return None


Pool.free = pool_free


def evict(self, key):
    return None


Cache.evict = evict


def marker(self):
    return True


Manager.plugin_marker = marker


def run(self):
    return 2


Worker._run = run
"""


def _audit(tmp_path: Path) -> dict[str, tuple[str, tuple[str, ...]]]:
    for name, version, text in (("old", "1.0", OLD), ("new", "2.0", NEW)):
        write_files(
            tmp_path / name,
            {
                "pyproject.toml": f'[project]\nname = "mup"\nversion = "{version}"\n',
                "mup/__init__.py": "",
                "mup/kv.py": text,
            },
        )
    plugin = write_files(
        tmp_path / "mplug",
        mup_plugin({"mplug/patch_kv.py": PATCH}, imports="mplug.patch_kv"),
    )
    result = audit.audit_runtime(
        load_config(plugin / "pyproject.toml"), old=str(tmp_path / "old"), new=str(tmp_path / "new")
    )
    return {a.entry.target: (a.drift.decision, a.drift.evidence) for a in result.entries}


#: What the audit says of each target, by target.
EXPECTED = {
    "mup.kv.Manager.free": (
        "update",
        (
            "upstream removed mup.kv.Manager.free at 2.0; mup.kv.Manager.release, new there, "
            "takes its place (its body keeps 3 of the old one's 3 statement lines): the patch "
            "sets a name nothing of upstream calls any more; retarget it to "
            "mup.kv.Manager.release",
        ),
    ),
    "mup.kv.Cache.evict": (
        "update",
        (
            "upstream removed mup.kv.Cache.evict at 2.0; mup.kv.Cache.purge, new there, takes "
            "its place (Scheduler.step called the old name and now calls this one): the patch "
            "sets a name nothing of upstream calls any more; retarget it to mup.kv.Cache.purge",
        ),
    ),
    "mup.kv.Worker._run": (
        "update",
        (
            "upstream removed mup.kv.Worker._run at 2.0; mup.kv.Worker.run, new there, takes "
            "its place (the same name with a leading underscore more or less): the patch sets "
            "a name nothing of upstream calls any more; retarget it to mup.kv.Worker.run",
        ),
    ),
    "mup.kv.Pool.free": (
        "look",
        (
            "upstream removed mup.kv.Pool.free at 2.0 and no method of the new class clearly "
            "replaces it; nothing in its module calls it: the patch sets a name upstream no "
            "longer calls; find what replaced it and retarget the patch (not a removal: the "
            "plugin may still need the feature there)",
        ),
    ),
    "mup.kv.Manager.plugin_marker": (
        "retain",
        (
            "plugin_marker is not defined by upstream under mup.kv.Manager in the new "
            "version: an attribute the plugin adds or a generated one; nothing upstream to "
            "compare",
        ),
    ),
}


def test_removed_method(tmp_path: Path) -> None:
    """A wrapper and direct assignments of removed methods, and the plugin's own name."""
    assert _audit(tmp_path) == EXPECTED
