"""The audit's issue-10 items on the ``update`` fixture (plugin ``upplug``, upstream ``upup``
1.0 -> 2.0): one test per item, exact decisions and evidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchkeeper.config import load_config
from patchkeeper.errors import Finding
from patchkeeper.runtime.inventory import runtime_inventory as inventory
from patchkeeper.runtime.judge import runtime_audit as audit
from patchkeeper.runtime.judge.drift import Drift
from patchkeeper.runtime.judge.judge import Pending, settle
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.syntax import gates
from patchkeeper.runtime.syntax.gates import Gate


@pytest.fixture
def update_trees(runtime_trees: Path) -> Path:
    return runtime_trees / "update"


@pytest.fixture
def result(update_trees: Path) -> audit.RuntimeAudit:
    return audit.audit_runtime(
        load_config(update_trees / "upplug" / "pyproject.toml"),
        old=str(update_trees / "upup-1.0"),
        new=str(update_trees / "upup-2.0"),
    )


def _decision(result: audit.RuntimeAudit, file: str, target: str, key: str | None = None):
    found = [
        a
        for a in result.entries
        if a.entry.file == f"upplug/patch/{file}"
        and a.entry.target == target
        and a.entry.key == key
    ]
    assert len(found) == 1
    return found[0].drift.decision, found[0].drift.evidence[0]


def test_item1_migrate_names_the_new_platform_hook(result) -> None:
    assert _decision(result, "attention_patch.py", "upup.attention.select_backend") == (
        "migrate",
        "the new upstream consults an extension point the old release did not have: "
        "current_platform.get_attn_backend (in upup.attention.select_backend)",
    )


def test_item2_never_imported_is_remove_naming_the_commented_import(result) -> None:
    assert _decision(result, "disabled.py", "upup.sampler.greedy") == (
        "remove",
        "never imported (import commented out at upplug/patch/__init__.py:17: "
        "# import upplug.patch.disabled): remove it, or re-enable the import",
    )


def test_item3_duplicates_are_findings(result) -> None:
    duplicates = [f for f in result.findings if f.code == "duplicate"]
    assert duplicates == [
        Finding(
            "duplicate",
            "upplug/patch/disabled.py",
            11,
            "upup.sampler.greedy is patched in 2 files (upplug/patch/disabled.py:11, "
            "upplug/patch/gates.py:23): the one imported last wins",
            "keep one",
        ),
        Finding(
            "duplicate",
            "upplug/patch/dup_a.py",
            15,
            "upup.sampler.sample is patched in 2 files (upplug/patch/dup_a.py:15, "
            "upplug/patch/dup_b.py:11): the one imported last wins",
            "keep one",
        ),
    ]


def test_item4_upstream_names_the_plugin_uses_resolved_in_the_new_release(result) -> None:
    broken = [f for f in result.findings if f.code.startswith("breaks")]
    assert broken == [
        Finding(
            "breaks-at-import",
            "upplug/patch/refs.py",
            9,
            "upup.utils.cdiv is gone from the new upstream: the plugin breaks at import; "
            "now defined at upup.math_utils.cdiv (line 1)",
        ),
        Finding(
            "breaks-when-called",
            "upplug/patch/refs.py",
            16,
            "upup.utils._round_up is gone from the new upstream: the plugin breaks when the "
            "code using it runs; now defined at upup.math_utils._round_up (line 5)",
        ),
    ]
    assert result.exit_code == 1


def test_item5_stale_copy_outside_banners_is_update_though_upstream_is_unchanged(result) -> None:
    decision, evidence = _decision(result, "engine_patch.py", "upup.engine.finish")
    assert (decision, evidence) == (
        "update",
        "the copy differs from the old upstream outside its Modification banners (1 line(s)): "
        "it missed an earlier upstream change",
    )
    finish = next(a for a in result.entries if a.entry.target == "upup.engine.finish")
    assert finish.drift.upstream_changes == ()
    assert finish.drift.outside_banners == ("line 36: return x * 3",)


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("upup.engine.step", "only type annotations changed"),
        (
            "upup.engine.warmup",
            "only branches for other platforms changed (is_rocm/is_cuda/is_xpu/...)",
        ),
        (
            "upup.engine.log_stats",
            "only code the patch header says it avoids changed (`_emit_metrics`)",
        ),
    ],
)
def test_item6_noise_is_cosmetic_with_the_reason(result, target: str, reason: str) -> None:
    assert _decision(result, "engine_patch.py", target) == (
        "retain",
        f"the upstream change is cosmetic: {reason}",
    )


def test_item7_a_name_in_neither_release_is_a_typo_or_future_name(result) -> None:
    assert _decision(result, "refs.py", "upup.kernels.fused_mul") == (
        "look",
        "upup.kernels.fused_mul is in neither release: a typo or a future name",
    )


def test_item8_version_gates_listed_with_the_live_branch_and_the_edit(result) -> None:
    assert result.gates == (
        Gate(
            "upplug/patch/gates.py",
            22,
            "vllm_version_is('1.0')",
            True,
            False,
            ("1.0",),
            "the `if` branch of `vllm_version_is('1.0')` is dead at 2.0: delete it, or name 2.0 "
            "if the patch inside is still needed",
        ),
        Gate(
            "upplug/patch/gates.py",
            25,
            "not vllm_version_is('1.0')",
            False,
            True,
            ("1.0",),
            "the `else` branch of `not vllm_version_is('1.0')` is dead at 2.0: delete it and "
            "drop the test",
        ),
    )
    assert _decision(result, "gates.py", "upup.sampler.greedy") == (
        "remove",
        "its version gate is false at 2.0 (upplug/patch/gates.py:22: vllm_version_is('1.0')): "
        "dead code there",
    )
    assert _decision(result, "gates.py", "upup.engine.drain")[0] == "retain"


@pytest.mark.parametrize(
    ("test", "version", "expected"),
    [
        ('vllm_version_is("0.29.0")', "0.29.0", True),
        ('vllm_version_is("0.29.0")', "0.30.0", False),
        ('use_eagle and not vllm_version_is("0.29.0")', "0.30.0", None),
        ('use_eagle and not vllm_version_is("0.29.0")', "0.29.0", False),
        ('Version(vllm.__version__) < Version("0.30.0")', "0.29.0", True),
        ('vllm.__version__ >= "0.30.0"', "0.29.0", False),
        ('getattr(spec, "model_version", None) == "deepseek_v4"', "0.30.0", None),
    ],
)
def test_item8_gate_evaluation(test: str, version: str, expected: bool | None) -> None:
    assert gates.evaluate(test, version) is expected


def test_item9_inventory_sees_parameter_modules_and_registry_removals(update_trees) -> None:
    found = inventory.take_inventory(load_config(update_trees / "upplug" / "pyproject.toml"))
    rows = [
        (e.line, e.target, e.key, e.mechanism.value, e.replacement, e.scope)
        for e in found.entries
        if e.file == "upplug/patch/gaps.py"
    ]
    assert rows == [
        (17, "upup.engine.shutdown", None, "assignment", "upplug.patch.gaps:_shutdown", "_install"),
        (22, "upup.registry.TABLE", "'a'", "registry", "<removed>", "<module>"),
        (23, "upup.registry.TABLE", "'b'", "registry", "<removed>", "<module>"),
        (24, "upup.registry.NAMES", "'x'", "registry", "<removed>", "<module>"),
        (25, "upup.registry.ORDER", "'y'", "registry", "<removed>", "<module>"),
    ]


def test_item9_a_removal_upstream_still_needs_is_retained(result) -> None:
    assert _decision(result, "gaps.py", "upup.registry.TABLE", "'a'") == (
        "retain",
        "the new upstream upup.registry.TABLE still has the key 'a': the plugin's removal of "
        "it is still needed",
    )


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        (
            "upup.engine.Worker",
            (
                "retain",
                "the plugin's class derives from Worker and inherits the upstream change; the "
                "methods it overrides (run) are unchanged upstream",
            ),
        ),
        (
            "torch.compile",
            (
                "retain",
                "torch.compile is not part of the upstream being upgraded: this upgrade does not "
                "change it",
            ),
        ),
        (
            "upup.kernels._prepare",
            ("update", "upup.kernels._prepare was renamed: retarget to upup.kernels.prepare"),
        ),
        (
            "upup.engine.npu_hook",
            (
                "retain",
                "upup.engine.npu_hook is in neither release: the plugin's assignment adds it (if "
                "it was meant to replace something, a typo or a future name)",
            ),
        ),
    ],
)
def test_decisions_maintainers_take_on_real_history(result, target: str, expected) -> None:
    """Rules found from the disagreements with the vllm-ascend maintainers."""
    assert _decision(result, "more.py", target) == expected


def test_a_pending_judgement_is_settled_by_the_old_trees_definitions(update_trees) -> None:
    old_tree = UpstreamTree(update_trees / "upup-1.0", ("upup",))
    base = Drift("update", ("upstream changed",))
    otherwise = Drift("retain", ("the upstream change is cosmetic: ...", "upstream changed"))
    # is_rocm is defined by the old release (upup/platforms.py): not a new extension point
    known = Pending(base, (("is_rocm", "current_platform.is_rocm (in upup.a.f)"),), otherwise)
    assert settle(known, old_tree) is otherwise
    # get_attn_backend is defined nowhere in the old release: migrate, naming it alone
    new = Pending(
        base,
        (
            ("is_rocm", "current_platform.is_rocm (in upup.a.f)"),
            ("get_attn_backend", "current_platform.get_attn_backend (in upup.a.f)"),
        ),
        otherwise,
    )
    assert settle(new, old_tree) == Drift(
        "migrate",
        (
            "the new upstream consults an extension point the old release did not have: "
            "current_platform.get_attn_backend (in upup.a.f)",
            "upstream changed",
        ),
    )
    assert settle(base, old_tree) is base  # a judgement already taken stays as it is
