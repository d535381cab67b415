"""A key upstream registers through a call or a decorator of the registry is a key upstream
has, as one its registry's definition holds: ``EngineFactory.register_engine("tcp", ...)``
fills the class's ``_registry``, ``@register_speculator("eagle")`` the module's
``SPECULATORS``, ``MODELS.register("tiny")(build_tiny)`` the registry object ``MODELS``
(through a method of its class that hands the key on to another). The registration
functions are read from the registry's own module and class, not from their names: a
function named ``register_speculator`` that fills another table registers nothing in
``SPECULATORS``. The decision then follows the rules of a key in the definition: a key both
releases register is the plugin's override (*retain*); a key upstream added with the
plugin's own value is *remove*, with another value *retain*; a removal of a key upstream
still registers stays; upstream registering the plugin's value only under a condition is
*look*, never *remove*.

The shape of a vLLM plugin that replaces a weight-transfer engine and registers speculators
and models; the plugin and both upstream releases are written by this test."""

from __future__ import annotations

from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

FACTORY = """class EngineFactory:
    _registry: dict = {}

    @classmethod
    def register_engine(cls, name, module_path, class_name):
        if name in cls._registry:
            raise ValueError(name)
        cls._registry[name] = lambda: (module_path, class_name)


EngineFactory.register_engine("tcp", "fup.engines.tcp", "TcpEngine")
EngineFactory.register_engine("legacy", "fup.engines.legacy", "LegacyEngine")
"""
SPECULATORS = """SPECULATORS = {}


def register_speculator(name):
    def decorator(fn):
        SPECULATORS[name] = fn
        return fn

    return decorator


@register_speculator("eagle")
def update_eagle(config):
    return config
"""
REGISTRY = """class Registry:
    def __init__(self, scope):
        self.scope = scope
        self._modules = {}

    def _register(self, module, module_name):
        self._modules[module_name] = module

    def register(self, name, module=None):
        if module is not None:
            self._register(module, module_name=name)
            return module

        def decorator(cls):
            self._register(cls, name)
            return cls

        return decorator
"""
MODELS = """from fup.registry import Registry

MODELS = Registry("models")
"""
#: The next release: two engines more (one the plugin's own class, by its name), a
#: speculator under the key the plugin fills with its own function, two models (one only
#: when torch is there), and a function of another table named as the speculators' one.
NEW_FACTORY = FACTORY + (
    '\nEngineFactory.register_engine("shm", "fup.engines.shm", "ShmEngine")\n'
    'EngineFactory.register_engine(name="rdma", module_path="fup.engines.rdma", '
    'class_name="RdmaEngine")\n'
)
NEW_SPECULATORS = (
    SPECULATORS + '\n\n@register_speculator("dspark")\ndef update_dspark(config):\n'
    "    return config\n"
)
MINI = """from fup.models import MODELS
from fup.utils import HAS_TORCH

if HAS_TORCH:

    @MODELS.register("mini")
    def build_mini(config):
        return config
"""
TINY = """from fup.models import MODELS


def build_tiny(config):
    return config


MODELS.register("tiny")(build_tiny)
"""
OTHER = """OTHER = {}


def register_speculator(name):
    OTHER[name] = name


register_speculator("medusa")
"""
PATCH = """from fup import speculators
from fup.engines.factory import EngineFactory
from fup.models import MODELS


class KTcpEngine:
    pass


class ShmEngine:
    pass


class KRdmaEngine:
    pass


def update_dspark_k(config):
    return config


def update_medusa(config):
    return config


EngineFactory._registry["tcp"] = KTcpEngine
EngineFactory._registry["shm"] = ShmEngine
EngineFactory._registry["rdma"] = KRdmaEngine
EngineFactory._registry.pop("legacy")
speculators.SPECULATORS["dspark"] = update_dspark_k
speculators.SPECULATORS["medusa"] = update_medusa


@MODELS.register("mini")
def build_mini(config):
    return config


@MODELS.register("tiny")
def build_tiny(config):
    return config
"""

