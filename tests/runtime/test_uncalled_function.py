"""A patch in a function of a module the plugin's loading imports, which no reached scope
calls, is *look*: a user, a test or upstream may call it. Only a patch whose module nothing
imports stays *remove* for "never imported". When the function sets what a running patch of
its file sets, and that patch is kept (an ``uninstall()`` that restores a registry the
``load()`` the entry point runs overrode), it goes with that patch: *retain*.

The shape of a vLLM general plugin that overrides custom-op registry entries from its
``load()`` and offers ``uninstall()`` to restore them; the plugin and both upstream releases
are written by this test."""

from __future__ import annotations

from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

CUSTOM_OP = """op_registry_oot = {}


def forward(x):
    return x
"""
#: ``load()`` runs through the patch package's import; ``uninstall()`` is called by no one
#: in the plugin.
ROPE_FIX = """from fup import custom_op

_ORIG = {}


class FixedRope:
    pass


def load():
    _ORIG["rope"] = custom_op.op_registry_oot.get("rope")
    custom_op.op_registry_oot["rope"] = FixedRope


def uninstall():
    custom_op.op_registry_oot["rope"] = _ORIG["rope"]


def swap_forward():
    custom_op.forward = FixedRope


load()
"""
#: A module of the patch directory nothing imports.
DISABLED = """from fup import custom_op


def _identity(x):
    return x


custom_op.forward = _identity
"""


def test_a_function_nothing_calls_is_look_a_module_nothing_imports_remove(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    releases = {version: {"fup/custom_op.py": CUSTOM_OP} for version in ("1.0", "2.0")}
    files = {
        "uplug/patch/__init__.py": "from uplug.patch import rope_fix  # noqa: F401\n",
        "uplug/patch/rope_fix.py": ROPE_FIX,
        "uplug/patch/disabled.py": DISABLED,
    }
    trees = write_trees(tmp_path, monkeypatch, releases, "uplug", files)
    audited = audit_trees(trees, "uplug").entries
    decisions = [
        (a.entry.line, a.entry.scope, a.drift.decision, a.drift.evidence[0]) for a in audited
    ]
    assert decisions == [
        (
            8,
            "<module>",
            "remove",
            "never imported (no import of uplug.patch.disabled in the modules read): remove "
            "it, or re-enable the import",
        ),
        (
            12,
            "load",
            "retain",
            "the new upstream fup.custom_op.op_registry_oot has no key 'rope': the "
            "registration is still needed",
        ),
        # the counterpart of load's registration (line 12), which is kept
        (
            16,
            "uninstall",
            "retain",
            "uninstall patches fup.custom_op.op_registry_oot, as the patch at "
            "uplug/patch/rope_fix.py:12 does, which the plugin's loading runs and which is "
            "kept: a counterpart nothing in the plugin calls (an uninstall that puts back what "
            "it replaced, or another way to install it), it stands or falls with that patch",
        ),
        # nothing running sets fup.custom_op.forward (disabled.py's module is never imported)
        (
            20,
            "swap_forward",
            "look",
            "never called (uplug.patch.rope_fix is imported but swap_forward is never called "
            "from a reached scope): its module runs, but no call the plugin's loading reaches "
            "runs swap_forward; a user, a test or upstream may call it (a public function, a "
            "method of a class upstream builds): find out whether it runs before removing it",
        ),
    ]
    # the fact that nothing calls it stays, after the reason
    assert audited[2].drift.evidence[1] == decisions[3][3].replace("swap_forward", "uninstall")
