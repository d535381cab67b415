"""Modules of a plugin that something besides the plugin's loading runs.

The activation search starts from the places the plugin is loaded
(:mod:`patchkeeper.runtime.inventory.loading`); an entry none of them reaches is *never
imported*, which the audit reads as dead code. Two kinds of modules shipped inside a
plugin's package are run by something else, so that their not being imported by the
plugin's loading says nothing about whether they are dead:

- **test modules**, which a test runner imports: pytest's discovery names (``test_*.py``,
  ``*_test.py``, ``conftest.py``) and every module of a ``tests`` or ``test`` package
  (vllm-lens ships ``vllm_lens/tests/`` in its wheel). What they replace
  (``torch.backends.cuda.matmul.allow_tf32 = False`` in a test, a fake assigned over a vLLM
  function) is a setting or a stand-in for one test run, not a runtime patch the plugin
  carries: the inventory leaves them out and says how many it left out, unless the
  plugin's loading imports one (then its patches run with the plugin, and are listed);
- **scripts**, which a person runs as ``python -m module``: a ``__main__.py``, or a module
  with a module-level ``if __name__ == "__main__":`` (vllm-lens's ``_benchmarks``, an
  ``_examples`` module). Running one runs it and what it imports, as a console script
  does: each is a root of the activation search.

Entry points of groups that are not vLLM's (``inspect_ai``, ``pytest11``) are the third
kind: another program loads them; :mod:`patchkeeper.runtime.inventory.layout` lists them and
:func:`patchkeeper.runtime.inventory.loading.loading` makes them roots.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

#: Package names whose modules a test runner imports (pytest's usual test directories).
TEST_PACKAGES = frozenset({"tests", "test"})

#: Why test modules are left out of the inventory, as the inventory says it.
LEFT_OUT_WHY = (
    "run by a test runner, not by the plugin's loading: what they replace is a setting "
    "or a stand-in for a test run, not a runtime patch of the plugin"
)

#: A module-level ``if __name__ == "__main__":`` (either operand order), at the start of
#: a line: the module is meant to be run.
MAIN_GUARD = re.compile(
    rb"^if\s+\(?\s*(?:__name__\s*==\s*(['\"])__main__\1|(['\"])__main__\2\s*==\s*__name__)"
    rb"\s*\)?\s*:",
    re.MULTILINE,
)


def is_test_module(module: str, is_package: bool) -> bool:
    """Whether the plugin module ``module`` (dotted, its top-level package first) is a test
    module by pytest's discovery names: a file ``test_*.py``, ``*_test.py`` or
    ``conftest.py``, or a module of a package named ``tests`` or ``test`` below the
    top-level package (that package's ``__init__`` included).

    >>> is_test_module("vllm_lens.tests.test_qk_match", False)
    True
    >>> is_test_module("vllm_lens.tests", True)
    True
    >>> is_test_module("vllm_lens._examples.tests.helpers", False)
    True
    >>> is_test_module("vllm_lens.conftest", False)
    True
    >>> is_test_module("vllm_ascend.patch.worker.patch_attestation", False)
    False
    >>> is_test_module("vllm_x.testing", False), is_test_module("vllm_x.test", False)
    (False, False)
    """
    parts = module.split(".")
    packages = parts[1:] if is_package else parts[1:-1]
    if any(part in TEST_PACKAGES for part in packages):
        return True
    if is_package or len(parts) < 2:
        return False
    name = parts[-1]
    return name.startswith("test_") or name.endswith("_test") or name == "conftest"


def script_line(file: Path) -> int | None:
    """The line of ``file``'s module-level ``if __name__ == "__main__":`` (1-based), ``1``
    for a ``__main__.py``, or ``None`` when ``file`` is no script or cannot be read."""
    if file.name == "__main__.py":
        return 1
    try:
        data = file.read_bytes()
    except OSError:
        return None
    if b"__main__" not in data:
        return None
    found = MAIN_GUARD.search(data)
    if found is None:
        return None
    return data.count(b"\n", 0, found.start()) + 1


def scripts(package_files: Mapping[str, tuple[Path, bool]]) -> tuple[tuple[str, Path, int], ...]:
    """``(module, file, line)`` of every script of the plugin's package (see the module
    docstring; ``package_files`` as
    :attr:`patchkeeper.runtime.inventory.layout.PluginLayout.package_files`), in module
    order. A package's ``__init__`` is no script (``python -m package`` runs its
    ``__main__``), nor is a test module (a test runner runs it, whatever its guard says)."""
    found = []
    for module in sorted(package_files):
        file, is_package = package_files[module]
        if is_package or is_test_module(module, is_package):
            continue
        line = script_line(file)
        if line is not None:
            found.append((module, file, line))
    return tuple(found)
