"""A wrapper that hands its arguments on to upstream's method (``*args, **kwargs``) is not
*migrate* when the new upstream method consults an extension point the old one did not: the
wrapper calls upstream's own code, hook and all, so nothing of the hook is replaced. A copy
that does not call the original still is *migrate*.

The shape of a vLLM plugin that wraps ``GPUModelRunner.initialize_kv_cache`` to bind its
own state after upstream's, where the next vLLM's method starts consulting a warm-up
registry (``self.jit_warmup_registry.activate(...)``); the plugin is written by this test."""

from __future__ import annotations

from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

MIXIN = "class LoRAModelRunnerMixin:\n    def load_lora_model(self, model):\n        return model\n"
OLD_RUNNER = """from fup.lora_mixin import LoRAModelRunnerMixin


class GPUModelRunner(LoRAModelRunnerMixin):
    def initialize_kv_cache(self, kv_cache_config):
        self.kv_cache_config = kv_cache_config
        self.blocks = kv_cache_config.blocks
"""
NEW_RUNNER = """from fup.lora_mixin import LoRAModelRunnerMixin


class GPUModelRunner(LoRAModelRunnerMixin):
    def initialize_kv_cache(self, kv_cache_config):
        self.kv_cache_config = kv_cache_config
        self.blocks = kv_cache_config.blocks
        self.jit_warmup_registry.activate(kv_cache_config)
"""
WRAPPER = """from fup.runner import GPUModelRunner

original_initialize_kv_cache = GPUModelRunner.initialize_kv_cache


def patched_initialize_kv_cache(self, kv_cache_config, *args, **kwargs):
    result = original_initialize_kv_cache(self, kv_cache_config, *args, **kwargs)
    self.beam_blocks = self.blocks
    return result


GPUModelRunner.initialize_kv_cache = patched_initialize_kv_cache
"""
COPY = """from fup.runner import GPUModelRunner


def patched_initialize_kv_cache(self, kv_cache_config):
    self.kv_cache_config = kv_cache_config
    self.blocks = kv_cache_config.blocks
    self.beam_blocks = self.blocks


GPUModelRunner.initialize_kv_cache = patched_initialize_kv_cache
"""


def _decision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, patch: str) -> tuple[str, str]:
    releases = {
        version: {"fup/lora_mixin.py": MIXIN, "fup/runner.py": runner}
        for version, runner in (("1.0", OLD_RUNNER), ("2.0", NEW_RUNNER))
    }
    files = {
        "fbeam/patch/__init__.py": "from fbeam.patch import patch_runner  # noqa: F401\n",
        "fbeam/patch/patch_runner.py": patch,
    }
    trees = write_trees(tmp_path, monkeypatch, releases, "fbeam", files)
    [entry] = audit_trees(trees, "fbeam").entries
    return entry.drift.decision, entry.drift.evidence[0]


def test_a_forwarding_wrapper_keeps_working_through_a_new_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decision, evidence = _decision(tmp_path, monkeypatch, WRAPPER)
    assert decision == "retain"
    assert "jit_warmup_registry" not in evidence


def test_a_copy_that_skips_the_new_hook_migrates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _decision(tmp_path, monkeypatch, COPY) == (
        "migrate",
        "the new upstream consults an extension point the old release did not have: "
        "self.jit_warmup_registry.activate (in fup.runner.GPUModelRunner.initialize_kv_cache)",
    )
