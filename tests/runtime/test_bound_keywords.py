"""A ``functools.partial`` of the original binding a keyword the new release dropped.

``bplug`` fixes ``pin_memory`` of upstream's ``h2d`` and ``sync`` with
``functools.partial``, and ``mode`` of ``fill``. The new release drops ``pin_memory``
from both and reads, in its place, the name that was its default (``PIN``); it binds
``PIN = pin_available()`` (what the patch binds for ``h2d``: upstream now computes the
value the same way, *remove*) while the patch binds ``sync``'s to ``False`` (its own
value, which must reach the new function another way: *update*, never *remove*). ``fill``
still takes ``mode``: the other rules decide (a wrapper of a changed body: *retain*).
The upstream and plugin files are written by the test in the shape of tpu-inference's
``async_tensor_h2d`` partial and vLLM 0.24.0's ``PIN_MEMORY``.
"""

from __future__ import annotations

from plugin_trees import TreeWriter, patch_plugin

PLATFORM = """def pin_available():
    return True
"""

OLD = """from vllm.platform import pin_available

PIN = True


def h2d(data, device, pin_memory=PIN):
    return (data, device, pin_memory)


def sync(data, pin_memory=PIN):
    return (data, pin_memory)


def fill(data, mode="a"):
    return data
"""

NEW = """from vllm.platform import pin_available

PIN = pin_available()


def h2d(data, device, dtype=None):
    return (data, device, dtype, PIN)


def sync(data):
    return (data, PIN)


def fill(data, mode="a"):
    return (data, mode)
"""

PATCH = """import functools

import vllm.utils as utils
from vllm.platform import pin_available

utils.h2d = functools.partial(utils.h2d, pin_memory=pin_available())
utils.sync = functools.partial(utils.sync, pin_memory=False)
utils.fill = functools.partial(utils.fill, mode="b")
"""

PLUGIN = patch_plugin("bplug", {"p_utils": PATCH}, entry="b")


def test_a_partial_binding_a_dropped_keyword_is_removed_only_when_upstream_computes_it(
    plugin_trees: TreeWriter,
) -> None:
    result = plugin_trees.write(
        "bplug",
        PLUGIN,
        {"vllm/__init__.py": "", "vllm/platform.py": PLATFORM, "vllm/utils.py": OLD},
        {"vllm/__init__.py": "", "vllm/platform.py": PLATFORM, "vllm/utils.py": NEW},
    ).audit()
    assert [(a.entry.target, a.drift.decision, a.drift.evidence[0]) for a in result.entries] == [
        (
            "vllm.utils.h2d",
            "remove",
            "the patch is functools.partial of the original binding pin_memory=, a parameter "
            "the new upstream vllm.utils.h2d no longer takes: every call of it raises "
            "TypeError; the new upstream computes it itself, as the patch bound it: "
            "PIN = pin_available() (vllm.utils:3)",
        ),
        (
            "vllm.utils.sync",
            "update",
            "the patch is functools.partial of the original binding pin_memory=, a parameter "
            "the new upstream vllm.utils.sync no longer takes: every call of it raises "
            "TypeError; the value it fixed must reach the new function another way",
        ),
        (
            "vllm.utils.fill",
            "retain",
            "upstream vllm.utils.fill changed (body) but the wrapper calls the original and "
            "the signature is the same",
        ),
    ]
