"""A replacement name the plugin binds per release through a module-level version gate, whose
branch live at the new release already takes the new upstream signature, needs no update:
*retain*, as long as the upgrade leaves the gate's outcome as it was. A gate the upgrade
moves (true at the old release, false at the new one) was written for this upgrade: its
branch for the old release is to be cut, *update*. A branch that binds a function without
the new parameter, or no gate at all, leaves it *update*.

The plugin below is written by this test in the shape of a vLLM platform plugin's sampling
kernels, in a module outside the patch file: upstream's ``sample`` and ``draw`` gain a
required parameter that their callers pass; the plugin binds ``device_sample`` in an
``if fup_version_is("1.0"): ... else: ...`` (moved by the upgrade from 1.0 to 2.0) and
``device_draw`` in an ``if fup_version_is("0.9"): ... else: ...`` (false at both releases),
each ``else`` binding a function with the new signature."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

from patchkeeper.runtime.judge.gated_binding import (
    gated_parameters,
    moving_gate,
    parameter_shape,
)

OLD_SAMPLER = """def sample(logits, temp, greedy, cache=None):
    return logits / temp


def pick(logits, temp, greedy, cache=None):
    return logits * temp


def draw(logits, temp, greedy, cache=None):
    return logits - temp


def run(x):
    return sample(x, 1.0, False) + pick(x, 1.0, False) + draw(x, 1.0, False)
"""
NEW_SAMPLER = """def sample(logits, temp, greedy, drafting, cache=None):
    if drafting:
        logits = logits + 1
    return logits / temp


def pick(logits, temp, greedy, drafting, cache=None):
    return logits * temp + drafting


def draw(logits, temp, greedy, drafting, cache=None):
    return logits - temp - drafting


def run(x):
    picked = pick(x, 1.0, False, drafting=True) + draw(x, 1.0, False, drafting=True)
    return sample(x, 1.0, False, drafting=False) + picked
"""
OPS = """from typing import Callable

from fdev.utils import fup_version_is


def _device_sample(logits, temp, greedy, cache=None, *, drafting=False):
    return logits.softmax(temp)


device_sample: Callable[..., object]
if fup_version_is("1.0"):
    device_sample = _device_sample
else:

    def _device_sample_new(logits, temp, greedy, drafting, cache=None):
        return _device_sample(logits, temp, greedy, cache, drafting=drafting)

    device_sample = _device_sample_new

device_pick: Callable[..., object]
if fup_version_is("1.0"):
    device_pick = _device_sample
else:
    device_pick = _device_sample


def _device_draw_new(logits, temp, greedy, drafting, cache=None):
    return _device_sample(logits, temp, greedy, cache, drafting=drafting)


device_draw: Callable[..., object]
if fup_version_is("0.9"):
    device_draw = _device_sample
else:
    device_draw = _device_draw_new
"""
PATCH = """import fup.sampler

from fdev.ops import device_draw, device_pick, device_sample

fup.sampler.sample = device_sample
fup.sampler.pick = device_pick
fup.sampler.draw = device_draw
"""


@pytest.fixture
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    releases = {"1.0": {"fup/sampler.py": OLD_SAMPLER}, "2.0": {"fup/sampler.py": NEW_SAMPLER}}
    plugin = {
        "fdev/utils.py": "def fup_version_is(v):\n    return False\n",
        "fdev/ops.py": OPS,
        "fdev/patch/__init__.py": "from fdev.patch import patch_sampler  # noqa: F401\n",
        "fdev/patch/patch_sampler.py": PATCH,
    }
    return write_trees(tmp_path, monkeypatch, releases, "fdev", plugin)


def test_a_gated_binding_with_the_new_signature_is_kept_unless_the_gate_moves(
    trees: Path,
) -> None:
    result = audit_trees(trees, "fdev")
    decisions = {a.entry.target: (a.drift.decision, a.drift.evidence[0]) for a in result.entries}
    assert decisions == {
        # the else branch, live at 2.0, binds a function taking drafting where upstream does,
        # but the gate is true at 1.0 and false at 2.0: the branch for 1.0 is to be cut
        "fup.sampler.sample": (
            "update",
            "upstream changed the target (signature, body) and the replacement's module binds "
            "it in a version gate whose outcome differs at 1.0 and 2.0 (fdev/ops.py:11: "
            "fup_version_is('1.0')): it was written for this upgrade; cut the branch for 1.0 "
            "and read the one left against upstream's change",
        ),
        # both branches bind the old signature (drafting keyword-only, with a default)
        "fup.sampler.pick": (
            "update",
            "upstream fup.sampler.pick changed: signature: (logits, temp, greedy, cache=None) "
            "-> (logits, temp, greedy, drafting, cache=None), body; the downstream change is "
            "not in the new upstream",
        ),
        # the gate is false at both releases: its else branch already takes drafting
        "fup.sampler.draw": (
            "retain",
            "the replacement device_draw is bound by a version gate (fdev/ops.py:32) whose "
            "branch live at the new release binds it to a function with the new upstream "
            "signature of fup.sampler.draw: the plugin already follows the change there "
            "(its implementation is its own; read it if it copies upstream's body)",
        ),
    }


def test_only_a_gate_the_upgrade_moves_is_named(tmp_path: Path) -> None:
    ops = tmp_path / "ops.py"
    ops.write_text(OPS, encoding="utf-8")
    assert moving_gate(ops, "device_sample", ("1.0", "2.0")) == "fup_version_is('1.0')"
    # false at both releases; no gate binds the name; an unknown old release
    assert moving_gate(ops, "device_draw", ("1.0", "2.0")) == ""
    assert moving_gate(ops, "_device_sample", ("1.0", "2.0")) == ""
    assert moving_gate(ops, "device_sample", ("", "2.0")) == ""


def test_the_branch_live_at_each_release_is_read(tmp_path: Path) -> None:
    ops = tmp_path / "ops.py"
    ops.write_text(OPS, encoding="utf-8")
    old = (("logits", "positional", False), ("temp", "positional", False))
    old += (("greedy", "positional", False), ("cache", "positional", True))
    assert gated_parameters(ops, "device_sample", "1.0") == (
        11,
        (*old, ("drafting", "keyword-only", True)),
    )
    assert gated_parameters(ops, "device_sample", "2.0") == (
        11,
        (*old[:3], ("drafting", "positional", False), old[3]),
    )
    # a name no gate binds, no version to decide the gate at
    assert gated_parameters(ops, "_device_sample", "2.0") is None
    assert gated_parameters(ops, "device_sample", "") is None


def test_parameter_shape_reads_every_kind() -> None:

    node = ast.parse("def f(a, /, b, c=1, *rest, d, e=2, **more): pass").body[0]
    assert isinstance(node, ast.FunctionDef)
    assert parameter_shape(node.args) == (
        ("a", "positional-only", False),
        ("b", "positional", False),
        ("c", "positional", True),
        ("rest", "*", False),
        ("d", "keyword-only", False),
        ("e", "keyword-only", True),
        ("more", "**", False),
    )
