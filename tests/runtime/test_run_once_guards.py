"""A run-once guard is not an activation condition: an early ``return`` on a module-level
flag (or a marker attribute) that the function sets after it, or an ``if`` on such a flag
whose body sets it, only keeps a patch from being applied twice. A test that reads anything
else (a platform, an import that failed, a feature upstream may lack) stays a condition. The
plugin is written by the test in the shape of a real one: its ``register()`` entry point
guards itself with a flag, and each patch function guards itself in another way (a marker
set on the replacement, which the next call reads back as the original, among them)."""

from __future__ import annotations

from plugin_trees import TreeWriter, activation_conditions, patch_plugin

INIT = """_REGISTERED = False


def register():
    global _REGISTERED
    if _REGISTERED:
        return
    _REGISTERED = True
    from oplug.patch import p_once

    p_once.flag_patch()
    p_once.marker_patch()
    p_once.getattr_patch()
    p_once.wrapper_patch()
    p_once.probe_patch()
    p_once.platform_patch()
    p_once.import_patch()
    p_once.unset_patch()
"""

PATCH = """import vllm.engine
from vllm.engine import Engine
from vllm.platforms import current_platform
from vllm.request import Request

_PATCHED = False
_SEEN = False
_MARKER = "_oplug_wrapped"


def my_step(self):
    return self


def my_tokens(self):
    return 0


def flag_patch():
    global _PATCHED
    if _PATCHED:
        return
    _PATCHED = True
    vllm.engine.step = my_step


def marker_patch():
    if not hasattr(Engine, "_oplug_patched"):
        Engine.run = my_step
        Engine._oplug_patched = True


def getattr_patch():
    if getattr(Engine, "_oplug_ready", False):
        return
    Engine.ready = my_step
    setattr(Engine, "_oplug_ready", True)


def wrapper_patch():
    orig = getattr(Engine, "forward", None)
    if getattr(orig, _MARKER, False):
        return

    def forward(self, x):
        return orig(self, x)

    setattr(forward, _MARKER, True)
    Engine.forward = forward


def probe_patch():
    if not hasattr(Request, "num_tokens"):
        Request.num_tokens = property(my_tokens)


def platform_patch():
    global _PATCHED
    if _PATCHED or not current_platform.is_tpu():
        return
    _PATCHED = True
    vllm.engine.tpu = my_step


def import_patch():
    try:
        import vllm.fast  # noqa: F401
    except ImportError:
        return
    vllm.engine.fast = my_step


def unset_patch():
    global _SEEN
    if _SEEN:
        return
    _SEEN = False
    vllm.engine.seen = my_step
"""

FILES = patch_plugin("oplug", {"p_once": PATCH}, entry="o", register=INIT)


def test_a_run_once_guard_is_no_condition_and_other_tests_stay(
    plugin_trees: TreeWriter,
) -> None:
    inventory = plugin_trees.write("oplug", FILES).inventory()
    assert activation_conditions(inventory) == [
        ("vllm.engine.step", "active", []),
        ("vllm.engine.Engine.run", "active", []),
        ("vllm.engine.Engine._oplug_patched", "active", []),
        ("vllm.engine.Engine.ready", "active", []),
        ("vllm.engine.Engine._oplug_ready", "active", []),
        ("vllm.engine.Engine.forward", "active", []),
        (
            "vllm.request.Request.num_tokens",
            "conditional",
            [("if", "not hasattr(Request, 'num_tokens')", 53)],
        ),
        (
            "vllm.engine.tpu",
            "conditional",
            [("else", "not (_PATCHED or not current_platform.is_tpu())", 59)],
        ),
        ("vllm.engine.fast", "conditional", [("try-import", "try: ... except ImportError", 66)]),
        ("vllm.engine.seen", "conditional", [("else", "not (_SEEN)", 75)]),
    ]


# A plugin whose guards are set away from them: the marker named by a module constant is set
# by the factory that builds the replacement (the guard's own function never sets it), or
# set under its literal name; a registration is guarded by its own key; an object is
# wrapped once in a proxy class. A membership test on a table the body does not fill, a
# marker the file sets on an upstream object rather than on its own function, and an
# isinstance test whose body wraps nothing, stay conditions.
FACTORY_PATCH = """from vllm.engine import Engine, registry
from vllm import state

_MARKER = "_oplug_marked"
MODE = "oplug"


class Proxy:
    def __init__(self, inner):
        self.inner = inner


def _wrap(original):
    def wrapped(*args):
        return original(*args)

    setattr(wrapped, _MARKER, True)
    return wrapped


def _wrap_named(original):
    def named(*args):
        return original(*args)

    named._oplug_named = True
    return named


def early_patch():
    original = state.create
    if getattr(original, _MARKER, False):
        return
    state.create = _wrap(original)


def body_patch():
    original = state.move
    if not getattr(original, _MARKER, False):
        state.move = _wrap(original)


def literal_patch():
    original = state.load
    if getattr(original, "_oplug_named", False):
        return
    state.load = _wrap_named(original)


def upstream_flag_patch():
    Engine._oplug_upstream = True
    if getattr(Engine, "_oplug_upstream", False):
        return
    state.flag = _wrap(state.flag)


def wrap_patch():
    current = state.platform
    if not isinstance(current, Proxy):
        state.platform = Proxy(current)


def probe_patch():
    if not isinstance(state.platform, Proxy):
        state.other = _wrap(state.other)


if MODE not in registry.modes:
    registry.register(MODE, "oplug.patch.p_factory")

if MODE not in registry.TABLE:
    registry.TABLE[MODE] = _wrap

if "other" not in registry.modes:
    registry.register(MODE, "oplug.patch.p_factory")

early_patch()
body_patch()
literal_patch()
upstream_flag_patch()
wrap_patch()
probe_patch()
"""

