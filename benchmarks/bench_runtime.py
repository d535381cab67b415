"""Benchmark: runtime inventory + audit of vllm-ascend 0.30.0rc2 from vLLM 0.30.0 to 0.32.0.

Run: ``python benchmarks/bench_runtime.py`` (downloads the sdists once). Prints cold (empty
parse cache) and warm seconds and the peak resident memory of each run.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile

CODE = """
import time
from patchkeeper.fetch import fetch_requirement
from patchkeeper.runtime import audit
root = fetch_requirement("vllm-ascend==0.30.0rc2").root
t = time.perf_counter()
result = audit.run(None, old="vllm==0.30.0", new="vllm==0.32.0", plugin=root, package="vllm_ascend")
print(f"{time.perf_counter() - t:.2f}", result.counts)
"""


def main() -> None:
    env = dict(os.environ)
    subprocess.run([sys.executable, "-c", CODE], check=True, env=env, capture_output=True)
    with tempfile.TemporaryDirectory() as runtime_cache:
        for label in ("cold", "warm"):
            env["PATCHKEEPER_RUNTIME_CACHE"] = runtime_cache
            if label == "cold":
                subprocess.run(
                    ["rm", "-rf", os.path.expanduser("~/.cache/patchkeeper-corpus/runtime")],
                    check=True,
                )
            before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            out = subprocess.run(
                [sys.executable, "-c", CODE], check=True, env=env, capture_output=True, text=True
            ).stdout.strip()
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            print(f"{label}: {out.split()[0]} s, peak RSS {max(peak, before) / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
