"""A function upstream rebinds for another platform inside an ``if`` stays the definition
the audit compares: the patch replaces the function wherever the test fails, so the change
read is the function's own (its new parameter), not a change of kind to an assignment.

The plugin below is written by this test in the shape of a device plugin's kernel patches:
module-level functions of its own assigned over upstream's kernels, one of which the new
upstream rebinds to a CPU variant under a platform test."""

from __future__ import annotations

from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

from patchkeeper.runtime.lookup.upstream_tree import summarize

OPS_OLD = """import sys


def conv_update(x, state):
    return x + state


def conv_fn(x):
    return x * 2


def scan(x):
    return x


if sys.platform == "cpu":
    scan = len
"""
OPS_NEW = """import sys


def conv_update(x, state, out=None):
    y = x + state
    if out is not None:
        out.append(y)
    return y


def conv_update_cpu(x, state, out=None):
    return x - state


def conv_fn(x):
    return x * 2


def scan(x):
    return x


if sys.platform == "cpu":
    conv_update = conv_update_cpu
    scan = len


def run(x, state, buffer):
    return conv_update(x, state, out=buffer)
"""
PATCH = """# Note: the fixture device runs its own kernels.
import fup.ops


def npu_conv_update(x, state):
    return x + state + 1


def npu_conv_fn(x):
    return x * 3


def npu_scan(x):
    return x[::-1]


fup.ops.conv_update = npu_conv_update
fup.ops.conv_fn = npu_conv_fn
fup.ops.scan = npu_scan
"""


@pytest.fixture
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    releases = {"1.0": {"fup/ops.py": OPS_OLD}, "2.0": {"fup/ops.py": OPS_NEW}}
    plugin = {
        "aplug/patch/__init__.py": "from aplug.patch import patch_ops  # noqa: F401\n",
        "aplug/patch/patch_ops.py": PATCH,
    }
    return write_trees(tmp_path, monkeypatch, releases, "aplug", plugin)


def test_a_platform_alias_leaves_the_function_compared(trees: Path) -> None:
    result = audit_trees(trees, "aplug")
    decisions = {a.entry.target: (a.drift.decision, a.drift.evidence[0]) for a in result.entries}
    assert decisions == {
        # upstream's run passes out=, which the plugin's kernel does not take
        "fup.ops.conv_update": (
            "update",
            "upstream fup.ops.conv_update changed: signature: (x, state) -> (x, state, "
            "out=None), body; the downstream change is not in the new upstream",
        ),
        "fup.ops.conv_fn": (
            "retain",
            "upstream fup.ops.conv_fn is unchanged from the old version (AST without "
            "docstrings, signature, decorators)",
        ),
        # the platform alias was there in both releases: the function is compared
        "fup.ops.scan": (
            "retain",
            "upstream fup.ops.scan is unchanged from the old version (AST without "
            "docstrings, signature, decorators)",
        ),
    }


def test_the_definition_of_record() -> None:
    summary = summarize(OPS_NEW.encode(), "fup.ops", "fup/ops.py", False)
    kinds = {
        name: (d.kind, d.line, d.conditional)
        for name, d in summary.definitions.items()
        if name in ("conv_update", "conv_update_cpu", "scan")
    }
    assert kinds == {
        "conv_update": ("function", 4, False),
        "conv_update_cpu": ("function", 11, False),
        "scan": ("function", 19, False),
    }
    # a conditional function of its own, and an unconditional rebinding, stay as written
    gated = "import sys\n\nif sys.platform == 'cpu':\n    def f(x):\n        return x\n"
    aliased = "def g(x):\n    return x\n\n\nh = g\ng = h\n"
    first = summarize(gated.encode(), "m", "m.py", False).definitions["f"]
    second = summarize(aliased.encode(), "m", "m.py", False).definitions["g"]
    assert (first.kind, first.conditional) == ("function", True)
    assert (second.kind, second.line, second.conditional) == ("value", 6, False)
