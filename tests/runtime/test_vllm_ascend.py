"""vllm-ascend 0.30.0rc2 (the real sdist): 27 patched targets checked by hand, and the audit
from vLLM 0.30.0 to 0.32.0 (both sdists)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpus import sdist_tree
from patchkeeper.runtime.inventory import runtime_inventory as inventory
from patchkeeper.runtime.judge import runtime_audit as audit

#: (file, line, mechanism, target) read by hand in the sdist.
SAMPLE = [
    (
        "platform/patch_balance_schedule.py",
        897,
        "subclass",
        "vllm.v1.core.sched.scheduler.Scheduler",
    ),
    (
        "platform/patch_deepseek_v4_vision.py",
        47,
        "registry",
        "vllm.transformers_utils.model_arch_config_convertor.MODEL_ARCH_CONFIG_CONVERTORS",
    ),
    ("platform/patch_distributed.py", 82, "wrapper", "torch.distributed.all_reduce"),
    (
        "platform/patch_dp_device_ids.py",
        71,
        "wrapper",
        "vllm.v1.engine.utils.get_physical_gpu_ids_for_local_dp_rank",
    ),
    ("platform/patch_engine_core.py", 40, "subclass", "vllm.v1.engine.core.DPEngineCoreProc"),
    (
        "platform/patch_engine_core.py",
        71,
        "wrapper",
        "vllm.v1.engine.core.EngineCoreProc.run_engine_core",
    ),
    (
        "platform/patch_glm5next_config.py",
        30,
        "registry",
        "vllm.transformers_utils.config._CONFIG_REGISTRY",
    ),
    (
        "platform/patch_mamba_block_aligned_split.py",
        172,
        "wrapper",
        "vllm.v1.core.sched.scheduler.Scheduler._mamba_block_aligned_split",
    ),
    (
        "platform/patch_mamba_manager.py",
        91,
        "subclass",
        "vllm.v1.core.single_type_kv_cache_manager.MambaManager",
    ),
    (
        "platform/patch_mla_prefill_backend.py",
        48,
        "assignment",
        "vllm.model_executor.layers.attention.mla_attention.get_mla_prefill_backend",
    ),
    (
        "platform/patch_multiproc_executor.py",
        211,
        "subclass",
        "vllm.v1.executor.multiproc_executor.MultiprocExecutor",
    ),
    (
        "platform/patch_parallel_config.py",
        28,
        "assignment",
        "vllm.config.parallel.ParallelConfig.use_sequence_parallel_moe",
    ),
    ("platform/patch_torch_accelerator.py", 8, "assignment", "torch.accelerator.empty_cache"),
    # The replacement lives outside the patch directory and derives from the upstream
    # class through a plugin class (AutoRegressiveAclGraphManager310 ->
    # AutoRegressiveAclGraphManager -> vLLM's SpeculatorCudaGraphManager).
    (
        "worker/__init__.py",
        81,
        "subclass",
        "vllm.v1.worker.gpu.spec_decode.autoregressive.speculator.SpeculatorCudaGraphManager",
    ),
    # setattr(DeepseekV2Model, _member, ...) in a loop over seven literal member names
    # copies EagleModelMixin's aux-hidden-state members onto vLLM's DeepseekV2Model: one
    # entry per name.
    (
        "worker/patch_deepseek_v2.py",
        339,
        "setattr",
        "vllm.model_executor.models.deepseek_v2.DeepseekV2Model.AUX_HIDDEN_STATE_KEY",
    ),
    (
        "worker/patch_deepseek_v2.py",
        339,
        "setattr",
        "vllm.model_executor.models.deepseek_v2.DeepseekV2Model._aux_slot_base_cached",
    ),
    (
        "worker/patch_deepseek_v2.py",
        339,
        "setattr",
        "vllm.model_executor.models.deepseek_v2.DeepseekV2Model._aux_upstream_total_cached",
    ),
    (
        "worker/patch_deepseek_v2.py",
        339,
        "setattr",
        "vllm.model_executor.models.deepseek_v2.DeepseekV2Model._set_aux_hidden_state_layers",
    ),
    (
        "worker/patch_deepseek_v2.py",
        339,
        "setattr",
        "vllm.model_executor.models.deepseek_v2.DeepseekV2Model._cache_aux_pp_layout",
    ),
    (
        "worker/patch_deepseek_v2.py",
        339,
        "setattr",
        "vllm.model_executor.models.deepseek_v2.DeepseekV2Model.pack_local_aux_hidden_states",
    ),
    (
        "worker/patch_deepseek_v2.py",
        339,
        "setattr",
        "vllm.model_executor.models.deepseek_v2.DeepseekV2Model.collect_remote_aux_hidden_states",
    ),
    ("worker/patch_bind_kv_cache.py", 60, "assignment", "vllm.v1.worker.utils.bind_kv_cache"),
    (
        "worker/patch_distributed.py",
        253,
        "subclass",
        "vllm.distributed.parallel_state.GroupCoordinator",
    ),
    (
        "worker/patch_kv_cache_dtype.py",
        53,
        "registry",
        "vllm.utils.torch_utils.STR_DTYPE_TO_TORCH_DTYPE",
    ),
    (
        "worker/patch_qwen3vl.py",
        65,
        "assignment",
        "vllm.model_executor.models.qwen3.Qwen3Attention.forward",
    ),
    (
        "worker/patch_v2/patch_input_batch.py",
        27,
        "subclass",
        "vllm.v1.worker.gpu.model_runner.InputBatch",
    ),
    (
        "worker/patch_v2/patch_uva.py",
        185,
        "assignment",
        "vllm.v1.worker.gpu.buffer_utils.UvaBuffer",
    ),
]


@pytest.mark.network
def test_inventory_finds_the_hand_checked_sample() -> None:
    root = sdist_tree("vllm-ascend==0.30.0rc2")
    result = inventory.take_inventory(None, plugin=root, package="vllm_ascend")
    assert len(result.files) == 68
    found = {
        (e.file.removeprefix("vllm_ascend/patch/"), e.line, e.mechanism.value, e.target)
        for e in result.entries
    }
    assert [s for s in SAMPLE if tuple(s) not in found] == []
    # 241 before setattr names from module constants, 244 before setattr in literal loops,
    # 251 before `m = sys.modules.get(...)` then `m.name = value`
    # (patch_kv_cache_coordinator.py:568: kv_cache_manager.get_kv_cache_coordinator),
    # 252 before a sys.modules sweep spreading a swap is named after it
    # (patch_triton.py:114: fused_qk_rmsnorm.fused_q_kv_rmsnorm, as line 103)
    assert len(result.entries) == 253


@pytest.mark.network
def test_audit_from_vllm_030_to_032() -> None:
    root = sdist_tree("vllm-ascend==0.30.0rc2")
    result = audit.audit_runtime(
        None, old="vllm==0.30.0", new="vllm==0.32.0", plugin=root, package="vllm_ascend"
    )
    assert sum(result.counts["decision"].values()) == 253
    assert all(a.drift.evidence for a in result.entries)
    assert result.stale


@pytest.mark.network
def test_inventory_json_is_the_same_under_two_hash_seeds(tmp_path: Path) -> None:
    """Set and dict order must not leak into the result: two fresh processes with other
    ``PYTHONHASHSEED`` values and empty caches print the same bytes."""
    root = sdist_tree("vllm-ascend==0.30.0rc2")
    outputs = []
    for seed in ("0", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PATCHKEEPER_CACHE=str(tmp_path / seed))
        argv = [sys.executable, "-m", "patchkeeper", "runtime", "inventory"]
        argv += ["--plugin", str(root), "--package", "vllm_ascend", "--json"]
        done = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, check=False)
        assert done.returncode == 1, done.stderr.decode()  # header and ledger findings
        outputs.append(done.stdout)
    assert len(outputs[0]) > 100_000
    assert outputs[0] == outputs[1]
