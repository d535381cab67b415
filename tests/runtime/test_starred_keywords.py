"""New parameters that only a ``**mapping`` built at run time may pass to a plugin's copy:
*look* (the trees cannot tell whether the copy, which lacks them, is ever called with them);
one a call passes by name makes the copy *update*.

The plugin below is written by this test in the shape of the sampler kernels' launchers a
vLLM platform plugin copies: upstream's sampler passes a watermark's keywords through
``**self._extra(...)``, a mapping that is empty unless the feature is switched on."""

from __future__ import annotations

from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

OLD_OPS = """def sample(logits, temperature):
    return logits / temperature


def accept(logits, draft):
    return logits > draft
"""
NEW_OPS = """def sample(logits, temperature, marks=None, key=None):
    out = logits / temperature
    if marks is not None:
        out = out + marks * key
    return out


def accept(logits, draft, strict=False):
    if strict:
        return logits >= draft
    return logits > draft
"""
OLD_SAMPLER = """from fup.ops import accept, sample


class Sampler:
    def run(self, logits):
        return accept(sample(logits, 1.0), 0.5)
"""
NEW_SAMPLER = """from fup.ops import accept, sample


class Sampler:
    key = None

    def _extra(self, logits):
        if self.key is None:
            return {}
        return {"marks": logits, "key": self.key}

    def run(self, logits):
        return accept(sample(logits, 1.0, **self._extra(logits)), 0.5, strict=True)
"""
PATCH = """# Note: the fixture device samples and accepts with its own kernels.
import fup.ops


def sample(logits, temperature):
    return logits / max(temperature, 1e-5)


def accept(logits, draft):
    return (logits - draft) > 0


fup.ops.sample = sample
fup.ops.accept = accept
"""


@pytest.fixture
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return write_trees(
        tmp_path,
        monkeypatch,
        {
            "1.0": {"fup/ops.py": OLD_OPS, "fup/sampler.py": OLD_SAMPLER},
            "2.0": {"fup/ops.py": NEW_OPS, "fup/sampler.py": NEW_SAMPLER},
        },
        "fdev",
        {
            "fdev/patch/__init__.py": "from fdev.patch import patch_ops  # noqa: F401\n",
            "fdev/patch/patch_ops.py": PATCH,
        },
    )


def test_parameters_only_a_mapping_may_pass_are_looked_at(trees: Path) -> None:
    result = audit_trees(trees, "fdev")
    decisions = {a.entry.target: (a.drift.decision, a.drift.evidence[0]) for a in result.entries}
    assert decisions == {
        # marks and key reach sample only through **self._extra(logits), empty unless a
        # key is set: whether the copy breaks is decided at run time
        "fup.ops.sample": (
            "look",
            "upstream added key, marks (with a default) to sample, which the plugin replaces "
            "by its own copy lacking them; no upstream call passes them by name or position, "
            "but a call passes a **mapping that may hold them at run time: the copy breaks "
            "only when it does, which the trees cannot tell; find what fills the mapping (a "
            "feature the plugin may not support) before keeping or updating the copy",
        ),
        # upstream's sampler passes strict=True by name: the copy breaks
        "fup.ops.accept": (
            "update",
            "upstream fup.ops.accept changed: signature: (logits, draft) -> (logits, draft, "
            "strict=False), body; the downstream change is not in the new upstream",
        ),
    }
