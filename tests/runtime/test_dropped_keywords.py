"""A keyword the plugin's code passes to an upstream callable the new release no longer
takes: the replacement must follow, however unchanged its target.

``kplug`` overrides a method of upstream's ``Cache`` with one that builds upstream's
``Spec`` dataclass itself, passing the field ``ratio`` (a field of ``Spec``, beside
``block_size`` inherited from ``BaseSpec``). The new release renames the field
``tokens`` (vLLM 0.29.0 renamed ``MLAAttentionSpec``'s ``compress_ratio`` to
``tokens_per_state``) and leaves ``Cache``, ``make_cache`` and ``plain`` as they were:
the override's call fails (*update*); a call to a function that now takes ``**kwargs``,
and one passing only keywords the new release still takes, stay *retain*.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import write_files
from patchkeeper.runtime.judge.runtime_audit import audit_runtime

SPEC = """from dataclasses import dataclass


@dataclass(frozen=True)
class BaseSpec:
    block_size: int


@dataclass(frozen=True)
class Spec(BaseSpec):
    {field}: int = 1


def build(size, {rest}):
    return size


class Cache:
    def get_spec(self):
        return Spec(block_size=1)


def make_cache():
    return Cache()


def plain():
    return Spec(block_size=1)
"""

PATCH = """import vllm.spec
from vllm.spec import Cache, Spec, build


class MyCache(Cache):
    def get_spec(self):
        return Spec(block_size=2, ratio=2)


def my_make_cache():
    return build(size=1, mode="b")


def my_plain():
    return Spec(block_size=2)


vllm.spec.Cache = MyCache
vllm.spec.make_cache = my_make_cache
vllm.spec.plain = my_plain
"""

PLUGIN = {
    "pyproject.toml": (
        '[project]\nname = "kplug"\nversion = "1"\n\n'
        '[project.entry-points."vllm.general_plugins"]\nk = "kplug:register"\n'
    ),
    "kplug/__init__.py": "def register():\n    from kplug.patch import p_spec  # noqa: F401\n",
    "kplug/patch/__init__.py": "",
    "kplug/patch/p_spec.py": PATCH,
}


def test_a_keyword_the_new_release_no_longer_takes_is_an_update(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    old = write_files(
        tmp_path / "up-1.0",
        {"vllm/__init__.py": "", "vllm/spec.py": SPEC.format(field="ratio", rest='mode="a"')},
    )
    new = write_files(
        tmp_path / "up-2.0",
        {"vllm/__init__.py": "", "vllm/spec.py": SPEC.format(field="tokens", rest="**kwargs")},
    )
    plugin = write_files(tmp_path / "kplug", PLUGIN)
    result = audit_runtime(None, old=str(old), new=str(new), plugin=plugin, package="kplug")
    assert [(a.entry.target, a.drift.decision, a.drift.evidence[0]) for a in result.entries] == [
        (
            "vllm.spec.Cache",
            "update",
            "the replacement calls Spec(ratio=), a keyword the new upstream no longer takes "
            "(renamed or dropped): the call fails at the new release; pass what the new "
            "signature takes",
        ),
        (
            "vllm.spec.make_cache",
            "retain",
            "upstream vllm.spec.make_cache is unchanged from the old version (AST without "
            "docstrings, signature, decorators)",
        ),
        (
            "vllm.spec.plain",
            "retain",
            "upstream vllm.spec.plain is unchanged from the old version (AST without "
            "docstrings, signature, decorators)",
        ),
    ]
