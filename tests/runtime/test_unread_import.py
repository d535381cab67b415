"""A patch of a name its module imported, once the module names it nowhere.

In the shape of a speculative-decoding plugin that swaps, for one call, the process-group
getter its draft module imported by name (``fup.spec.draft`` did ``from fup.dist import
get_group`` and called it), and wraps the same getter in its eager module. At the new
release ``fup.spec.draft`` no longer imports or calls ``get_group`` at all, while
``fup.dist.get_group`` is where it was: the patch sets a name nothing reads there, and a
retarget to ``fup.dist.get_group`` would swap the getter for every module that calls it.
The audit says *look*, with that reason (before: *update*, "moved: retarget to
fup.dist.get_group"). ``fup.spec.eager`` still reads the name, through an import inside
the function that calls it: there the retarget reaches its reader, and the decision stays
*update*. The line in the ``finally`` that puts the getter back goes with its swap.
The upstream releases and the plugin are written by the test."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import pyproject

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit as audit

DIST = "def get_group():\n    return 'group'\n"
USES = "from fup.dist import get_group\n\n\ndef step():\n    return get_group()\n"
DRAFT_NEW = "def step():\n    return 'single'\n"
EAGER_NEW = "def step():\n    from fup.dist import get_group\n\n    return get_group()\n"

PATCH = """import fup.spec.draft as draft
import fup.spec.eager as eager


def _single():
    return "single"


def run_draft():
    original = draft.get_group
    draft.get_group = _single
    try:
        return draft.step()
    finally:
        draft.get_group = original


_orig_group = eager.get_group


def get_group():
    return _orig_group()


eager.get_group = get_group
"""


def test_a_name_its_module_names_nowhere_now_is_to_look_at(tmp_path: Path) -> None:
    old, new = tmp_path / "fup-1.0", tmp_path / "fup-1.1"
    common = {"fup/__init__.py": "", "fup/dist.py": DIST, "fup/spec/__init__.py": ""}
    write_files(
        old,
        {
            **common,
            "pyproject.toml": '[project]\nname = "fup"\nversion = "1.0"\n',
            "fup/spec/draft.py": USES,
            "fup/spec/eager.py": USES,
        },
    )
    write_files(
        new,
        {
            **common,
            "pyproject.toml": '[project]\nname = "fup"\nversion = "1.1"\n',
            "fup/spec/draft.py": DRAFT_NEW,
            "fup/spec/eager.py": EAGER_NEW,
        },
    )
    plugin = write_files(
        tmp_path / "splug",
        {
            "pyproject.toml": pyproject(
                "splug", {"splug": "splug:register"}, group="fup.plugins", upstream="fup"
            ),
            "splug/__init__.py": "def register():\n    from splug.patch import spec\n\n"
            "    spec.run_draft()\n",
            "splug/patch/__init__.py": "",
            "splug/patch/spec.py": PATCH,
        },
    )
    result = audit.audit_runtime(load_config(plugin / "pyproject.toml"), old=str(old), new=str(new))
    found = [(a.entry.target, a.drift.decision, a.drift.evidence[0]) for a in result.entries]
    assert found == [
        (
            "fup.spec.draft.get_group",
            "look",
            "fup.spec.draft.get_group no longer binds get_group at the new release (the old "
            "module imported it from fup.dist.get_group, which the new release still defines "
            "there), and fup.spec.draft names it nowhere now: its code no longer reads the "
            "name, so the patch sets a name nothing reads there; a retarget to "
            "fup.dist.get_group would reach every module that uses it, not this one's "
            "readers alone: find what the module does now before retargeting or removing "
            "the patch",
        ),
        (
            "fup.spec.draft.get_group",
            "retain",
            "restores upstream's fup.spec.draft.get_group after the temporary swap at "
            "splug/patch/spec.py:11: nothing of its own to change (the swap: look)",
        ),
        (
            "fup.spec.eager.get_group",
            "update",
            "fup.spec.eager.get_group moved: retarget to fup.dist.get_group (line 1)",
        ),
    ]
    assert [a.new.status for a in result.entries] == ["moved", "moved", "moved"]
