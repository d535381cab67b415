"""``port`` of a vLLM fork's series over real vLLM sdists: 0.27.1 -> 0.28.0 -> 0.32.0.

The series (:mod:`vllm_series`) is written at test time on the cached 0.27.1 sdist. At 0.28.0
one patch is upstream, one conflicts (upstream added ``session_id`` where it adds
``return_progress``), two are merged by git, two apply. The ported series then goes on to
0.32.0, where the stall sentinel's anchor is gone (the seed: "#59781 removed
VLLM_ENGINE_ITERATION_TIMEOUT_S, the old anchor") and upstream added ``kv_hints`` where the
progress keyword goes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from port_support import resolve
from vllm_series import write_series

from corpus import sdist_tree

pytestmark = pytest.mark.network

AT_0_28_STOP = [
    ("speed-knobs-envs.patch", "merged", False),
    ("engine-stall-sentinel.patch", "offset", False),
    ("tokenize-dict-guard.patch", "upstreamed", False),
    ("prompt-progress.patch", "conflict", False),
    ("mamba-state-assert.patch", "merged", True),
    ("bench-api-key.patch", "clean", True),
]
AT_0_32_STOP = [
    ("speed-knobs-envs.patch", "offset", False),
    ("engine-stall-sentinel.patch", "conflict", False),
    ("prompt-progress.patch", "conflict", True),
    ("mamba-state-assert.patch", "offset", True),
    ("bench-api-key.patch", "clean", True),
]
SESSION = b"        session_id: str | None = None,\n"
PROGRESS = b"        return_progress: bool = False,\n"
KV_HINTS = b"        kv_hints: KvHintsEnvelope | None = None,\n"
SENTINEL_KNOB = b"    VLLM_ENGINE_STALL_SENTINEL_S: float = 0.0\n"
SENTINEL_LAMBDA = (
    b'    "VLLM_ENGINE_STALL_SENTINEL_S": lambda: float(\n'
    b'        os.environ.get("VLLM_ENGINE_STALL_SENTINEL_S", "0")\n'
    b"    ),\n"
)


def verdicts(data: dict) -> list[tuple[str, str, bool]]:
    return [(p["name"], p["verdict"], p["pending"]) for p in data["patches"]]


def verify(cli, series_dir: Path, tmp_path: Path, version: str, count: int) -> None:
    """Apply the series to a copy of the release and verify it against the release."""
    pristine = sdist_tree(f"vllm=={version}")
    target = tmp_path / f"vllm-{version}"
    shutil.copytree(pristine, target)
    run = cli("-C", str(series_dir), "apply", "--target", str(target))
    assert run.code == 0, run.out + run.err
    run = cli("-C", str(series_dir), "verify", "--target", str(target), "--pristine", str(pristine))
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        f"ok: {count} of {count} patches applied, 0 files drifted",
    )


def test_vllm_series_to_0_28_0_then_0_32_0(cli, tmp_path: Path) -> None:
    root = tmp_path / "downstream"
    write_series(sdist_tree("vllm==0.27.1"), root)
    work = root / ".patchkeeper-port" / "conflict" / "files"

    run = cli("port", "--json", "--to", "vllm==0.28.0", cwd=root)
    assert run.code == 1, run.err
    data = json.loads(run.out)
    assert verdicts(data) == AT_0_28_STOP
    assert data["patches"][2]["summary"].startswith("the patch reverse-applies")
    region = (work / "engine" / "protocol.py").read_bytes()
    assert (
        b"<<<<<<< new pin 0.28.0\n" + SESSION + b"||||||| old pin 0.27.1\n=======\n" + PROGRESS
    ) in region
    resolve(work / "engine" / "protocol.py", SESSION + PROGRESS)
    run = cli("port", "--continue", "--json", cwd=root)
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert [(n, v) for n, v, _ in verdicts(data)] == [
        (n, "resolved" if v == "conflict" else v) for n, v, _ in AT_0_28_STOP
    ]
    series_28 = root / "patches-0.28.0"
    sentinel = (series_28 / "engine-stall-sentinel.patch").read_text()
    assert "Cut-against: 0.28.0\nRetires-when: upstreamed\n--- exported from " in sentinel
    assert "new file mode 100644\n" in sentinel
    assert (
        (series_28 / "series")
        .read_text()
        .splitlines()[2]
        .startswith("# tokenize-dict-guard.patch  # upstreamed in 0.28.0")
    )
    verify(cli, series_28, tmp_path, "0.28.0", 5)

    # on to 0.32.0, from the ported series (its own configuration names pin 0.28.0)
    work = series_28 / ".patchkeeper-port" / "conflict" / "files"
    run = cli("-C", str(series_28), "port", "--json", "--to", "vllm==0.32.0")
    assert run.code == 1, run.err
    data = json.loads(run.out)
    assert verdicts(data) == AT_0_32_STOP
    envs = (work / "envs.py").read_bytes()
    assert envs.count(b"<<<<<<< new pin 0.32.0\n||||||| old pin 0.28.0\n") == 2
    resolve(work / "envs.py", SENTINEL_KNOB, SENTINEL_LAMBDA)
    run = cli("-C", str(series_28), "port", "--continue", "--json")
    assert run.code == 1, run.err
    data = json.loads(run.out)
    assert data["stopped_at"] == "prompt-progress.patch"
    # 0.32.0 added kv_hints where 0.28.0 had added session_id
    protocol = (work / "engine" / "protocol.py").read_bytes()
    assert (
        SESSION
        + b"<<<<<<< new pin 0.32.0\n"
        + KV_HINTS
        + b"||||||| old pin 0.28.0\n=======\n"
        + PROGRESS
        + b">>>>>>> prompt-progress.patch\n"
    ) in protocol
    resolve(work / "engine" / "protocol.py", KV_HINTS + PROGRESS)
    run = cli("-C", str(series_28), "port", "--continue", "--json")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert [(p["name"], p["verdict"]) for p in data["patches"]] == [
        ("speed-knobs-envs.patch", "offset"),
        ("engine-stall-sentinel.patch", "resolved"),
        ("prompt-progress.patch", "resolved"),
        ("mamba-state-assert.patch", "offset"),
        ("bench-api-key.patch", "clean"),
    ]
    series_32 = root / "patches-0.32.0"
    assert data["output"] == str(series_32)
    verify(cli, series_32, tmp_path, "0.32.0", 5)
