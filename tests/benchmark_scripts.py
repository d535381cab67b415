"""The benchmark scripts (``benchmarks/*.py``, which are not a package) loaded as modules
for their tests: each loaded once per test session and kept in ``sys.modules`` under its
file name, so that a script that imports another (``mine_debian`` imports ``accuracy``)
and the tests share one module."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

#: The folder of the benchmark scripts.
BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load(name: str) -> ModuleType:
    """The script ``benchmarks/NAME.py`` as the module ``NAME``, loaded the first time it is
    asked for, with ``benchmarks/`` on ``sys.path`` for the scripts it imports.

    Raises:
        FileNotFoundError: there is no such script.
    """
    known = sys.modules.get(name)
    if known is not None:
        return known
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
