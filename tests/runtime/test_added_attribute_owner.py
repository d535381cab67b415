"""An attribute a plugin adds to an upstream class that neither the class nor its bases
define is reported under the class the target names, not under the last base searched
(``GPUModelRunner(LoRAModelRunnerMixin)``: the flag the plugin sets on ``GPUModelRunner``
is said to be missing from ``GPUModelRunner``)."""

from __future__ import annotations

from pathlib import Path

from patchkeeper.runtime.lookup.resolve import resolve
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree

MIXIN = "class LoRAModelRunnerMixin:\n    def load_lora_model(self, model):\n        return model\n"
RUNNER = (
    "from up.lora_mixin import LoRAModelRunnerMixin\n"
    "\n"
    "\n"
    "class GPUModelRunner(LoRAModelRunnerMixin):\n"
    "    def initialize_kv_cache(self, kv_cache_config):\n"
    "        self.kv_cache_config = kv_cache_config\n"
)


def _tree(tmp_path: Path) -> UpstreamTree:
    (tmp_path / "up").mkdir()
    (tmp_path / "up" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "up" / "lora_mixin.py").write_text(MIXIN, encoding="utf-8")
    (tmp_path / "up" / "runner.py").write_text(RUNNER, encoding="utf-8")
    return UpstreamTree(tmp_path, ("up",))


def test_an_added_attribute_is_missing_from_the_class_the_target_names(tmp_path: Path) -> None:
    found = resolve(_tree(tmp_path), "up.runner.GPUModelRunner._beam_patched")
    assert (found.status, found.location, found.partial) == (
        "found",
        "up.runner.GPUModelRunner",
        "_beam_patched",
    )
    assert found.via == ("_beam_patched is not defined in GPUModelRunner or its bases",)


def test_an_inherited_method_still_resolves_to_the_base(tmp_path: Path) -> None:
    found = resolve(_tree(tmp_path), "up.runner.GPUModelRunner.load_lora_model")
    assert (found.location, found.partial) == (
        "up.lora_mixin.LoRAModelRunnerMixin.load_lora_model",
        "",
    )
