"""A vLLM fork's patch series over the real vLLM 0.27.1 tree, written at test time.

Six topics in the series workflow's shape (prose, then ``Kind``/``What``/``Upstream``/
``Cut-against``/``Retires-when``, then ``--- exported from <commit>``), each an edit at a
named anchor line of the unpacked sdist, turned into a diff by git itself. Nothing of vLLM is
committed: the edits are made on a copy of the cached sdist.

- ``speed-knobs-envs`` (local) and ``engine-stall-sentinel`` (feature) both edit ``envs.py``;
  the sentinel also creates a file. Its anchor, ``VLLM_ENGINE_ITERATION_TIMEOUT_S``, is gone
  by 0.32.0 (the seed: "#59781 removed VLLM_ENGINE_ITERATION_TIMEOUT_S, the old anchor").
- ``tokenize-dict-guard`` (backport) is the change 0.28.0 made to the tokenize protocol.
- ``prompt-progress`` (feature) adds a keyword where 0.28.0 added ``session_id``: a conflict.
- ``mamba-state-assert`` (fix) sits one line from a 0.28.0 change: git merges it.
- ``bench-api-key`` (fix) is two lines away from a 0.28.0 change: it applies as it is.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Edit:
    """Insert ``lines`` after the first line equal to ``anchor`` (stripped), or ``skip``
    lines further down (past a multi-line entry)."""

    path: str
    anchor: str
    lines: tuple[str, ...]
    skip: int = 0


@dataclass(frozen=True)
class Topic:
    name: str
    prose: str
    kind: str
    what: str
    upstream: str
    retires_when: str
    edits: tuple[Edit, ...]
    new_files: tuple[tuple[str, str], ...] = ()


SENTINEL = '''"""Warn once per episode when no engine step completes while requests are live."""

import threading
import time

from vllm import envs
from vllm.logger import init_logger

logger = init_logger(__name__)


def start(get_live_requests, get_last_step):
    """Start the daemon thread; it does nothing when VLLM_ENGINE_STALL_SENTINEL_S is 0."""
    limit = envs.VLLM_ENGINE_STALL_SENTINEL_S
    if not limit:
        return None

    def watch():
        warned = False
        while True:
            time.sleep(limit / 4)
            stalled = get_live_requests() and time.monotonic() - get_last_step() > limit
            if stalled and not warned:
                logger.warning("no engine step completed for %.0f s", limit)
            warned = bool(stalled)

    thread = threading.Thread(target=watch, name="stall-sentinel", daemon=True)
    thread.start()
    return thread
'''

TOPICS = (
    Topic(
        "speed-knobs-envs",
        "Registers this repo's fast-path knob in envs.py, so it is in the compile cache key.",
        "local",
        "register `VLLM_DOWNSTREAM_FAST_PATH` in `envs.py`",
        "none",
        "stays while the knob exists",
        (
            Edit(
                "envs.py",
                "VLLM_HTTP_TIMEOUT_KEEP_ALIVE: int = 5  # seconds",
                ("    VLLM_DOWNSTREAM_FAST_PATH: bool = False",),
            ),
            Edit(
                "envs.py",
                '"VLLM_HTTP_TIMEOUT_KEEP_ALIVE": lambda: int(',
                (
                    '    "VLLM_DOWNSTREAM_FAST_PATH": lambda: bool(',
                    '        int(os.getenv("VLLM_DOWNSTREAM_FAST_PATH", "0"))',
                    "    ),",
                ),
                skip=2,
            ),
        ),
    ),
    Topic(
        "engine-stall-sentinel",
        "A daemon thread warns once per episode when no step completes while requests\n"
        "are live, so a stalled core is visible without scraping stats gaps.",
        "feature",
        "warn when no engine step completes for `VLLM_ENGINE_STALL_SENTINEL_S`",
        "none",
        "upstreamed",
        (
            Edit(
                "envs.py",
                "VLLM_ENGINE_ITERATION_TIMEOUT_S: int = 60",
                ("    VLLM_ENGINE_STALL_SENTINEL_S: float = 0.0",),
            ),
            Edit(
                "envs.py",
                '"VLLM_ENGINE_ITERATION_TIMEOUT_S": lambda: int(',
                (
                    '    "VLLM_ENGINE_STALL_SENTINEL_S": lambda: float(',
                    '        os.environ.get("VLLM_ENGINE_STALL_SENTINEL_S", "0")',
                    "    ),",
                ),
                skip=2,
            ),
        ),
        (("v1/engine/stall_sentinel.py", SENTINEL),),
    ),
    Topic(
        "tokenize-dict-guard",
        "Tokenize requests that are not dicts reached the generation-prompt check.",
        "backport",
        "skip the generation-prompt check for non-dict tokenize payloads",
        "vllm #41007 (merged after 0.27.1)",
        "the pin that carries #41007",
        (
            Edit(
                "entrypoints/serve/tokenize/protocol.py",
                "def check_generation_prompt(cls, data):",
                ("        if not isinstance(data, dict):", "            return data"),
            ),
        ),
    ),
    Topic(
        "prompt-progress",
        "Opt-in return_progress on streaming completions.",
        "feature",
        "opt-in `return_progress`: SSE chunks carry prompt progress while the prompt prefills",
        "vllm #40371 (open)",
        "the pin that carries #40371",
        (
            Edit(
                "engine/protocol.py",
                "data_parallel_rank: int | None = None,",
                ("        return_progress: bool = False,",),
            ),
        ),
    ),
    Topic(
        "mamba-state-assert",
        "A head count that does not divide by the TP size gave a wrong state shape silently.",
        "fix",
        "assert that the Mamba head count divides by the TP size",
        "none yet",
        "upstream PR",
        (
            Edit(
                "model_executor/layers/mamba/mamba_utils.py",
                "state_shape = (num_heads // tp_size, head_dim, head_dim)",
                ('        assert num_heads % tp_size == 0, "heads must divide by TP size"',),
            ),
        ),
    ),
    Topic(
        "bench-api-key",
        "vllm bench serve sends the API key with every request.",
        "fix",
        "`RequestFuncInput.api_key` for keyed servers",
        "vllm #59888",
        "upstream PR",
        (
            Edit(
                "benchmarks/lib/endpoint_request_func.py",
                "output_len: int",
                ("    api_key: str | None = None",),
            ),
        ),
    ),
)


def _apply_edit(base: Path, edit: Edit) -> None:
    path = base / edit.path
    lines = path.read_text().split("\n")
    for index, line in enumerate(lines):
        if line.strip() == edit.anchor.strip():
            at = index + 1 + edit.skip
            lines[at:at] = list(edit.lines)
            path.write_text("\n".join(lines))
            return
    raise AssertionError(f"anchor {edit.anchor!r} not in {edit.path}")


def _git(work: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", "-c", "commit.gpgSign=false", *args], cwd=work, check=True, capture_output=True
    ).stdout


def write_series(tree: Path, downstream: Path, pin: str = "0.27.1") -> list[str]:
    """Write the six topics as a series in ``downstream/patches`` against ``tree`` (the
    unpacked sdist's root), with ``patchkeeper.toml``; return the patch names."""
    work = downstream / "work"
    shutil.copytree(tree / "vllm", work)
    _git(work, "init", "-q")
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "v" + pin)
    patches = downstream / "patches"
    patches.mkdir(parents=True)
    names = []
    for topic in TOPICS:
        # The edited anchor line of a later topic is looked up in the tree as the earlier
        # topics left it, as a contributor's topic commit would see it.
        for edit in topic.edits:
            _apply_edit(work, edit)
        for path, text in topic.new_files:
            (work / path).write_text(text)
        _git(work, "add", "-A")
        diff = _git(work, "diff", "--cached", "--no-color", "--no-ext-diff", "--no-renames")
        _git(work, "commit", "-qm", f"[qwen38] {topic.name}")
        commit = hashlib.sha1(topic.name.encode()).hexdigest()
        preamble = (
            f"{topic.prose}\n\nKind: {topic.kind}\nWhat: {topic.what}\n"
            f"Upstream: {topic.upstream}\nCut-against: {pin}\n"
            f"Retires-when: {topic.retires_when}\n--- exported from {commit}\n"
        )
        name = f"{topic.name}.patch"
        (patches / name).write_bytes(preamble.encode() + diff)
        names.append(name)
    (patches / "series").write_text("\n".join(names) + "\n")
    (downstream / "patchkeeper.toml").write_text(
        f'upstream = "vllm"\npin = "{pin}"\ndirectory = "vllm"\n'
    )
    shutil.rmtree(work)
    return names
