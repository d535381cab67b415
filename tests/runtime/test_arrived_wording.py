"""A target the old release does not define at its path and the new one does: the audit's
evidence says the old release lacks it there (and where it had the name), never that it
was "removed" or "moved" *in the old upstream*, which reads as if the old release had
dropped it. Found on vllm-kunlun 0.11.1 audited from vLLM 0.10.1.1 to 0.11.0, whose
patches of ``vllm.v1.attention.backends.gdn_attn`` (a module new in 0.11.0) read
"... is removed in the old upstream but found in the new one at ...".

The plugin is written here in that shape; the upstream is the ``tinyup`` fixture, whose
2.0 adds ``tinyup.startup`` and moves ``tinyup.kernels`` to ``tinyup.ops.kernels``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tinyplug import HEADER, copy_releases, versions, write_plugin


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The two tinyup releases under ``tmp_path`` and a private cache."""
    return copy_releases(tmp_path, monkeypatch)


AHEAD = HEADER + (
    "import tinyup.startup as startup\n"
    "import tinyup.ops.kernels as kernels\n\n\n"
    "def start():\n    return 'plugin'\n\n\n"
    "def add_kernel(x, y):\n    return x - y\n\n\n"
    "startup.start = start\n"
    "kernels.add_kernel = add_kernel\n"
)


def test_a_target_new_at_its_path_is_said_absent_from_the_old_release(upstream: Path, cli) -> None:
    root = write_plugin(upstream, {"plug/patch/p_ahead.py": AHEAD})
    run = cli("runtime", "audit", *versions(upstream), "--json", cwd=root)
    evidence = {
        a["entry"]["target"]: a["drift"]["evidence"] for a in json.loads(run.out)["entries"]
    }
    assert evidence["tinyup.startup.start"][1:] == [
        "tinyup.startup.start is not in the old upstream (no definition of the name there) "
        "but is found in the new one at tinyup.startup.start",
    ]
    assert evidence["tinyup.ops.kernels.add_kernel"][1:] == [
        "tinyup.ops.kernels.add_kernel is not at that path in the old upstream (the old "
        "release defines the name at tinyup.kernels.add_kernel (line 5)) but is found in "
        "the new one at tinyup.ops.kernels.add_kernel",
    ]
    assert (
        "in the old upstream but" not in cli("runtime", "audit", *versions(upstream), cwd=root).out
    )
