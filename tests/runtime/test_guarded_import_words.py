"""What the audit and port say of an import a ``try`` guards that the new upstream lost.

A plugin that probes an optional upstream module (``try: from vllm.x import y`` /
``except ImportError: HAS_Y = False``) and patches nothing in that ``try`` loses only the
name: the audit and port say so, not that patches stop. A ``try`` whose ``except`` returns
(so the patches after it stop too), or whose body patches after the import, is still said
to stop patching. The plugin is written by the test in the shape of such a probe; the
upstream is the ``tinyup`` fixture (1.0 and 2.0) of ``tests/runtime/fixtures``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tinyplug import HEADER, copy_releases, versions, write_plugin

PROBE = (
    HEADER
    + """import tinyup.engine as engine

try:
    from tinyup import kernels
    HAS_KERNELS = True
except ImportError:
    HAS_KERNELS = False


def step(logits):
    return None


engine.step = step


def patch_kernels():
    try:
        import tinyup.kernels as again
    except ImportError:
        return
    engine.fused = again
"""
)


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The two tinyup releases under ``tmp_path`` and a private cache."""
    return copy_releases(tmp_path, monkeypatch)


def test_a_probe_that_patches_nothing_is_said_to_lose_only_the_name(upstream: Path, cli) -> None:
    root = write_plugin(upstream, {"plug/patch/p_probe.py": PROBE})
    run = cli("runtime", "audit", *versions(upstream), "--json", cwd=root)
    assert run.code == 1
    findings = [f for f in json.loads(run.out)["findings"] if f["code"] == "guarded-gone"]
    assert findings == [
        {
            "code": "guarded-gone",
            "path": "plug/patch/p_probe.py",
            "line": 7,
            "message": "tinyup.kernels is gone from the new upstream: the `except` at line 9 "
            "catches the error, so the rest of its `try` no longer runs; it holds no patch, "
            "so only what it imports or defines is missing",
            "hint": "use the name where the new upstream defines it, or drop the import if "
            "the plugin no longer needs it",
        },
        {
            "code": "guarded-gone",
            "path": "plug/patch/p_probe.py",
            "line": 22,
            "message": "tinyup.kernels is gone from the new upstream: the `except` at line 23 "
            "catches the error, so the rest of its `try` no longer runs and what it patches "
            "is no longer patched",
            "hint": "use the name where the new upstream defines it, or remove the patches "
            "this `try` guards if the new upstream no longer needs them",
        },
    ]
    ported = cli("runtime", "port", *versions(upstream), "--json", cwd=root)
    details = [e["detail"] for e in json.loads(ported.out)["entries"] if e["decision"] == "import"]
    assert details == [
        "`from tinyup import kernels` fails at 2.0, its `except` at line 9 catching that "
        "(no patch stops running: only the names the `try` imports are missing): tinyup "
        "has no kernels there (no module of 2.0 defines it): rewrite the import by hand",
        "`import tinyup.kernels` fails at 2.0, its `except` at line 23 catching that (what "
        "the rest of the `try` patches is no longer patched): no module tinyup.kernels "
        "there: rewrite it by hand",
    ]
