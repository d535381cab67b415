"""Patches a guard stopped at the old release and lets through at the new one
(:mod:`patchkeeper.runtime.judge.opened_guards`).

In the shape of a hardware plugin that writes ahead of the next upstream release: one file
adapts an upstream config module only under ``if importlib.util.find_spec("oup.config.extra")
is not None:``, another replaces two state ops inside ``try: import ... except
ImportError: pass`` where one of the imported modules is new, a third adds a method only
where ``hasattr(Request, "tokens")`` holds. Upstream ``oup`` 1.0 lacks both modules and the
method, and 2.0 has them: the patches never ran at 1.0 and run first at 2.0, so the
decision is *look*, the guard and the module named (before: *retain*, "unchanged", for a
target upstream left alone, and *update*, "new upstream", for one the new module brings).
The same guards on modules both releases have, or on another library, decide nothing, nor
does a new module imported after the patch statement in its ``try`` (the patch ran before
the import failed), nor the ``else`` of a probe, which ran at 1.0 and no longer runs at 2.0
(dead there: *remove*): the other rules' decisions stand. The upstream releases and the plugin are written by the test."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import pyproject

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit as audit

ARGS = "def get_kwargs(cls):\n    return {}\n\n\nclass Args:\n    pass\n"
GATHER = "def gather(state, index):\n    return state[index]\n"
SCATTER = "def scatter(state, src, index):\n    state[index] = src\n"

#: Adapts the config module only 2.0 has; the second probe names a module both releases have.
CONFIG = """import importlib.util

import oup.engine.args as args

if importlib.util.find_spec("oup.config.extra") is not None:

    def get_kwargs(cls):
        return {"extra": True}

    args.get_kwargs = get_kwargs

if importlib.util.find_spec("oup.engine.args"):

    class Args:
        pass

    args.Args = Args
"""

#: Replaces the state ops; the first block imports a module only 2.0 has.
OPS = """try:
    import oup.ops.gather as gather_ops
    import oup.ops.scatter as scatter_ops

    def gather(state, index):
        return state.index_select(0, index)

    def scatter(state, src, index):
        state.index_copy_(0, index, src)

    gather_ops.gather = gather
    scatter_ops.scatter = scatter
except ImportError:
    pass

try:
    import torch_npu  # another library: the guard says nothing of upstream
    from oup.ops import gather as again

    def gather_twice(state, index):
        return state[index]

    again.gather = gather_twice
except ImportError:
    pass


def gather_early(state, index):
    return state[index]


try:
    import oup.ops.gather as early

    early.gather = gather_early  # runs at 1.0: the failing import comes after it
    import oup.ops.scatter as late
except ImportError:
    late = None
"""

SAME = (
    "upstream {} is unchanged from the old version (AST without docstrings, signature, decorators)"
)
#: Counts a request's tokens where upstream's Request has the method (only 2.0 has).
PROBE = """from oup.engine.request import Request

if hasattr(Request, "tokens"):

    def tokens(self):
        return list(self.ids)

    Request.tokens = tokens
"""
#: Counts them its own way where upstream's Request lacks the method (1.0): the else branch.
FALLBACK = """from oup.engine.request import Request

if hasattr(Request, "tokens"):
    pass
else:

    def tokens(self):
        return [int(i) for i in self.ids]

    Request.tokens = tokens
