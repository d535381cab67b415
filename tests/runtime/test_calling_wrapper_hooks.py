"""A wrapper that calls the original it replaces is not *migrate* when the new upstream
method consults an extension point the old one did not, whatever the wrapper's own
parameters: the call runs upstream's own code, hook and all, so nothing of the hook is
replaced. When upstream also added a parameter the wrapper neither takes nor passes on,
the wrapper needs an *update* (take the new parameter and pass it on); when it did not,
nothing upstream changed reaches the wrapper's own lines (*retain*).

The shape of a vLLM general plugin that, inside a setup function, binds the original
``GPUModelRunner.initialize_kv_cache`` to a local name and replaces it with a function
``(self, kv_cache_config)`` that calls it and then binds its own state; the next vLLM's
method takes ``is_profiling`` and consults a warm-up registry
(``self.jit_warmup_registry.activate(...)``). The plugin is written by this test."""

from __future__ import annotations

from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

OLD_RUNNER = """class GPUModelRunner:
    def initialize_kv_cache(self, kv_cache_config):
        self.kv_cache_config = kv_cache_config
        self.blocks = kv_cache_config.blocks
"""
NEW_RUNNER = """class GPUModelRunner:
    def initialize_kv_cache(self, kv_cache_config, is_profiling=False):
        self.kv_cache_config = kv_cache_config
        self.blocks = kv_cache_config.blocks
        self.jit_warmup_registry.activate(kv_cache_config, is_profiling)
"""
SAME_SIGNATURE_RUNNER = """class GPUModelRunner:
    def initialize_kv_cache(self, kv_cache_config):
        self.kv_cache_config = kv_cache_config
        self.blocks = kv_cache_config.blocks
        self.jit_warmup_registry.activate(kv_cache_config)
"""
WORKER = """from fup.runner import GPUModelRunner


class Worker:
    def __init__(self, config):
        self.runner = GPUModelRunner()
        self.runner.initialize_kv_cache(config, is_profiling=True)
"""
WRAPPER = """def _bind_beam_state(runner):
    runner.beam_blocks = runner.blocks


def patch_runner():
    try:
        from fup.runner import GPUModelRunner
    except ImportError:
        return

    original_initialize_kv_cache = GPUModelRunner.initialize_kv_cache

    def patched_initialize_kv_cache(self, kv_cache_config):
        original_initialize_kv_cache(self, kv_cache_config)
        _bind_beam_state(self)

    GPUModelRunner.initialize_kv_cache = patched_initialize_kv_cache


patch_runner()
"""


def _decision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_runner: str
) -> tuple[str, str, str]:
    releases = {
        version: {"fup/runner.py": runner, "fup/worker.py": WORKER}
        for version, runner in (("1.0", OLD_RUNNER), ("2.0", new_runner))
    }
    files = {
        "fbeam/patch/__init__.py": "from fbeam.patch import patch_runner  # noqa: F401\n",
        "fbeam/patch/patch_runner.py": WRAPPER,
    }
    trees = write_trees(tmp_path, monkeypatch, releases, "fbeam", files)
    [entry] = audit_trees(trees, "fbeam").entries
    return entry.entry.mechanism.value, entry.drift.decision, entry.drift.evidence[0]


def test_a_calling_wrapper_that_misses_a_new_parameter_is_updated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _decision(tmp_path, monkeypatch, NEW_RUNNER) == (
        "wrapper",
        "update",
        "upstream fup.runner.GPUModelRunner.initialize_kv_cache changed: signature: "
        "(self, kv_cache_config) -> (self, kv_cache_config, is_profiling=False), body; "
        "the downstream change is not in the new upstream",
    )


def test_a_calling_wrapper_keeps_working_through_a_new_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _decision(tmp_path, monkeypatch, SAME_SIGNATURE_RUNNER) == (
        "wrapper",
        "retain",
        "upstream fup.runner.GPUModelRunner.initialize_kv_cache changed (body) but the "
        "wrapper calls the original and the signature is the same",
    )
