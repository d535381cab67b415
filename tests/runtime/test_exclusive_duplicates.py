"""The ``duplicate`` finding counts only patches that can be active at once. A plugin shaped
like vllm-ascend's worker patches imports one file for the standard hardware and another for
the rest (``if profile.standard: ... else: ...``), each patching the same attention method,
and pins two files on two releases (``vllm_version_is("0.28.0")`` /
``vllm_version_is("0.29.0")``): neither pair runs together, and each was told "the one
imported last wins: keep one", which would drop a patch the other hardware or release needs.
A third file that patches the method on every hardware still competes with both."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_trees import pyproject

from helpers import write_files
from patchkeeper.errors import Finding
from patchkeeper.runtime.inventory.runtime_inventory import take_inventory
from patchkeeper.runtime.judge.crosscheck import conditions_met, duplicates, exclusive


def _assign(target: str, name: str) -> str:
    module, _, attribute = target.rpartition(".")
    owner, _, method = module.rpartition(".")
    return (
        f"from {owner} import {method}\n\n\n"
        f"def {name}(self):\n    return None\n\n\n"
        f"{method}.{attribute} = {name}\n"
    )


FILES = {
    "pyproject.toml": pyproject("xplug", {"x": "xplug:register"}),
    "xplug/__init__.py": (
        "from xplug.hardware import profile\n"
        "from xplug.versions import vllm_version_is\n\n\n"
        "def register():\n"
        "    if profile().standard:\n"
        "        from xplug.patch import standard  # noqa: F401\n"
        "    else:\n"
        "        from xplug.patch import compact  # noqa: F401\n"
        "    if vllm_version_is('0.28.0'):\n"
        "        from xplug.patch import old_config  # noqa: F401\n"
        "    if vllm_version_is('0.29.0'):\n"
        "        from xplug.patch import new_config  # noqa: F401\n"
    ),
    "xplug/hardware.py": "def profile():\n    return None\n",
    "xplug/versions.py": "def vllm_version_is(version):\n    return False\n",
    "xplug/patch/__init__.py": "",
    "xplug/patch/standard.py": _assign("vllm.attention.Attention.forward", "forward"),
    "xplug/patch/compact.py": _assign("vllm.attention.Attention.forward", "compact_forward"),
    "xplug/patch/old_config.py": _assign("vllm.config.ParallelConfig.validate", "validate"),
    "xplug/patch/new_config.py": _assign("vllm.config.ParallelConfig.validate", "validate"),
}


def test_patches_in_exclusive_branches_are_no_duplicate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    write_files(tmp_path, FILES)
    inventory = take_inventory(None, plugin=tmp_path, package="xplug")
    assert sorted(
        (e.file, e.target, [c.described() for c in e.activation.conditions])
        for e in inventory.entries
        if e.activation is not None
    ) == [
        (
            "xplug/patch/compact.py",
            "vllm.attention.Attention.forward",
            ["else not (profile().standard)"],
        ),
        (
            "xplug/patch/new_config.py",
            "vllm.config.ParallelConfig.validate",
            ["version vllm_version_is('0.29.0')"],
        ),
        (
            "xplug/patch/old_config.py",
            "vllm.config.ParallelConfig.validate",
            ["version vllm_version_is('0.28.0')"],
        ),
        (
            "xplug/patch/standard.py",
            "vllm.attention.Attention.forward",
            ["if profile().standard"],
        ),
    ]
    assert duplicates(list(inventory.entries)) == []


def test_the_else_of_a_negated_test_is_exclusive_with_its_if(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``if not profile().standard: ... else: ...``: the else runs under the test's operand
    (``else profile().standard``), still the negation of the if at the same place."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    negated = FILES["xplug/__init__.py"].replace(
        "    if profile().standard:\n"
        "        from xplug.patch import standard  # noqa: F401\n"
        "    else:\n"
        "        from xplug.patch import compact  # noqa: F401\n",
        "    if not profile().standard:\n"
        "        from xplug.patch import compact  # noqa: F401\n"
        "    else:\n"
        "        from xplug.patch import standard  # noqa: F401\n",
    )
    write_files(tmp_path, {**FILES, "xplug/__init__.py": negated})
    inventory = take_inventory(None, plugin=tmp_path, package="xplug")
    assert sorted(
        (e.file, [c.described() for c in e.activation.conditions])
        for e in inventory.entries
        if e.activation is not None and e.target == "vllm.attention.Attention.forward"
    ) == [
        ("xplug/patch/compact.py", ["if not profile().standard"]),
        ("xplug/patch/standard.py", ["else profile().standard"]),
    ]
    assert duplicates(list(inventory.entries)) == []


def test_a_patch_on_every_hardware_competes_with_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    always = {
        "xplug/patch/always.py": _assign("vllm.attention.Attention.forward", "always_forward"),
        "xplug/__init__.py": FILES["xplug/__init__.py"]
        + "    from xplug.patch import always  # noqa: F401\n",
    }
    write_files(tmp_path, {**FILES, **always})
    inventory = take_inventory(None, plugin=tmp_path, package="xplug")
    assert duplicates(list(inventory.entries)) == [
        Finding(
            "duplicate",
            "xplug/patch/always.py",
            8,
            "vllm.attention.Attention.forward is patched in 3 files (xplug/patch/always.py:8, "
            "xplug/patch/compact.py:8, xplug/patch/standard.py:8): the one imported last wins",
            "keep one",
        )
    ]


def test_each_condition_is_negated_once_for_every_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The conditions of the entries compared are read once each: the negation of a
    condition's text is kept under that text, for every pair it is part of."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    write_files(tmp_path, FILES)
    inventory = take_inventory(None, plugin=tmp_path, package="xplug")
    forward = sorted(
        (e for e in inventory.entries if e.target == "vllm.attention.Attention.forward"),
        key=lambda e: e.file,
    )
    negations: dict[str, str] = {}
    compact, standard = (conditions_met(e, negations) for e in forward)
    assert negations == {
        "not (profile().standard)": "profile().standard",
        "profile().standard": "not (profile().standard)",
    }
    assert exclusive(compact, standard) and exclusive(standard, compact)
    assert compact.pins == standard.pins == frozenset()
