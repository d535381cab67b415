"""The doctests of every patchkeeper module run with the suite (STYLE.md: pure helpers get
doctests)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import patchkeeper


def _with_examples() -> list[str]:
    """The modules that have at least one doctest example."""
    names = []
    for info in pkgutil.walk_packages(patchkeeper.__path__, prefix="patchkeeper."):
        if info.name.endswith("__main__"):
            continue
        tests = doctest.DocTestFinder().find(importlib.import_module(info.name))
        if any(test.examples for test in tests):
            names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("name", _with_examples())
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
