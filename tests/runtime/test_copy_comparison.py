"""How a plugin's copy is compared with upstream's definition (a plugin ``cplug`` and two
releases of an upstream ``cup``, written by this test): the copy's own decorators, name
and signature layout are no difference; a wrapper and a plugin class of another origin are
not copies. Upstream changes only ``Config`` between the releases (its base and body)."""

from __future__ import annotations

from pathlib import Path

import pytest
from portclaims import make

from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit
from patchkeeper.runtime.port import runtime_port as port

KERN = """def triton_jit(fn=None, **options):
    return fn or (lambda f: f)


@triton_jit
def mm_k(a, b):
    c = a @ b
    return c


def scale(x, factor, *, bias=0):
    y = x * factor
    return y + bias


def shift(x, by):
    z = x + by
    return z
"""

#: 2.0 changes the decorator of ``mm_q`` (and only that): the copy's must follow.
MM_Q = {
    "1.0": "\n\n@triton_jit\ndef mm_q(a, b):\n    return a * b\n",
    "2.0": "\n\n@triton_jit(do_not_specialize=['b'])\ndef mm_q(a, b):\n    return a * b\n",
}

CONFIG = {
    "1.0": "class Config:\n    def __init__(self):\n        self.size = 1\n        self.name = 'cpu'\n",
    "2.0": "class Base:\n    pass\n\n\nclass Config(Base):\n    def __init__(self):\n"
    "        self.size = 2\n        self.name = 'cpu'\n",
}

BANNER_OPEN = "    # /------ Modification ------\\\n"
BANNER_CLOSE = "    # \\---------------------------/\n"

PATCH = f"""# Note: n
# Affected versions: cup 1.0
# Remove at: 3.0
import cup.configs
import cup.kern
from cup.kern import triton_jit


@triton_jit
def mm_k(a, b):
    c = a @ b
{BANNER_OPEN}    c = c.npu()
{BANNER_CLOSE}    return c


def npu_scale(
    x,
    factor,
    *,
    bias=0,
):
    y = x * factor
{BANNER_OPEN}    y = y.npu()
{BANNER_CLOSE}    return y + bias


_orig_shift = cup.kern.shift


def shift(x, by):
{BANNER_OPEN}    x = x.npu()
{BANNER_CLOSE}    return _orig_shift(x, by)


class NpuConfig:
    device = "npu"

    def describe(self):
        return self.device


@triton_jit
def mm_q(a, b):
    return a * b


cup.kern.mm_k = mm_k
cup.kern.mm_q = mm_q
cup.kern.scale = npu_scale
cup.kern.shift = shift
cup.configs.Config = NpuConfig
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    releases = {
        version: {"cup/kern.py": KERN + MM_Q[version], "cup/configs.py": config}
        for version, config in CONFIG.items()
    }
    return make(tmp_path, monkeypatch, {"patch_kern.py": PATCH}, releases)


def _options(work: Path) -> dict[str, str]:
    return {"old": str(work / "cup-1.0"), "new": str(work / "cup-2.0")}


def test_a_copy_is_compared_as_a_copy(work: Path) -> None:
    config = load_config(work / "plugin" / "pyproject.toml")
    result = runtime_audit.audit_runtime(config, **_options(work))
    facts = [
        (a.entry.target, a.entry.mechanism.value, a.drift.decision, a.drift.outside_banners)
        for a in result.entries
    ]
    assert facts == [
        # @triton_jit above both definitions: not a decorator the copy removed
        ("cup.kern.mm_k", "assignment", "retain", ()),
        # upstream changed mm_q's decorator
        ("cup.kern.mm_q", "assignment", "update", ()),
        # npu_scale is scale under its own name, its signature wrapped over several lines
        ("cup.kern.scale", "assignment", "retain", ()),
        # a wrapper calls the original: its lines are not a copy's
        ("cup.kern.shift", "wrapper", "retain", ()),
        # NpuConfig is the plugin's own class, not a copy of upstream's Config
        ("cup.configs.Config", "assignment", "update", ()),
    ]


DECORATOR_DIFF = """--- a/cplug/patch/patch_kern.py
+++ b/cplug/patch/patch_kern.py
@@ -45,7 +45,7 @@
         return self.device
 
 
-@triton_jit
+@triton_jit(do_not_specialize=['b'])
 def mm_q(a, b):
     return a * b
 
"""


def test_port_follows_the_decorators_and_leaves_a_class_of_another_origin(work: Path) -> None:
    """The copy's decorator is part of the copy: upstream's new ``@triton_jit(...)`` is
    written over the copy's old one (before: "already has the upstream change", the span
    merged starting at ``def``); upstream's class is not merged into the plugin's own."""
    config = load_config(work / "plugin" / "pyproject.toml")
    result = port.port_runtime(config, port.RuntimePortRequest(**_options(work)))
    assert [(e.target, e.action, e.detail) for e in result.entries if e.decision == "update"] == [
        (
            "cup.kern.mm_q",
            "merged",
            "decorators of cplug/patch/patch_kern.py:49 rewritten as upstream's: @triton_jit -> "
            "@triton_jit(do_not_specialize=['b'])",
        ),
        (
            "cup.configs.Config",
            "by hand",
            "the replacement at cplug/patch/patch_kern.py:41 is not a copy of upstream's "
            "cup.configs.Config (another kind of definition, or a class that neither derives "
            "from it nor keeps half its lines): nothing to merge; read it against upstream's "
            "change by hand",
        ),
    ]
    assert result.diff == DECORATOR_DIFF
