"""``runtime lock`` on a name the plugin adds to an upstream module: a plugin ``cplug`` and two
releases of an upstream ``cup`` written by this test. ``cup.ops.extra`` is in neither
release (the plugin adds it); ``cup.ops.gone`` is in 1.0 only; ``cup.ops.probe`` is in
neither release but the plugin wraps it (a wrapper reads the original: it must exist)."""

from __future__ import annotations

from pathlib import Path

import pytest
from portclaims import make

from patchkeeper.config import load_config
from patchkeeper.runtime.live import lock

OPS = {
    "1.0": "def scale(x, f):\n    return x * f\n\n\ndef gone(x):\n    return x\n",
    "2.0": "def scale(x, f):\n    return x * f\n",
}

PATCH = """import cup.ops


def extra(x):
    return x + 1


def gone(x):
    return x - 1


_orig_probe = cup.ops.probe


def probe(x):
    return _orig_probe(x)


cup.ops.extra = extra
cup.ops.gone = gone
cup.ops.probe = probe
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    releases = {version: {"cup/ops.py": ops} for version, ops in OPS.items()}
    return make(tmp_path, monkeypatch, {"patch_ops.py": PATCH}, releases)


def _lock(work: Path, version: str) -> lock.LockResult:
    config = load_config(work / "plugin" / "pyproject.toml")
    return lock.write_lock(config, lock.LockRequest(at=str(work / f"cup-{version}")))


def test_a_name_the_plugin_adds_is_added_by_the_plugin_never_removed(work: Path) -> None:
    result = _lock(work, "1.0")
    assert (result.target_count, result.exit_code) == (1, 1)
    assert result.unguarded == (
        ("cup.ops.probe", "removed at 1.0: the release defines no such name"),
    )
    assert result.skipped == (
        (
            "cup.ops.extra",
            "added by the plugin: 1.0 defines no such name; nothing upstream to guard",
        ),
    )


def test_a_name_the_earlier_lock_had_is_removed_at_the_new_release(work: Path) -> None:
    _lock(work, "1.0")  # the lock the next run replaces records cup.ops.gone
    result = _lock(work, "2.0")
    assert result.unguarded == (
        (
            "cup.ops.gone",
            "removed at 2.0: the release defines no such name (the lock of 1.0 had it)",
        ),
        ("cup.ops.probe", "removed at 2.0: the release defines no such name"),
    )
    assert result.skipped == (
        (
            "cup.ops.extra",
            "added by the plugin: 2.0 defines no such name; nothing upstream to guard",
        ),
    )


MARKED_OPS = (
    "class Linear:\n    bias = None\n\n    def forward(self, x):\n        return x\n\n\n"
    "class Fused(Linear):\n    pass\n"
)

MARKERS = """import cup.ops


def forward(self, x):
    return x + 1


cup.ops.Linear.forward = forward
cup.ops.Linear._cup_patched = True
cup.ops.Fused._cup_patched = True
cup.ops.Linear.bias = 0
cup.ops._cup_patched = True
"""


def test_a_marker_the_plugin_adds_reads_the_same_on_a_class_and_a_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A flag the plugin sets on an upstream class (``Linear._cup_patched``, on a subclass
    too) is added by the plugin, in the words used for one it sets on a module; it was "not
    a definition upstream". A class attribute upstream has (``Linear.bias``) is not."""
    work = make(
        tmp_path, monkeypatch, {"patch_ops.py": MARKERS}, {"1.0": {"cup/ops.py": MARKED_OPS}}
    )
    result = _lock(work, "1.0")
    added = "added by the plugin: 1.0 defines no such name; nothing upstream to guard"
    assert result.unguarded == ()
    assert result.skipped == (
        ("cup.ops.Fused._cup_patched", added),
        ("cup.ops.Linear._cup_patched", added),
        ("cup.ops._cup_patched", added),
    )
    assert result.target_count == 2
