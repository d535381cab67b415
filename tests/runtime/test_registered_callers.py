"""A caller of the target that registers the target itself is no extension point to move to.

``rplug`` swaps upstream's ``MambaManager`` for a subclass of its own that overrides
``allocate``, a method upstream leaves as it was. The new release changes another method of
``MambaManager`` and adds ``register_all_specs``, a function of the same module that fills a
new ``SpecRegistry`` when the engine starts, ``MambaManager`` among the classes it registers
(vLLM 0.30.0's ``register_all_kvcache_specs`` with ``KVCacheSpecRegistry``). That function
reads ``MambaManager`` when it runs, after the plugin rebound it: the registry receives the
plugin's class, and its other registrations (``register_role_manager``, new too) are of
other names. The swap keeps working and inherits upstream's change: *retain*, not *migrate*.

``load_manager``, which the plugin also replaces, is called by a new function that asks
the platform for a manager first (``current_platform.get_manager_cls``): a hook that can
take over what the patch does, the *migrate* it was.
"""

from __future__ import annotations

from plugin_trees import TreeWriter, patch_plugin

OLD = """class Manager:
    def allocate(self, n):
        return n


class MambaManager(Manager):
    def allocate(self, n):
        return n + 1

    def free(self, n):
        return n


def load_manager(name):
    return MambaManager()


SPEC_MANAGERS = {"mamba": MambaManager}
"""

NEW = """from vllm.platforms import current_platform


class Manager:
    def allocate(self, n):
        return n


class SpecRegistry:
    managers = {}
    roles = {}

    @classmethod
    def register(cls, spec, manager):
        cls.managers[spec] = manager

    @classmethod
    def register_role_manager(cls, role, manager):
        cls.roles[role] = manager


class MambaManager(Manager):
    def allocate(self, n):
        return n + 1

    def free(self, n):
        return max(n, 0)


class SourceManager(Manager):
    pass


def load_manager(name):
    return MambaManager(name)


def make_manager(name):
    chosen = current_platform.get_manager_cls(name)
    return chosen() if chosen is not None else load_manager(name)


def register_all_specs(config):
    SpecRegistry.register_role_manager("source", SourceManager)
    SpecRegistry.register("mamba", MambaManager)
"""

PLATFORMS = "current_platform = None\n"

PATCH = """import vllm.kv
from vllm.kv import MambaManager


class DeviceMambaManager(MambaManager):
    def allocate(self, n):
        return super().allocate(n) * 2


def load_manager(name):
    return DeviceMambaManager()


vllm.kv.MambaManager = DeviceMambaManager
vllm.kv.load_manager = load_manager
"""


def test_a_caller_registering_the_target_is_not_a_hook_to_migrate_to(
    plugin_trees: TreeWriter,
) -> None:
    upstream = {"vllm/__init__.py": "", "vllm/platforms.py": PLATFORMS}
    result = plugin_trees.write(
        "rplug",
        patch_plugin("rplug", {"p_mamba": PATCH}, entry="r"),
        {**upstream, "vllm/kv.py": OLD},
        {**upstream, "vllm/kv.py": NEW},
    ).audit()
    assert [(a.entry.target, a.drift.decision, a.drift.evidence[0]) for a in result.entries] == [
        (
            "vllm.kv.MambaManager",
            "retain",
            "the plugin's class derives from MambaManager and inherits the upstream change; "
            "the methods it overrides (allocate) are unchanged upstream",
        ),
        (
            "vllm.kv.load_manager",
            "migrate",
            "the new upstream consults an extension point the old release did not have: "
            "current_platform.get_manager_cls (in vllm.kv.make_manager)",
        ),
    ]