FACTORY_FILES = patch_plugin("oplug", {"p_factory": FACTORY_PATCH}, entry="o")


def test_a_marker_set_by_a_factory_and_a_self_keyed_registration_are_no_conditions(
    plugin_trees: TreeWriter,
) -> None:
    inventory = plugin_trees.write("oplug", FACTORY_FILES).inventory()
    found = [
        (
            e.target,
            e.line,
            e.activation.status.value,
            [(c.kind, c.text, c.line) for c in e.activation.conditions],
        )
        for e in inventory.entries
        if e.activation
    ]
    assert found == [
        ("vllm.state.create", 33, "active", []),
        ("vllm.state.move", 39, "active", []),
        ("vllm.state.load", 46, "active", []),
        ("vllm.engine.Engine._oplug_upstream", 50, "active", []),
        (
            "vllm.state.flag",
            53,
            "conditional",
            [("else", "not (getattr(Engine, '_oplug_upstream', False))", 51)],
        ),
        ("vllm.state.platform", 59, "active", []),
        (
            "vllm.state.other",
            64,
            "conditional",
            [("if", "not isinstance(state.platform, Proxy)", 63)],
        ),
        ("vllm.engine.registry", 68, "active", []),
        ("vllm.engine.registry.TABLE", 71, "active", []),
        (
            "vllm.engine.registry",
            74,
            "conditional",
            [("if", "'other' not in registry.modes", 73)],
        ),
    ]


# A plugin that hooks upstream classes handed to an installer, guarded by a marker looked up
# in the class's own attributes (so that a subclass of a hooked class is hooked too) and set
# on it once hooked. A lookup of a marker the installer never sets stays a condition.
OWN_PATCH = """from vllm.engine import Cache, Engine

_MARKER = "_oplug_hooked"


def my_step(self):
    return self


def install(cls):
    if cls.__dict__.get(_MARKER, False):
        return
    cls.step = my_step
    setattr(cls, _MARKER, True)


def install_vars(cls):
    if vars(cls).get("_oplug_vars"):
        return
    cls.run = my_step
    cls._oplug_vars = True


def install_unmarked(cls):
    if cls.__dict__.get("_oplug_other", False):
        return
    cls.stop = my_step


install(Engine)
install_vars(Cache)
install_unmarked(Engine)
"""

OWN_FILES = patch_plugin("oplug", {"p_own": OWN_PATCH}, entry="o")


def test_a_marker_looked_up_in_a_class_s_own_attributes_is_no_condition(
    plugin_trees: TreeWriter,
) -> None:
    inventory = plugin_trees.write("oplug", OWN_FILES).inventory()
    assert activation_conditions(inventory) == [
        ("vllm.engine.Engine.step", "active", []),
        ("vllm.engine.Engine._oplug_hooked", "active", []),
        ("vllm.engine.Cache.run", "active", []),
        ("vllm.engine.Cache._oplug_vars", "active", []),
        (
            "vllm.engine.Engine.stop",
            "conditional",
            [("else", "not (cls.__dict__.get('_oplug_other', False))", 25)],
        ),
    ]


# A plugin that replaces two methods of a loader once, guarded by a marker on each of the
# replacements read back from the class, the two tests joined by ``and`` (or ``or``). A
# joined test with anything besides such markers in it stays a condition.
JOINED_PATCH = """from vllm.loader import Loader
from vllm.platforms import current_platform


def my_load(self):
    return self


def my_weights(self):
    return self


def install():
    if getattr(Loader.load, "_jplug", False) and getattr(Loader.weights, "_jplug", False):
        return
    my_load._jplug = True
    my_weights._jplug = True
    Loader.load = my_load
    Loader.weights = my_weights


def install_either():
    if not (hasattr(Loader.save, "_jplug_s") or hasattr(Loader.drop, "_jplug_s")):
        my_load._jplug_s = True
        Loader.save = my_load
        Loader.drop = my_weights


def install_probed():
    if getattr(Loader.stop, "_jplug_p", False) and current_platform.is_tpu():
        return
    my_load._jplug_p = True
    Loader.stop = my_load


install()
install_either()
install_probed()
"""

JOINED_FILES = patch_plugin("jplug", {"p_joined": JOINED_PATCH}, entry="j")


def test_markers_joined_by_and_or_or_are_no_condition(plugin_trees: TreeWriter) -> None:
    inventory = plugin_trees.write("jplug", JOINED_FILES).inventory()
    assert activation_conditions(inventory) == [
        ("vllm.loader.Loader.load", "active", []),
        ("vllm.loader.Loader.weights", "active", []),
        ("vllm.loader.Loader.save", "active", []),
        ("vllm.loader.Loader.drop", "active", []),
        (
            "vllm.loader.Loader.stop",
            "conditional",
            [
                (
                    "else",
                    "not (getattr(Loader.stop, '_jplug_p', False) and current_platform.is_tpu())",
                    30,
                )
            ],
        ),
    ]
