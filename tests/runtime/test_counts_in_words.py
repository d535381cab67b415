"""A count of one is said in the singular: ``1 entry``, ``1 target in 1 upstream file``,
never ``1 entries`` or ``1 upstream files`` (seen on vllm-spyre 1.9.0, whose two locked
targets are in one upstream file). The plugin is written by the test in the shape of a real
one, against the ``tinyup`` fixture of ``tests/runtime/fixtures``."""

from __future__ import annotations

from pathlib import Path

import pytest
from tinyplug import HEADER, copy_releases, write_plugin

STEP = HEADER + (
    "import tinyup.engine as engine\n\n\ndef step(logits):\n    return None\n\n\n"
    "engine.step = step\n"
)


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The two tinyup releases under ``tmp_path`` and a private cache."""
    return copy_releases(tmp_path, monkeypatch)


def test_one_entry_one_target_one_file(upstream: Path, cli) -> None:
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP})
    run = cli("runtime", "inventory", cwd=root)
    assert run.out.splitlines()[0] == (
        f"plugin plug ({root}), patch directory plug/patch: 2 files, 1 entry"
    )
    run = cli("runtime", "lock", "--at", str(upstream / "upstream-1.0"), cwd=root)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[0] == (
        f"locked 1 target in 1 upstream file at 1.0: {root / 'plug' / 'patch' / 'patchkeeper.lock'}"
    )
