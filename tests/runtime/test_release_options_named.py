"""The runtime commands name the option whose release cannot be had (``--from``, ``--to``,
``--at``): two releases are typed on one command line, and "no version of vllm matches
vllm==0.3.20" did not say which. ``upgrade`` of a downstream of runtime patches alone finds
both before it writes anything, so a mistyped one leaves no upgrade in progress.

The plugin is in the shape of a vLLM platform plugin for another accelerator stack: an entry
point in ``vllm.platform_plugins``, its patches under ``<package>/patches/``, one of them on
a library outside vLLM, one on vLLM itself."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import LocalIndex, make_checkout, make_tar, vllm_plugin_pyproject, write_files

PYPROJECT = vllm_plugin_pyproject(
    "vllm-accel",
    "0.6.0",
    'accel = "vllm_accel.plugin:accel_platform_plugin"',
    dependencies=("vllm==1.0",),
    group="platform_plugins",
    package="vllm_accel",
    pin="1.0",
)
PLUGIN = """def accel_platform_plugin():
    from vllm_accel.patches import worker_patch

    worker_patch.patch_worker()
    return "vllm_accel.platform.AccelPlatform"
"""
WORKER_PATCH = '''"""Note: run the step on the accelerator stream.
Affected versions: 1.0
Remove at: never
"""


def patch_worker():
    from vllm.worker import Worker

    def _execute(self, batch):
        return batch

    Worker.execute = _execute
'''
WORKER = "class Worker:\n    def execute(self, batch):\n        return list(batch)\n"


def _plugin(root: Path) -> Path:
    plugin = write_files(
        root / "vllm-accel",
        {
            "pyproject.toml": PYPROJECT,
            "vllm_accel/__init__.py": "",
            "vllm_accel/plugin.py": PLUGIN,
            "vllm_accel/patches/__init__.py": "",
            "vllm_accel/patches/worker_patch.py": WORKER_PATCH,
        },
    )
    for version in ("1.0", "2.0"):
        write_files(root / f"vllm-{version}", {"vllm/__init__.py": "", "vllm/worker.py": WORKER})
    return plugin


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def test_a_mistyped_from_directory_is_named(cli, tmp_path: Path, private_cache: Path) -> None:
    plugin = _plugin(tmp_path)

    run = cli("runtime", "audit", "--from", "../vllm-1.O", "--to", "../vllm-2.0", cwd=plugin)

    assert (run.code, run.err) == (
        2,
        "patchkeeper: error: the old upstream (--from): no such directory: ../vllm-1.O\n"
        "  hint: give a directory, a release's sdist or wheel file, or a pinned requirement "
        "such as vllm==0.32.0\n",
    )


def test_a_release_the_index_does_not_hold_is_named(
    cli, tmp_path: Path, local_index: LocalIndex
) -> None:
    for version in ("1.0", "2.0"):
        members = [(f"vllm-{version}/vllm/__init__.py", b""), (f"vllm-{version}/PKG-INFO", b"")]
        local_index.publish("vllm", f"vllm-{version}.tar.gz", make_tar(members))
    plugin = _plugin(tmp_path)
    hint = "  hint: available versions: 1.0, 2.0\n"

    audit = cli("runtime", "audit", "--from", "../vllm-1.0", "--to", "vllm==2.1", cwd=plugin)
    lock = cli("runtime", "lock", "--at", "vllm==0.2", cwd=plugin)

    assert (audit.code, audit.err) == (
        2,
        "patchkeeper: error: the new upstream (--to) vllm==2.1 cannot be fetched: no version "
        f"of vllm matches vllm==2.1\n{hint}",
    )
    assert (lock.code, lock.err) == (
        2,
        "patchkeeper: error: the release to lock (--at) vllm==0.2 cannot be fetched: no "
        f"version of vllm matches vllm==0.2\n{hint}",
    )


def test_upgrade_of_runtime_patches_finds_both_releases_first(
    cli, tmp_path: Path, private_cache: Path
) -> None:
    plugin = _plugin(tmp_path)
    make_checkout(plugin, "the plugin")
    before = _files(plugin)

    run = cli("upgrade", "--to", "../vllm-2.O", "--from", "../vllm-1.0", "--json", cwd=plugin)

    error = json.loads(run.out)["error"]
    assert (run.code, error["message"]) == (
        2,
        "the new upstream (--to): no such directory: ../vllm-2.O",
    )
    assert _files(plugin) == before
    again = cli("upgrade", "--to", "../vllm-2.0", "--from", "../vllm-1.0", "--json", cwd=plugin)
    assert (again.code, json.loads(again.out)["outcome"]) == (0, "done")
