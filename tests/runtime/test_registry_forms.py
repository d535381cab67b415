"""What a plugin does to an upstream registry, class or ``sys.modules``, as the inventory
lists it. The plugin files are written by the test in the shape of a quantization plugin
and of a plugin that reloads upstream modules."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_trees import pyproject

from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

QUANT = """from vllm.model_executor.layers.quantization import registry
from vllm.model_executor.layers.quantization.base_config import QuantizationConfig

from qplug.kernels import FastKernel


class TileQuant(QuantizationConfig):
    pass


class Packed:
    pass


QuantizationConfig.register(Packed)
QuantizationConfig.register(TileQuant)
registry.QUANTIZERS.register(Packed)
registry.QUANTIZERS.register("tile", TileQuant)
QuantizationConfig.register(name="tile")
registry.Quantizers.register(FastKernel)
"""


def _inventory(tmp_path: Path, files: dict[str, str]) -> list[tuple[object, ...]]:
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    inventory = take_inventory(None, plugin=tmp_path, package="qplug")
    return [(e.line, e.target, e.key, e.mechanism.value, e.replacement) for e in inventory.entries]


def test_an_abc_register_of_a_class_is_no_registry_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("qplug", {"q": "qplug.quant"}),
        "qplug/__init__.py": "",
        "qplug/kernels.py": "class FastKernel:\n    pass\n",
        "qplug/quant.py": QUANT,
    }
    assert _inventory(tmp_path, files) == [
        (
            17,
            "vllm.model_executor.layers.quantization.registry.QUANTIZERS",
            "Packed",
            "registry",
            "<expr>",
        ),
        (
            18,
            "vllm.model_executor.layers.quantization.registry.QUANTIZERS",
            "'tile'",
            "registry",
            "qplug.quant:TileQuant",
        ),
        (
            19,
            "vllm.model_executor.layers.quantization.base_config.QuantizationConfig",
            None,
            "registry",
            "<expr>",
        ),
    ]


RELOAD = """import sys


def reload_models():
    for name in [n for n in sys.modules if n.startswith("vllm.model_executor.models")]:
        del sys.modules[name]
    [sys.modules.pop(n) for n in list(sys.modules) if n.startswith("vllm.lora")]
    for name in (n for n in list(sys.modules) if "vllm.attention" in n):
        sys.modules.pop(name, None)
    sys.modules.pop("vllm.worker.worker", None)
    sys.modules.get("vllm.config")


reload_models()
"""


def test_a_module_popped_from_sys_modules_is_an_entry_as_a_deleted_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ``sys.modules.pop(name, None)``, in a loop or a comprehension, makes the next import
    # of an upstream module run it afresh, as ``del sys.modules[name]`` does.
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("qplug", {"q": "qplug.reload"}),
        "qplug/__init__.py": "",
        "qplug/reload.py": RELOAD,
    }
    assert _inventory(tmp_path, files) == [
        (6, "sys.modules", "name", "sys-modules", "<removed>"),
        (7, "sys.modules", "n", "sys-modules", "<removed>"),
        (9, "sys.modules", "name", "sys-modules", "<removed>"),
        (10, "vllm.worker.worker", None, "sys-modules", "<removed>"),
    ]


CONFIG = """from vllm.config import model as model_config
from vllm.model_executor.layers.quantization import QUANTIZATION_METHODS

model_config._SUPPORTED_QUANT = model_config._SUPPORTED_QUANT + ("tile",)
model_config._FROZEN_KINDS = frozenset({"tile", "tile8"}) | model_config._FROZEN_KINDS
model_config._OVERRIDES |= {"tile": "qplug.quant"}
model_config._ORDER += ["tile"]
model_config._TABLE["fp8"] += ("tile",)
model_config._LIMIT = model_config._LIMIT + 1
model_config._NAME = model_config._OTHER + ("tile",)
QUANTIZATION_METHODS += ["tile"]
model_config._ORDER.extend(["tile8", "tile4"])
model_config._ORDER.extend(EXTRA)
model_config._COUNT += 1
"""


def test_a_collection_extended_by_concatenation_is_a_registry_entry_per_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ``T = T + ("tile",)`` keeps upstream's items and adds one: a registry entry keyed
    # by the item added, as ``T.append("tile")`` is, not a wrapper of ``T``; ``+=`` and
    # ``|=`` and ``.extend`` alike. A sum with a number, or whose other side is another
    # name, is no extension of a collection.
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("qplug", {"q": "qplug.config"}),
        "qplug/__init__.py": "",
        "qplug/config.py": CONFIG,
    }
    model = "vllm.config.model"
    assert _inventory(tmp_path, files) == [
        (4, f"{model}._SUPPORTED_QUANT", "'tile'", "registry", "<expr>"),
        (5, f"{model}._FROZEN_KINDS", "'tile'", "registry", "<expr>"),
        (5, f"{model}._FROZEN_KINDS", "'tile8'", "registry", "<expr>"),
        (6, f"{model}._OVERRIDES", "'tile'", "registry", "<expr>"),
        (7, f"{model}._ORDER", "'tile'", "registry", "<expr>"),
        (8, f"{model}._TABLE", "'fp8'", "registry", "<expr>"),
        (9, f"{model}._LIMIT", None, "wrapper", "<expr>"),
        (10, f"{model}._NAME", None, "assignment", "<expr>"),
        (
            11,
            "vllm.model_executor.layers.quantization.QUANTIZATION_METHODS",
            "'tile'",
            "registry",
            "<expr>",
        ),
        (12, f"{model}._ORDER", "'tile4'", "registry", "<expr>"),
        (12, f"{model}._ORDER", "'tile8'", "registry", "<expr>"),
        (13, f"{model}._ORDER", "EXTRA", "registry", "<expr>"),
    ]


PLATFORM = """from vllm.platforms import cuda