FACTORY_AT = "fup.engines.factory.EngineFactory._registry"
SPECULATORS_AT = "fup.speculators.SPECULATORS"


@pytest.fixture
def decisions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[tuple[str, str | None], tuple[str, str]]:
    common = {
        "fup/engines/__init__.py": "",
        "fup/registry.py": REGISTRY,
        "fup/models/__init__.py": MODELS,
        "fup/utils.py": "HAS_TORCH = False\n",
    }
    releases = {
        "1.0": {**common, "fup/engines/factory.py": FACTORY, "fup/speculators.py": SPECULATORS},
        "2.0": {
            **common,
            "fup/engines/factory.py": NEW_FACTORY,
            "fup/speculators.py": NEW_SPECULATORS,
            "fup/models/mini.py": MINI,
            "fup/models/tiny.py": TINY,
            "fup/other.py": OTHER,
        },
    }
    files = {
        "kplug/patch/__init__.py": "from kplug.patch import patch_registries  # noqa: F401\n",
        "kplug/patch/patch_registries.py": PATCH,
    }
    trees = write_trees(tmp_path, monkeypatch, releases, "kplug", files)
    return {
        (a.entry.target, a.entry.key): (a.drift.decision, a.drift.evidence[0])
        for a in audit_trees(trees, "kplug").entries
    }


def test_a_key_registered_by_a_call_is_a_key_upstream_has(decisions) -> None:
    assert decisions == {
        (FACTORY_AT, "'tcp'"): (
            "retain",
            f"the old upstream {FACTORY_AT} had the key 'tcp' too (registered by "
            "EngineFactory.register_engine('tcp', ...) at fup/engines/factory.py:11): the "
            "plugin overrides upstream's value on purpose",
        ),
        (FACTORY_AT, "'shm'"): (
            "remove",
            f"the new upstream {FACTORY_AT} already has the key 'shm': registered by "
            "EngineFactory.register_engine('shm', ...) at fup/engines/factory.py:14",
        ),
        # the key passed by its keyword; upstream's value is another class than the plugin's
        (FACTORY_AT, "'rdma'"): (
            "retain",
            f"the new upstream {FACTORY_AT} now registers module_path='fup.engines.rdma', "
            "class_name='RdmaEngine' under the key 'rdma', not the plugin's KRdmaEngine: the "
            "plugin's registration replaces upstream's value; keep it while the plugin's own "
            "value is wanted",
        ),
        (FACTORY_AT, "'legacy'"): (
            "retain",
            f"the new upstream {FACTORY_AT} still has the key 'legacy': the plugin's removal "
            "of it is still needed",
        ),
        (SPECULATORS_AT, "'dspark'"): (
            "retain",
            f"the new upstream {SPECULATORS_AT} now registers update_dspark under the key "
            "'dspark', not the plugin's update_dspark_k: the plugin's registration replaces "
            "upstream's value; keep it while the plugin's own value is wanted",
        ),
        # fup.other's register_speculator fills another table
        (SPECULATORS_AT, "'medusa'"): (
            "retain",
            f"the new upstream {SPECULATORS_AT} has no key 'medusa': the registration is "
            "still needed",
        ),
        ("fup.models.MODELS", "'mini'"): (
            "look",
            "the new upstream fup.models.MODELS registers the plugin's build_mini under the "
            "key 'mini' itself, but not always (registered by @MODELS.register('mini') at "
            "fup/models/mini.py:6, under `if HAS_TORCH` (line 4)): find out whether "
            "upstream's registration runs wherever the plugin's does before removing it",
        ),
        ("fup.models.MODELS", "'tiny'"): (
            "remove",
            "the new upstream fup.models.MODELS already has the key 'tiny': registered by "
            "MODELS.register('tiny')(...) at fup/models/tiny.py:8",
        ),
    }
