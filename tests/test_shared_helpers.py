"""No test module imports from another test module: what tests share lives in a helper module
(``tests/helpers.py``, a folder's ``*_support.py``) or a ``conftest.py`` fixture, so editing
or removing one test module cannot break another's imports unseen."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _test_module_imports(path: Path) -> list[tuple[int, str]]:
    """The imports of ``path`` that name a test module (``test_*``): (line, module)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            if name.rpartition(".")[2].startswith("test_"):
                found.append((node.lineno, name))
    return found


def test_no_test_module_imports_another() -> None:
    paths = sorted(p for p in TESTS.rglob("*.py") if "fixtures" not in p.parts)
    found = [
        f"{path.relative_to(TESTS).as_posix()}:{line}: {name}"
        for path in paths
        for line, name in _test_module_imports(path)
    ]
    assert found == []


def test_the_check_sees_both_import_forms(tmp_path: Path) -> None:
    module = tmp_path / "test_x.py"
    module.write_text("from test_y import z\n\n\ndef f():\n    import tests.a.test_w\n")
    assert _test_module_imports(module) == [(1, "test_y"), (5, "tests.a.test_w")]
