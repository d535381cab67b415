"""Constants the plugin sets ahead of the upstream release that defines them, in the shape of
vllm-ascend 0.27.1rc1's ``patch_mamba_utils.py`` (``mamba_utils._TEMPORAL_TILES = 1``, a
tuning constant vLLM 0.28.0 adds as ``16``): a literal the plugin sets over another literal
of upstream's is its own value (*retain*, both values said); an equal literal, a value that
is no literal, or a function the plugin installs stays *update* (read it against
upstream's definition).

The upstream releases and the plugin are written by the test."""

from __future__ import annotations

import ast
from pathlib import Path

from plugin_trees import mup_plugin

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit as audit
from patchkeeper.runtime.judge.constant_values import plugin_value, upstream_value
from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.model import Mechanism, PatchEntry

OLD = {
    "pyproject.toml": '[project]\nname = "mup"\nversion = "1.0"\n',
    "mup/__init__.py": "",
    "mup/mamba_utils.py": "def launch(states):\n    return states\n",
}

NEW = {
    "pyproject.toml": '[project]\nname = "mup"\nversion = "1.1"\n',
    "mup/__init__.py": "",
    "mup/mamba_utils.py": (
        "_TILES = 16\n"
        '_MODE: str = "fast"\n'
        "_SCALE = 2\n\n\n"
        "def copy_states(states):\n    return states\n\n\n"
        "def launch(states):\n    return copy_states(states) * _TILES\n"
    ),
}

PATCH = """import os

import mup.mamba_utils as mamba_utils


def copy_states(states):
    return list(states)


mamba_utils._TILES = 1
mamba_utils._MODE = "fast"
mamba_utils._SCALE = int(os.environ.get("PLUG_SCALE", "2"))
mamba_utils.copy_states = copy_states
"""

#: The *update* of a target new upstream.
ARRIVED = (
    "{target} is new upstream at {target} (the old release did not have it): "
    "the patch now replaces upstream's own definition; review it against upstream's (remove "
    "it if it was a backport of that change)"
)


def _audit(tmp_path: Path) -> dict[str, tuple[str, str]]:
    old, new = tmp_path / "mup-1.0", tmp_path / "mup-1.1"
    write_files(old, OLD)
    write_files(new, NEW)
    plugin = tmp_path / "mplug"
    write_files(
        plugin,
        mup_plugin(
            {
                "mplug/patch/__init__.py": "import mplug.patch.patch_mamba_utils  # noqa: F401\n",
                "mplug/patch/patch_mamba_utils.py": PATCH,
            }
        ),
    )
    result = audit.audit_runtime(load_config(plugin / "pyproject.toml"), old=str(old), new=str(new))
    return {a.entry.target: (a.drift.decision, a.drift.evidence[0]) for a in result.entries}


def test_a_literal_over_another_literal_upstream_added_is_kept(tmp_path: Path) -> None:
    def arrived(name: str) -> tuple[str, str]:
        return ("update", ARRIVED.format(target=f"mup.mamba_utils.{name}"))

    assert _audit(tmp_path) == {
        "mup.mamba_utils._TILES": (
            "retain",
            "the new upstream defines mup.mamba_utils._TILES as 16 (mup/mamba_utils.py:1) and "
            "the plugin sets 1 over it: its own value, set on purpose; a value has nothing of "
            "upstream's to merge",
        ),
        # the same value: upstream may have taken it in, which is for a person to read
        "mup.mamba_utils._MODE": arrived("_MODE"),
        # not a literal: what it sets is known at run time only
        "mup.mamba_utils._SCALE": arrived("_SCALE"),
        # a function: the copy is read against upstream's
        "mup.mamba_utils.copy_states": arrived("copy_states"),
    }


def test_values_read_from_each_side() -> None:
    entry = PatchEntry(
        "p/m.py", 2, "p.m", "<module>", "mup.mamba_utils._TILES", Mechanism.ASSIGNMENT
    )
    source = "import mup.mamba_utils as m\nm._TILES = -1\nm._OTHER = 2\n"
    value = plugin_value(ast.parse(source), entry)
    assert value is not None and ast_text(value) == "-1"
    # another name on the line, a tuple target, a file that does not parse
    assert plugin_value(ast.parse(source.replace("_TILES", "_T")), entry) is None
    assert plugin_value(ast.parse("import m\nm._TILES, x = 1, 2\n"), entry) is None
    assert plugin_value(None, entry) is None
    assert upstream_value(None) is None
    code = Code("mup/m.py", 4, ("    _TILES: int = 16\n",))
    found = upstream_value(code)
    assert found is not None and ast_text(found) == "16"
    assert upstream_value(Code("mup/m.py", 1, ("def f():\n", "    return 1\n"))) is None


def ast_text(node: ast.expr) -> str:
    return ast.unparse(node)
