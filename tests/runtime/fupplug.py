"""A plugin written by a test for the made-up upstream ``fup``: two releases of ``fup`` (1.0
and 2.0) beside the plugin's project, which declares itself in the ``fup.plugins`` entry
point group, and the runtime audit of the one against the other.

Importable from the runtime tests as ``from fupplug import write_trees, audit_trees``
(pyproject's ``pythonpath``); the tests of copies kept or updated by their callers
(``test_unpassed``, ``test_gated_binding``, ``test_callers_fit``, ``test_call_scope``,
``test_starred_keywords``, ``test_annotation_signature``, ``test_wrapper_literals``) build
their trees so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit
from patchkeeper.runtime.judge.runtime_audit import RuntimeAudit

#: The plugin project's ``pyproject.toml``; ``{package}`` is its name.
PYPROJECT = """[project]
name = "{package}"
version = "0.1"

[project.entry-points."fup.plugins"]
{package} = "{package}:register"

[tool.patchkeeper]
upstream = "fup"

[tool.patchkeeper.runtime]
package = "{package}"
entry-point-groups = ["fup.plugins"]
upstream-packages = ["fup"]
"""


def write_files(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> text, UTF-8) under ``root``; return ``root``."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def write_trees(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    releases: dict[str, dict[str, str]],
    package: str,
    plugin: dict[str, str],
) -> Path:
    """Under ``tmp_path``: ``fup-VERSION`` for each of ``releases`` (version -> the files of
    the ``fup`` package besides its empty ``__init__.py``, e.g. ``{"fup/kv.py": ...}``),
    with its ``PKG-INFO``; and the plugin project ``package`` with :data:`PYPROJECT`, an
    ``__init__.py`` whose ``register()`` imports ``package.patch``, and ``plugin`` (its other
    files). A private cache (``PATCHKEEPER_CACHE``) is set. Returns ``tmp_path``."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    for version, files in releases.items():
        write_files(
            tmp_path / f"fup-{version}",
            {
                "PKG-INFO": f"Metadata-Version: 2.1\nName: fup\nVersion: {version}\n",
                "fup/__init__.py": "",
                **files,
            },
        )
    write_files(
        tmp_path / package,
        {
            "pyproject.toml": PYPROJECT.format(package=package),
            f"{package}/__init__.py": (
                f"def register():\n    import {package}.patch  # noqa: F401\n"
            ),
            **plugin,
        },
    )
    return tmp_path


def audit_trees(trees: Path, package: str) -> RuntimeAudit:
    """The runtime audit of the plugin ``package`` under ``trees`` from ``fup-1.0`` to
    ``fup-2.0`` (:func:`write_trees`)."""
    return runtime_audit.audit_runtime(
        load_config(trees / package / "pyproject.toml"),
        old=str(trees / "fup-1.0"),
        new=str(trees / "fup-2.0"),
    )
