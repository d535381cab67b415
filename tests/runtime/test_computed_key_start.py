"""A ``sys.modules`` entry whose key is computed at run time, in the shape of vllm-mindspore
0.5.0's ``transformers_patch.py``: a loop swaps ``transformers.models`` submodules for
``mindone``'s under ``tf_modname = f"transformers.models.{attr}.{sub_attr}"``. Every value
the key takes starts in ``transformers``, outside the upstream being upgraded: *retain*,
with the computed key said. A key that starts in the upstream (``f"tinyup.{name}"``), has
no fixed start, or is a loop variable stays *look*.

The plugin is written by the test on the ``tinyup`` fixture (1.0 and 2.0) of
``tests/runtime/fixtures``."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from tinyplug import HEADER, copy_releases, versions, write_plugin

from patchkeeper.runtime.judge.computed_keys import key_starts
from patchkeeper.runtime.model import Mechanism, PatchEntry

SWAPS = (
    HEADER
    + """import sys


def _patch_processing_module(names, prefix):
    for attr in names:
        for sub_attr in ("processing_a", "processing_b"):
            tf_modname = f"transformers.models.{attr}.{sub_attr}"
            mo_modname = f"mindone.transformers.models.{attr}.{sub_attr}"
            if tf_modname in sys.modules:
                sys.modules[tf_modname] = sys.modules[mo_modname]
            else:
                tf_modname = "transformers.models." + attr
                sys.modules[tf_modname] = sys.modules[mo_modname]
    for name in names:
        up_name = f"tinyup.{name}"
        sys.modules[up_name] = sys.modules[name]
        sys.modules[prefix + name] = sys.modules[name]
    for module_name in names:
        sys.modules[module_name] = sys.modules["x"]


_patch_processing_module([], "")
"""
)


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The two tinyup releases under ``tmp_path`` and a private cache."""
    return copy_releases(tmp_path, monkeypatch)


def test_a_computed_key_that_starts_outside_the_upstream_is_kept(upstream: Path, cli) -> None:
    root = write_plugin(upstream, {"plug/patch/p_swaps.py": SWAPS})
    run = cli("runtime", "audit", *versions(upstream), "--json", cwd=root)
    found = [
        (a["entry"]["line"], a["entry"]["key"], a["drift"]["decision"], a["drift"]["evidence"])
        for a in json.loads(run.out)["entries"]
    ]

    def unknown(line: int, key: str) -> str:
        return (
            f"sys.modules[{key}] (plug/patch/p_swaps.py:{line}): the key is computed at run "
            "time, so which module it replaces is not known statically; look at the code by "
            "hand"
        )

    assert found == [
        (
            13,
            "tf_modname",
            "retain",
            [
                "sys.modules[tf_modname] (plug/patch/p_swaps.py:13): the key is computed at "
                "run time, but every value it takes starts with 'transformers.models.', in "
                "transformers, outside the upstream being upgraded (tinyup): this upgrade "
                "does not change the modules it replaces",
                unknown(13, "tf_modname"),
            ],
        ),
        (
            16,
            "tf_modname",
            "retain",
            [
                "sys.modules[tf_modname] (plug/patch/p_swaps.py:16): the key is computed at "
                "run time, but every value it takes starts with 'transformers.models.', in "
                "transformers, outside the upstream being upgraded (tinyup): this upgrade "
                "does not change the modules it replaces",
                unknown(16, "tf_modname"),
            ],
        ),
        # the upstream's own modules: which one is for a person to look at
        (19, "up_name", "look", [unknown(19, "up_name")]),
        # no fixed start
        (20, "prefix + name", "look", [unknown(20, "prefix + name")]),
        # a loop variable: its values are not followed
        (22, "module_name", "look", [unknown(22, "module_name")]),
    ]


def _starts(source: str, key: str, scope: str = "f") -> tuple[str, ...]:
    entry = PatchEntry("p/m.py", 1, "p.m", scope, "sys.modules", Mechanism.SYS_MODULES, key=key)
    return key_starts(ast.parse(source), entry)


def test_key_starts_follow_plain_assignments_only() -> None:
    both = 'def f(a):\n    k = f"x.y.{a}"\n    k = "z." + a\n    sys.modules[k] = a\n'
    assert _starts(both, "k") == ("x.y.", "z.")
    # a parameter, a tuple target, an import, a name bound in a nested function only
    assert _starts("def f(k):\n    sys.modules[k] = 1\n", "k") == ()
    assert _starts('def f(a):\n    k, j = "x.", a\n    k = "x."\n', "k") == ()
    assert _starts('def f():\n    import k\n    k = "x."\n', "k") == ()
    assert _starts('def f():\n    def g():\n        k = "x."\n', "k") == ()
    # the key expression itself, in a method's scope or the module's
    source = "class C:\n    def m(self, a):\n        pass\n"
    assert _starts(source, "f'vllm.{a}'", "C.m") == ("vllm.",)
    assert _starts('k = "x." + a\n', "k", "<module>") == ("x.",)
    # a file that does not parse
    entry = PatchEntry("p/m.py", 1, "p.m", "f", "sys.modules", Mechanism.SYS_MODULES, key="k")
    assert key_starts(None, entry) == ()
