"""A patch of a name its module only imported goes once the module stops importing it and
another entry already patches the definition with the same replacement.

In the shape of a speculative-decoding plugin: it sets its ``should_share`` on
``kup.spec.eagle`` (which defines ``_should_share``) and on ``kup.spec.draft`` (which
imported it by name at the old release). The new ``draft.py`` imports the name inside the
function that uses it, so the module no longer binds it: the lookup calls the target moved
to ``kup.spec.eagle._should_share``, which the plugin already patches. The second patch is
a leftover (*remove*, naming the entry that covers it); without the covering entry it stays
a retarget (*update*), and so it does when the other entry sets the name on yet another
module that imported it (``kup.spec.sampler``, in the shape of vllm-ascend 0.22.1rc1's
``sampler.gumbel_sample = gumbel_sample`` beside ``speculator.gumbel_sample = ...``): that
rebinds the sampler's name alone, and the definition's other readers still get upstream's
function. The upstream releases and the plugins are written by the test."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import pyproject

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit as audit

EAGLE = """def _should_share(model, flag, draft, target):
    return getattr(model, flag, False) and draft is not None and target is not None
"""

DRAFT_OLD = """from kup.spec.eagle import _should_share


def load_draft(model, draft, target):
    if _should_share(model, "share_embed", draft, target):
        draft.embed = target.embed
    return draft
"""

DRAFT_NEW = """def load_draft(model, draft, target):
    from kup.spec.eagle import _should_share

    if _should_share(model, "share_embed", draft, target):
        draft.embed = target.embed
    return draft
"""

BOTH = """import kup.spec.draft as draft_module
import kup.spec.eagle as eagle_module


def should_share(model, flag, draft, target):
    if target is not None and not hasattr(target, "weight"):
        return False
    return getattr(model, flag, False) and draft is not None


eagle_module._should_share = should_share
draft_module._should_share = should_share
"""

ONLY_DRAFT = """import kup.spec.draft as draft_module


def should_share(model, flag, draft, target):
    if target is not None and not hasattr(target, "weight"):
        return False
    return getattr(model, flag, False) and draft is not None


draft_module._should_share = should_share
"""


SAMPLER = """from kup.spec.eagle import _should_share


def sample(model, draft, target):
    return _should_share(model, "share_sample", draft, target)
"""

SAMPLER_AND_DRAFT = """import kup.spec.draft as draft_module
import kup.spec.sampler as sampler_module


def should_share(model, flag, draft, target):
    if target is not None and not hasattr(target, "weight"):
        return False
    return getattr(model, flag, False) and draft is not None


sampler_module._should_share = should_share
draft_module._should_share = should_share
"""


def _audit(tmp_path: Path, patch: str) -> list[tuple[int, str, str, str]]:
    old, new = tmp_path / "kup-1.0", tmp_path / "kup-1.1"
    for root, version, draft in ((old, "1.0", DRAFT_OLD), (new, "1.1", DRAFT_NEW)):
        write_files(
            root,
            {
                "pyproject.toml": f'[project]\nname = "kup"\nversion = "{version}"\n',
                "kup/__init__.py": "",
                "kup/spec/__init__.py": "",
                "kup/spec/eagle.py": EAGLE,
                "kup/spec/draft.py": draft,
                "kup/spec/sampler.py": SAMPLER,
            },
        )
    plugin = write_files(
        tmp_path / "kplug",
        {
            "pyproject.toml": pyproject(
                "kplug",
                {"kplug": "kplug:register"},
                group="kup.plugins",
                version="0.1",
                upstream="kup",
            ),
            "kplug/__init__.py": "def register():\n    from kplug.patch import share  # noqa\n",
            "kplug/patch/__init__.py": "",
            "kplug/patch/share.py": patch,
        },
    )
    result = audit.audit_runtime(load_config(plugin / "pyproject.toml"), old=str(old), new=str(new))
    return [
        (a.entry.line, a.entry.target, a.drift.decision, a.drift.evidence[0])
        for a in result.entries
    ]


def test_the_patch_of_an_import_the_module_dropped_goes_when_covered(tmp_path: Path) -> None:
    assert _audit(tmp_path, BOTH) == [
        (
            11,
            "kup.spec.eagle._should_share",
            "retain",
            "upstream kup.spec.eagle._should_share is unchanged from the old version (AST "
            "without docstrings, signature, decorators)",
        ),
        (
            12,
            "kup.spec.draft._should_share",
            "remove",
            "kup.spec.draft._should_share no longer binds _should_share at the new release "
            "(the old module imported it from kup.spec.eagle._should_share): nothing reads "
            "the name there; kplug/patch/share.py:11 already patches "
            "kup.spec.eagle._should_share with the same replacement, which every reader of "
            "the name reaches: this patch is a leftover",
        ),
    ]


def test_without_a_covering_patch_it_stays_a_retarget(tmp_path: Path) -> None:
    assert _audit(tmp_path, ONLY_DRAFT) == [
        (
            10,
            "kup.spec.draft._should_share",
            "update",
            "kup.spec.draft._should_share moved: retarget to kup.spec.eagle._should_share (line 1)",
        ),
    ]


def test_a_patch_of_another_importer_covers_no_reader(tmp_path: Path) -> None:
    assert _audit(tmp_path, SAMPLER_AND_DRAFT) == [
        (
            11,
            "kup.spec.sampler._should_share",
            "retain",
            "upstream kup.spec.eagle._should_share is unchanged from the old version (AST "
            "without docstrings, signature, decorators)",
        ),
        (
            12,
            "kup.spec.draft._should_share",
            "update",
            "kup.spec.draft._should_share moved: retarget to kup.spec.eagle._should_share (line 1)",
        ),
    ]
