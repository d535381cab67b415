"""A replacement that reaches the original through another function of its module is a
wrapper, not a copy.

``_orig_build = Builder.build``, ``def _build_marked(self): return _orig_build(self)``,
``_inner = _build_marked``, then ``def build(self): return _inner(self)`` installed as
``Builder.build``: the replacement runs upstream's own ``build`` through the helper, as a
replacement that calls ``_orig_build`` itself does. Listed as an assignment, its audit read it
as a copy keeping almost none of upstream's lines. A replacement whose helpers never reach the
original stays an assignment, and helpers that call one another are each read once. The
plugin is written by the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_trees import pyproject

from helpers import write_files
from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

BUILDERS = """from vllm.builder import Builder, Padder, Runner, Sampler

_orig_build = Builder.build
_orig_pad = Padder.pad
_orig_run = Runner.run


def _build_marked(self, *args):
    return _orig_build(self, *args)


def _build_full(self, *args):
    result = _inner_build(self, *args)
    result.full = True
    return result


_inner_build = _build_marked


def _pad_step(self, size):
    return _pad_again(self, size)


def _pad_again(self, size):
    if size > 8:
        return _pad_step(self, size - 1)
    return size


def _pad_copy(self, size):
    return _pad_step(self, size)


def _run_directly(self):
    return _run_helper(self) + 1


def _run_helper(self):
    return _orig_run(self)


def _sample(self, _original=Sampler.sample):
    return _original(self)


def install():
    Builder.build = _build_full
    Padder.pad = _pad_copy
    Runner.run = _run_directly
    Sampler.sample = _sample
"""


def test_a_replacement_calling_a_helper_that_calls_the_original_is_a_wrapper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    write_files(
        tmp_path,
        {
            "pyproject.toml": pyproject("hplug", {"h": "hplug.builders:install"}),
            "hplug/__init__.py": "",
            "hplug/builders.py": BUILDERS,
        },
    )
    inventory = take_inventory(None, plugin=tmp_path, package="hplug")
    assert [(e.line, e.target, e.mechanism.value, e.replacement) for e in inventory.entries] == [
        (48, "vllm.builder.Builder.build", "wrapper", "hplug.builders:_build_full"),
        (49, "vllm.builder.Padder.pad", "assignment", "hplug.builders:_pad_copy"),
        (50, "vllm.builder.Runner.run", "wrapper", "hplug.builders:_run_directly"),
        (51, "vllm.builder.Sampler.sample", "wrapper", "hplug.builders:_sample"),
    ]
