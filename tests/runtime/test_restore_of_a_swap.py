"""The statement in a ``finally`` that puts upstream's object back after a temporary swap
has nothing of its own to change.

In the shape of a KV-cache plugin's bridge: a context manager saves ``utils.bind_kv_cache``,
swaps in a wrapper, and restores the saved original in its ``finally``. The new upstream's
``bind_kv_cache`` consults a platform hook the old one did not have. The wrapper hands its
arguments on to the original (*retain*); the restoring line, judged alone, was *migrate*
("the new upstream consults an extension point"), a change nobody can make to
``utils.bind_kv_cache = original``. It is now *retain*, naming the swap and its decision.
The upstream releases and the plugin are written by the test."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import pyproject

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit as audit
from patchkeeper.runtime.judge.drift import Drift
from patchkeeper.runtime.judge.restores import restores
from patchkeeper.runtime.model import Mechanism, PatchEntry

PLATFORM_OLD = """class Platform:
    def device_name(self):
        return "cpu"


current_platform = Platform()
"""

PLATFORM_NEW = """class Platform:
    def device_name(self):
        return "cpu"

    def check_kv_caches_multi_layer(self, caches):
        return None


current_platform = Platform()
"""

UTILS_OLD = """def bind_kv_cache(kv_caches, forward_context, runner_kv_caches):
    for name, cache in kv_caches.items():
        forward_context[name] = cache
    runner_kv_caches.extend(kv_caches.values())
"""

UTILS_NEW = """from kup.platforms import current_platform


def bind_kv_cache(kv_caches, forward_context, runner_kv_caches):
    current_platform.check_kv_caches_multi_layer(kv_caches)
    for name, cache in kv_caches.items():
        forward_context[name] = cache
    runner_kv_caches.extend(kv_caches.values())
"""

BRIDGE = """from contextlib import contextmanager

import kup.worker.utils as worker_utils


@contextmanager
def cache_binding_bridge():
    original = worker_utils.bind_kv_cache

    def bind_kv_cache(kv_caches, *args, **kwargs):
        return original(dict(kv_caches), *args, **kwargs)

    worker_utils.bind_kv_cache = bind_kv_cache
    try:
        yield
    finally:
        worker_utils.bind_kv_cache = original


def load():
    with cache_binding_bridge():
        return None
"""


def test_the_restoring_line_is_retained_with_its_swap(tmp_path: Path) -> None:
    old, new = tmp_path / "kup-1.0", tmp_path / "kup-1.1"
    for root, version, platform, utils in (
        (old, "1.0", PLATFORM_OLD, UTILS_OLD),
        (new, "1.1", PLATFORM_NEW, UTILS_NEW),
    ):
        write_files(
            root,
            {
                "pyproject.toml": f'[project]\nname = "kup"\nversion = "{version}"\n',
                "kup/__init__.py": "",
                "kup/platforms.py": platform,
                "kup/worker/__init__.py": "",
                "kup/worker/utils.py": utils,
            },
        )
    plugin = write_files(
        tmp_path / "kplug",
        {
            "pyproject.toml": pyproject(
                "kplug",
                {"kplug": "kplug:register"},
                group="kup.plugins",
                version="0.1",
                upstream="kup",
            ),
            "kplug/__init__.py": (
                "def register():\n    from kplug.patch import bridge\n\n    bridge.load()\n"
            ),
            "kplug/patch/__init__.py": "",
            "kplug/patch/bridge.py": BRIDGE,
        },
    )
    result = audit.audit_runtime(load_config(plugin / "pyproject.toml"), old=str(old), new=str(new))
    found = [
        (a.entry.line, a.entry.temporary, a.drift.decision, a.drift.evidence[0])
        for a in result.entries
    ]
    assert found[1] == (
        17,
        True,
        "retain",
        "restores upstream's kup.worker.utils.bind_kv_cache after the temporary swap at "
        "kplug/patch/bridge.py:13: nothing of its own to change (the swap: retain)",
    )
    assert found[0][:3] == (13, True, "retain")


def test_a_restore_goes_with_a_swap_that_goes() -> None:
    """When the swap is *remove*, its restoring line goes with it; a wrapper of its own in
    the ``finally`` (a replacement the plugin defines) and the entries of another scope
    keep their decisions."""

    def entry(line: int, scope: str, replacement: str, temporary: bool = True) -> PatchEntry:
        mechanism = Mechanism.ASSIGNMENT if line == 5 else Mechanism.WRAPPER
        return PatchEntry(
            "p/swap.py",
            line,
            "p.swap",
            scope,
            "up.m.f",
            mechanism,
            replacement=replacement,
            temporary=temporary,
        )

    pairs = [
        (entry(5, "run", "p.swap:run.f"), Drift("remove", ("its version gate is false",))),
        (entry(9, "run", "<expr>"), Drift("migrate", ("an extension point",))),
        (entry(10, "run", "p.swap:other"), Drift("update", ("changed",))),
        (entry(20, "again", "<expr>"), Drift("update", ("changed",))),
    ]
    assert [(d.decision, d.evidence) for d in restores(pairs)] == [
        ("remove", ("its version gate is false",)),
        (
            "remove",
            (
                "restores upstream's up.m.f after the temporary swap at p/swap.py:5: it goes "
                "with the swap (the swap: remove)",
                "an extension point",
            ),
        ),
        ("update", ("changed",)),
        ("update", ("changed",)),
    ]
