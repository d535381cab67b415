"""A plugin ``plug`` on the ``tinyup`` upstream fixture, written by a test in the shape of a
real vLLM plugin (entry point, patch package, ``[tool.patchkeeper.runtime]``): shared by the
tests of odd real inputs (``test_new_user_inputs.py``, ``test_named_constants.py``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"

PYPROJECT = """[project]
name = "plug"
version = "0.1"

[project.entry-points."tinyup.general_plugins"]
plug = "plug.patch:apply"

[tool.patchkeeper]
upstream = "tinyup"

[tool.patchkeeper.runtime]
package = "plug"
entry-point-groups = ["tinyup.general_plugins"]
upstream-packages = ["tinyup"]
"""

HEADER = "# Note: n\n# Affected versions: 1.0\n# Remove at: 3.0\n"


def write_plugin(
    base: Path,
    files: dict[str, str | bytes],
    pyproject: str = PYPROJECT,
    links: dict[str, Path] | None = None,
) -> Path:
    """A plugin ``plug`` under ``base/plugin`` with ``files`` (relative to the plugin root)
    and symbolic ``links`` (relative path -> where it points); its patch package imports
    every module named ``plug/patch/p_*.py`` from ``apply()``. Returns the plugin root."""
    root = base / "plugin"
    (root / "plug" / "patch").mkdir(parents=True)
    (root / "plug" / "__init__.py").write_text("")
    for relative, pointed in (links or {}).items():
        (root / relative).symlink_to(pointed)
    named = [*files, *(links or {})]
    modules = sorted(Path(f).stem for f in named if f.startswith("plug/patch/p_"))
    imports = "".join(f"    from plug.patch import {m}  # noqa: F401\n" for m in modules)
    (root / "plug" / "patch" / "__init__.py").write_text(HEADER + "def apply():\n" + imports)
    (root / "pyproject.toml").write_text(pyproject)
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data)
    return root


def copy_releases(base: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The two tinyup releases (``upstream-1.0``, ``upstream-2.0``) copied under ``base``,
    with a private cache there; returns ``base``."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(base / "cache"))
    for name in ("upstream-1.0", "upstream-2.0"):
        shutil.copytree(FIXTURES / name, base / name)
    return base


def versions(base: Path) -> list[str]:
    """``--from``/``--to`` options naming the two copied releases."""
    return ["--from", str(base / "upstream-1.0"), "--to", str(base / "upstream-2.0")]
