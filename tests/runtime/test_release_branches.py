"""A replacement holding a branch per upstream release, at an upgrade that moves its branch,
on the ``release_branch`` fixture (plugin ``rplug``, upstream ``rup`` 1.0 -> 2.0, whose KV
cache planner changed in three of its four functions): exact decisions and evidence."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import audit_fixture

from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.judge.release_branches import moving_gates

PATCH = "rplug/patch/patch_kv_plan.py"


def test_decisions_on_the_fixture(runtime_trees: Path) -> None:
    result = audit_fixture(runtime_trees / "release_branch", "rplug", "rup")
    decisions = {
        a.entry.target.rsplit(".", 1)[1]: (a.drift.decision, a.drift.evidence[:2])
        for a in result.entries
    }
    assert decisions == {
        # a wrapper that calls the original, its gate one operand of ``or``
        "max_memory": (
            "update",
            (
                "upstream changed the target (body) and the replacement tests upstream's "
                "release in its own code, a test whose outcome differs at 1.0 and 2.0 "
                f"({PATCH}:16: rup_version_is('1.0') or not _is_packed(groups)): it was "
                "written for this upgrade; cut the branch for 1.0 and read the one left "
                "against upstream's change",
                "upstream rup.kv_plan.max_memory changed (body) but the wrapper calls the "
                "original and the signature is the same",
            ),
        ),
        # its gate names an older release: false at both, nothing moves
        "plan": (
            "retain",
            (
                "upstream rup.kv_plan.plan changed (body) but the wrapper calls the original "
                "and the signature is the same",
            ),
        ),
        # the gate moves, but upstream left the target as it was
        "pool_bytes": (
            "retain",
            (
                "upstream rup.kv_plan.pool_bytes is unchanged from the old version (AST "
                "without docstrings, signature, decorators)",
            ),
        ),
        # a copy whose kept lines upstream did not touch
        "layer_spec": (
            "update",
            (
                "upstream changed the target (body) and the replacement tests upstream's "
                "release in its own code, a test whose outcome differs at 1.0 and 2.0 "
                f"({PATCH}:40: rup_version_is('1.0')): it was written for this upgrade; cut "
                "the branch for 1.0 and read the one left against upstream's change",
                "the upstream change (1 hunk(s)) lies only in code the replacement does not "
                "copy (it keeps 40% of the old upstream's lines, none of those upstream "
                "changed): nothing of it reaches the plugin's code",
            ),
        ),
    }


SOURCE = """\
def run(self, x):
    scale = 2 if not vllm_version_is("0.28.0") else 1
    if vllm.__version__ >= "0.30":
        return x
    if vllm_version_is("0.27.1") or x:
        return None
    if getattr(x, "model_version", None) == "v4":
        return scale
    return x * scale
"""


def test_moving_gates() -> None:
    """Only a test decided at both releases with different outcomes is listed: a
    conditional expression's ``not`` here; not an older release's test, a later release's
    one, nor a test of something else named *version*."""
    code = Code("plug/worker.py", 10, tuple(SOURCE.splitlines(True)))
    assert moving_gates(code, ("0.28.0", "0.29.0")) == (
        "plug/worker.py:11: not vllm_version_is('0.28.0')",
    )
    assert moving_gates(code, ("0.29.0", "0.30.0")) == (
        "plug/worker.py:12: vllm.__version__ >= '0.30'",
    )
    assert moving_gates(code, ("0.27.1", "0.28.0")) == (
        "plug/worker.py:11: not vllm_version_is('0.28.0')",
        "plug/worker.py:14: vllm_version_is('0.27.1') or x",
    )
    assert moving_gates(code, ("", "0.30.0")) == ()
