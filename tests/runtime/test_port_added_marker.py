"""``runtime port`` on a marker attribute the plugin sets on an upstream class that the new
release drops: a plugin ``cplug`` and two releases of an upstream ``cup`` written by this
test. The marker (``Engine._cplug_patched``) never existed upstream: it is *added by the
plugin*, never said to have existed at the old release; an attribute the old class set on
its instances (``Engine.kv``, ``self.kv = 0`` in ``__init__``) and a method
(``Engine.step``) did exist there. All three stay *look*: the class they belong to is gone."""

from __future__ import annotations

from pathlib import Path

import pytest
from portclaims import make

from patchkeeper.config import load_config
from patchkeeper.runtime.port import runtime_port as port

ENGINE = """class Engine:
    def __init__(self):
        self.kv = 0

    def step(self):
        return 0
"""

PATCH = """from cup.eng import Engine


def step(self):
    return 1


Engine.step = step
Engine.kv = 5
Engine._cplug_patched = True
"""

GONE = (
    "existed at the old release and is gone from the new one without a trace: the patch no "
    "longer replaces anything there; find where upstream's code went (dropped, or folded into "
    "a caller the plugin must now patch) before removing it"
)


def test_a_marker_the_plugin_adds_is_added_by_the_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    releases = {"1.0": {"cup/eng.py": ENGINE}, "2.0": {"cup/eng.py": "class Other:\n    pass\n"}}
    make(tmp_path, monkeypatch, {"patch_eng.py": PATCH}, releases)
    result = port.port_runtime(
        load_config(tmp_path / "plugin" / "pyproject.toml"),
        port.RuntimePortRequest(old=str(tmp_path / "cup-1.0"), new=str(tmp_path / "cup-2.0")),
    )
    found = [(e.line, e.target, e.decision, e.detail) for e in result.entries if e.line > 1]
    assert found == [
        (8, "cup.eng.Engine.step", "look", f"cup.eng.Engine.step {GONE}"),
        (9, "cup.eng.Engine.kv", "look", f"cup.eng.Engine.kv {GONE}"),
        (
            10,
            "cup.eng.Engine._cplug_patched",
            "look",
            "cup.eng.Engine._cplug_patched is added by the plugin (the old release's "
            "cup.eng.Engine does not define _cplug_patched); cup.eng.Engine, the class it is "
            "set on, is gone from the new release without a trace: find where upstream's "
            "class went before removing the patch",
        ),
    ]
