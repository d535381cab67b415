"""A swap undone in the ``finally`` of a ``try`` (``old = m.f; m.f = new; try: ... finally:
m.f = old``) is a temporary entry, and so is the restoring statement; a swap without a
restore stays permanent. The restoring statement puts back the value it saved: an
assignment (or ``setattr``), never a *wrapper*, which is code that calls the original. The
plugin file is written by the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_trees import pyproject

from patchkeeper.render.runtime import inventory_text
from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

LOADER = """import vllm.model_loader as loader
import vllm.registry as registry


def _quiet(*args):
    return None


def load(model):
    old = loader.report
    loader.report = _quiet
    registry.TABLE["tmp"] = _quiet
    try:
        setattr(loader, "warn", _quiet)
        model.load()
    finally:
        loader.report = old
        setattr(loader, "warn", old)
        del registry.TABLE["tmp"]
    loader.finish = _quiet
"""


def test_a_swap_restored_in_finally_is_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("tplug", {"t": "tplug.loader:load"}),
        "tplug/__init__.py": "",
        "tplug/loader.py": LOADER,
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    inventory = take_inventory(None, plugin=tmp_path, package="tplug")
    assert [
        (e.line, e.target, e.key, e.mechanism.value, e.temporary) for e in inventory.entries
    ] == [
        (11, "vllm.model_loader.report", None, "assignment", True),
        (12, "vllm.registry.TABLE", "'tmp'", "registry", True),
        (14, "vllm.model_loader.warn", None, "setattr", True),
        (17, "vllm.model_loader.report", None, "assignment", True),
        (18, "vllm.model_loader.warn", None, "setattr", True),
        (19, "vllm.registry.TABLE", "'tmp'", "registry", True),
        (20, "vllm.model_loader.finish", None, "assignment", False),
    ]
    assert (
        "tplug/loader.py:11  assignment  vllm.model_loader.report  <- tplug.loader:_quiet"
        " (temporary: restored in finally)"
    ) in inventory_text(inventory).splitlines()


GUARDED = """import contextlib

import vllm.model_loader as loader
import vllm.spec.utils as spec_utils


def _single():
    return 1


def load(model, bypass, quiet):
    if bypass:
        original = spec_utils.get_group
        spec_utils.get_group = _single
    if quiet:
        saved = loader.report
        loader.report = _single
    loader.warn = _single
    try:
        model.load()
    finally:
        if bypass:
            spec_utils.get_group = original
        else:
            pass
        with contextlib.suppress(AttributeError):
            if quiet:
                loader.report = saved
"""


def test_a_swap_made_and_undone_under_a_condition_is_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A swap made under ``if bypass:`` and undone under the same test in the ``finally``
    (or inside a ``with`` block there) is temporary, and so is its restore; a swap the
    ``finally`` does not undo (``loader.warn``) stays permanent."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("gplug", {"g": "gplug.loader:load"}),
        "gplug/__init__.py": "",
        "gplug/loader.py": GUARDED,
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    inventory = take_inventory(None, plugin=tmp_path, package="gplug")
    assert [(e.line, e.target, e.mechanism.value, e.temporary) for e in inventory.entries] == [
        (14, "vllm.spec.utils.get_group", "assignment", True),
        (17, "vllm.model_loader.report", "assignment", True),
        (18, "vllm.model_loader.warn", "assignment", False),
        (23, "vllm.spec.utils.get_group", "assignment", True),
        (28, "vllm.model_loader.report", "assignment", True),
    ]


COUNTER = """from vllm.compile.counter import counter


def capture_trial(runner):
    captured_before = counter.graphs_captured
    try:
        runner.capture()
    finally:
        runner.cleanup()
        counter.graphs_captured = captured_before
    setattr(counter, "graphs_seen", counter.graphs_seen)
"""


def test_putting_back_a_saved_value_is_no_wrapper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Upstream's counter saved before the ``try`` and set back to that value in its
    ``finally`` (upstream code in the ``try`` counted what the plugin does not want counted):
    a temporary assignment of upstream data, listed as such; and setting an attribute to
    its own value is an assignment too."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {
        "pyproject.toml": pyproject("cplug", {"c": "cplug.trial:capture_trial"}),
        "cplug/__init__.py": "",
        "cplug/trial.py": COUNTER,
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    inventory = take_inventory(None, plugin=tmp_path, package="cplug")
    assert [
        (e.line, e.target, e.mechanism.value, e.replacement, e.temporary) for e in inventory.entries
    ] == [
        (10, "vllm.compile.counter.counter.graphs_captured", "assignment", "<expr>", True),
        (11, "vllm.compile.counter.counter.graphs_seen", "setattr", "<expr>", False),
    ]
    assert (
        "cplug/trial.py:10  assignment  vllm.compile.counter.counter.graphs_captured  <- <expr>"
        " (temporary: restored in finally)"
    ) in inventory_text(inventory).splitlines()