"""
REQUEST = "class Request:\n    def __init__(self, ids):\n        self.ids = ids\n"
TOKENS = "\n    def tokens(self):\n        return self.ids\n"

OPENED = (
    "the patch did not run at the old release: its guard at {} needs {}, which only the new "
    "upstream has; it runs for the first time at the new release, so the comparison of the "
    "two releases says nothing of it: read it against the new upstream's code before "
    "keeping it"
)


def test_a_patch_a_guard_opens_at_the_new_release_is_looked_at(tmp_path: Path) -> None:
    old, new = tmp_path / "oup-1.0", tmp_path / "oup-2.0"
    common = {
        "oup/__init__.py": "",
        "oup/engine/__init__.py": "",
        "oup/engine/args.py": ARGS,
        "oup/ops/__init__.py": "",
        "oup/ops/gather.py": GATHER,
    }
    write_files(
        old,
        {
            **common,
            "pyproject.toml": '[project]\nname = "oup"\nversion = "1.0"\n',
            "oup/engine/request.py": REQUEST,
        },
    )
    write_files(
        new,
        {
            **common,
            "pyproject.toml": '[project]\nname = "oup"\nversion = "2.0"\n',
            "oup/config/__init__.py": "",
            "oup/config/extra.py": "class ExtraConfig:\n    enabled: bool = False\n",
            "oup/ops/scatter.py": SCATTER,
            "oup/engine/request.py": REQUEST + TOKENS,
        },
    )
    plugin = write_files(
        tmp_path / "oplug",
        {
            "pyproject.toml": pyproject(
                "oplug", {"oplug": "oplug:register"}, group="oup.plugins", upstream="oup"
            ),
            "oplug/__init__.py": (
                "def register():\n    from oplug.patch import config, fallback, ops, probe\n"
            ),
            "oplug/patch/__init__.py": "",
            "oplug/patch/config.py": CONFIG,
            "oplug/patch/ops.py": OPS,
            "oplug/patch/probe.py": PROBE,
            "oplug/patch/fallback.py": FALLBACK,
        },
    )
    result = audit.audit_runtime(load_config(plugin / "pyproject.toml"), old=str(old), new=str(new))
    found = [(a.entry.target, a.drift.decision, a.drift.evidence) for a in result.entries]
    probe = "oplug/patch/config.py:5 (if importlib.util.find_spec('oup.config.extra') is not None)"
    guard = "oplug/patch/ops.py:1 (try: ... except ImportError)"
    assert found == [
        # what the other rules said stays next in the evidence
        (
            "oup.engine.args.get_kwargs",
            "look",
            (OPENED.format(probe, "oup.config.extra"), SAME.format("oup.engine.args.get_kwargs")),
        ),
        # a probe of a module both releases have decides nothing
        ("oup.engine.args.Args", "retain", (SAME.format("oup.engine.args.Args"),)),
        # the else branch of the probe ran at 1.0 and no longer runs at 2.0: not opened, dead
        (
            "oup.engine.request.Request.tokens",
            "remove",
            (
                "its feature probe is false at 2.0 (oplug/patch/fallback.py:3: not "
                "(hasattr(Request, 'tokens'))): upstream's oup.engine.request.Request has "
                "tokens, so the branch the patch is in no longer runs: dead code there",
                "oup.engine.request.Request.tokens is not in the old upstream "
                "(oup.engine.request.Request has no tokens) but is found in the new one at "
                "oup.engine.request.Request.tokens",
            ),
        ),
        (
            "oup.ops.gather.gather",
            "look",
            (OPENED.format(guard, "oup.ops.scatter"), SAME.format("oup.ops.gather.gather")),
        ),
        (
            "oup.ops.scatter.scatter",
            "look",
            (
                OPENED.format(guard, "oup.ops.scatter"),
                "oup.ops.scatter.scatter is new upstream at oup.ops.scatter.scatter (the old "
                "release did not have it): the patch now replaces upstream's own definition; "
                "review it against upstream's (remove it if it was a backport of that change)",
                "oup.ops.scatter.scatter is not in the old upstream (no definition of the name "
                "there) but is found in the new one at oup.ops.scatter.scatter",
            ),
        ),
        # a guard of another library and of a module both releases have decides nothing
        ("oup.ops.gather.gather", "retain", (SAME.format("oup.ops.gather.gather"),)),
        # the new module imported after the patch statement: the patch ran at 1.0
        ("oup.ops.gather.gather", "retain", (SAME.format("oup.ops.gather.gather"),)),
        # a feature probe false at 1.0 and true at 2.0
        (
            "oup.engine.request.Request.tokens",
            "look",
            (
                "the patch did not run at the old release: its feature probe at "
                "oplug/patch/probe.py:3 (if hasattr(Request, 'tokens')) is false there and true "
                "at the new release (upstream's oup.engine.request.Request has tokens there); it "
                "runs for the first time at the new release, so the comparison of the two "
                "releases says nothing of it: read it against the new upstream's code before "
                "keeping it",
                "oup.engine.request.Request.tokens is new upstream at "
                "oup.engine.request.Request.tokens (the old release did not have it): the patch "
                "now replaces upstream's own definition; review it against upstream's (remove it "
                "if it was a backport of that change)",
                "oup.engine.request.Request.tokens is not in the old upstream "
                "(oup.engine.request.Request has no tokens) but is found in the new one at "
                "oup.engine.request.Request.tokens",
            ),
        ),
    ]
