"""A patch in a function no reached scope calls, of a module the plugin's loading imports, is
shown as *never called*: ``inventory`` said "never imported (X is imported but f is never
called ...)", a line that contradicts itself. A patch in a module nothing imports is still
*never imported*.

The plugin is in the shape of a vLLM platform plugin for another accelerator stack, patching
a model library outside vLLM: an entry point in ``vllm.platform_plugins``, a scheduler module
the plugin imports, which imports a helper module whose patch function nobody calls."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import vllm_plugin_pyproject, write_files

PYPROJECT = vllm_plugin_pyproject(
    "vllm-accel",
    "0.6.0",
    'accel = "vllm_accel.plugin:accel_platform_plugin"',
    group="platform_plugins",
)
PLUGIN = """def accel_platform_plugin():
    from vllm_accel import scheduler  # noqa: F401

    return "vllm_accel.platform.AccelPlatform"
"""
SCHEDULER = "from vllm_accel.utils.cache_patch import ensure_support\n\nensure_support()\n"
CACHE_PATCH = """# Note: merge the layer caches of hybrid models.
# Affected versions: mlxish 0.31
# Remove at: never



def ensure_support():
    return True


def patch_for_hybrid():
    import mlxish.generate

    def _make_cache(model):
        return []

    mlxish.generate._make_cache = _make_cache
"""
ORPHAN = """# Note: an older batching fix.
# Affected versions: mlxish 0.29
# Remove at: never

import mlxish.generate

mlxish.generate._merge = None
"""


def test_an_uncalled_function_is_never_called_an_unimported_module_never_imported(
    cli, tmp_path: Path
) -> None:
    plugin = write_files(
        tmp_path / "vllm-accel",
        {
            "pyproject.toml": PYPROJECT,
            "vllm_accel/__init__.py": "",
            "vllm_accel/plugin.py": PLUGIN,
            "vllm_accel/scheduler.py": SCHEDULER,
            "vllm_accel/utils/__init__.py": "",
            "vllm_accel/utils/cache_patch.py": CACHE_PATCH,
            "vllm_accel/utils/orphan.py": ORPHAN,
        },
    )

    run = cli("runtime", "inventory", "--package", "vllm_accel", cwd=plugin)
    shown = cli("runtime", "inventory", "--package", "vllm_accel", "--json", cwd=plugin)

    lines = run.out.splitlines()
    at = lines.index(
        "vllm_accel/utils/cache_patch.py:17  assignment  mlxish.generate._make_cache  <- "
        "vllm_accel.utils.cache_patch:patch_for_hybrid._make_cache"
    )
    assert lines[at + 1] == (
        "    never called (vllm_accel.utils.cache_patch is imported but patch_for_hybrid is "
        "never called from a reached scope)"
    )
    orphan = lines.index(
        "vllm_accel/utils/orphan.py:7  assignment  mlxish.generate._merge  <- <expr>"
    )
    assert lines[orphan + 1].startswith("    never imported (")
    statuses = [e["activation"]["status"] for e in json.loads(shown.out)["entries"]]
    assert statuses == ["never-imported", "never-imported"]