_FA = "vllm.v1.attention.backends.flash_attn.FlashAttentionBackend"


def register():
    target = next(k for k in cuda.CudaPlatform.__mro__ if "get_attn_backend_cls" in k.__dict__)
    orig = target.__dict__["get_attn_backend_cls"].__func__

    def get_attn_backend_cls(cls, *args, **kwargs):
        path = orig(cls, *args, **kwargs)
        return "qplug.backend.Backend" if path == _FA else path

    target.get_attn_backend_cls = classmethod(get_attn_backend_cls)


def adopt(runner):
    chosen = next(k for k in runner.__class__.__mro__ if k.__name__ == "GPUModelRunner")
    chosen.execute_model = None
"""


def test_a_class_drawn_from_an_upstream_class_mro_is_patched_as_that_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ``target = next(k for k in cuda.CudaPlatform.__mro__ if "f" in k.__dict__)`` is the
    # class of CudaPlatform's method resolution order that defines ``f``: setting ``f``
    # on it changes what ``CudaPlatform.f`` reads, so the patch is named after
    # CudaPlatform; it was not listed. A class drawn from an object handed in at run time
    # names nothing.
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("qplug", {"q": "qplug.platform:register"}),
        "qplug/__init__.py": "",
        "qplug/platform.py": PLATFORM,
    }
    assert [entry[:2] for entry in _inventory(tmp_path, files)] == [
        (14, "vllm.platforms.cuda.CudaPlatform.get_attn_backend_cls")
    ]


SAVED = """import inspect

from vllm.platforms import cuda
from vllm.v1.worker import gpu_model_runner


def register():
    target = next(k for k in cuda.CudaPlatform.__mro__ if "get_attn_backend_cls" in k.__dict__)
    orig = target.__dict__["get_attn_backend_cls"]
    target.get_attn_backend_cls = classmethod(
        lambda cls, *a, **k: orig.__func__(cls, *a, **k) or "qplug.backend.Backend"
    )
    saved = vars(cuda.CudaPlatform)["check_and_update_config"]

    def check_and_update_config(cls, config):
        saved.__func__(cls, config)

    cuda.CudaPlatform.check_and_update_config = classmethod(check_and_update_config)
    static = inspect.getattr_static(cuda.CudaPlatform, "seed_everything")
    cuda.CudaPlatform.seed_everything = staticmethod(lambda seed: static.__func__(seed))
    runner = gpu_model_runner.GPUModelRunner
    runner.load_model = lambda self: getattr(runner, "_load")(self)
    runner.execute_model = lambda self, *a: vars(runner).get("execute_model")(self, *a)
    runner.profile_run = vars(runner)["profile_run"]
    cuda.CudaPlatform.get_device_name = classmethod(lambda cls, i=0: "tile")


def adapt(runner_cls):
    original = runner_cls.__dict__["capture_model"]

    def capture_model(self):
        return original(self)

    runner_cls.capture_model = capture_model


def adopt():
    adapt(gpu_model_runner.GPUModelRunner)
"""


def test_an_original_saved_from_the_class_namespace_makes_a_wrapper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # amass-kv 0.1.1 saves CudaPlatform's classmethod by ``target.__dict__[name]`` and
    # calls its ``__func__``: the replacement runs the original, a wrapper. The same holds
    # for ``vars(X)[name]``, ``vars(X).get(name)``, ``inspect.getattr_static(X, name)``
    # and an inline ``getattr(X, name)``, and for a class handed in as a parameter. Setting
    # an attribute back to its own reading is no wrapper; a lambda that reads nothing of
    # the original is an assignment.
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("qplug", {"q": "qplug.platform:register"}),
        "qplug/__init__.py": "",
        "qplug/platform.py": SAVED,
    }
    platform = "vllm.platforms.cuda.CudaPlatform"
    runner = "vllm.v1.worker.gpu_model_runner.GPUModelRunner"
    assert [(e[0], e[1], e[3]) for e in _inventory(tmp_path, files)] == [
        (10, f"{platform}.get_attn_backend_cls", "wrapper"),
        (18, f"{platform}.check_and_update_config", "wrapper"),
        (20, f"{platform}.seed_everything", "wrapper"),
        (22, f"{runner}.load_model", "assignment"),
        (23, f"{runner}.execute_model", "wrapper"),
        (24, f"{runner}.profile_run", "assignment"),
        (25, f"{platform}.get_device_name", "assignment"),
        (34, f"{runner}.capture_model", "wrapper"),
    ]
