"""Where the audit says a target's name is defined when it is not at the patch's path.

A plugin in the shape of a speculative-decoding plugin patches ``Qwen2Model.load_weights``
and sets a marker attribute on ``Qwen2Model`` in a module neither release has
(``models.qwen2_eagle``); upstream's ``Qwen2Model`` is in ``models.qwen2``. The place named
for ``load_weights`` is its own line (before: the class's line), and the marker, which
upstream never defines, is not said to be defined there: the place names the class's line
and the part it lacks. The upstream releases and the plugin are written by the test."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import pyproject

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit as audit

QWEN2 = """import torch


class Qwen2Model:
    def __init__(self):
        self.layers = []

    def load_weights(self, weights):
        return set()
"""

PATCH = """from eup.models.qwen2_eagle import Qwen2Model

_MARKER = "_eplug_patched"


def apply():
    original_load_weights = Qwen2Model.load_weights

    def load_weights(self, weights):
        return original_load_weights(self, weights)

    Qwen2Model.load_weights = load_weights
    setattr(Qwen2Model, _MARKER, True)
"""


def test_the_place_found_elsewhere_is_a_definition_or_says_what_it_lacks(tmp_path: Path) -> None:
    old, new = tmp_path / "eup-1.0", tmp_path / "eup-1.1"
    for root, version in ((old, "1.0"), (new, "1.1")):
        write_files(
            root,
            {
                "pyproject.toml": f'[project]\nname = "eup"\nversion = "{version}"\n',
                "eup/__init__.py": "",
                "eup/models/__init__.py": "",
                "eup/models/qwen2.py": QWEN2,
            },
        )
    plugin = write_files(
        tmp_path / "eplug",
        {
            "pyproject.toml": pyproject(
                "eplug",
                {"eplug": "eplug:register"},
                group="eup.plugins",
                version="0.1",
                upstream="eup",
            ),
            "eplug/__init__.py": (
                "def register():\n    from eplug.patch import eagle\n\n    eagle.apply()\n"
            ),
            "eplug/patch/__init__.py": "",
            "eplug/patch/eagle.py": PATCH,
        },
    )
    result = audit.audit_runtime(load_config(plugin / "pyproject.toml"), old=str(old), new=str(new))
    found = {a.entry.target: (a.drift.decision, a.new.candidates) for a in result.entries}
    assert found == {
        "eup.models.qwen2_eagle.Qwen2Model.load_weights": (
            "look",
            ("eup.models.qwen2.Qwen2Model.load_weights (line 8)",),
        ),
        "eup.models.qwen2_eagle.Qwen2Model._eplug_patched": (
            "look",
            (
                "eup.models.qwen2.Qwen2Model._eplug_patched (line 4: Qwen2Model there, "
                "without _eplug_patched)",
            ),
        ),
    }
