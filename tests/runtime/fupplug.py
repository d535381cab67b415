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
from plugin_trees import audit_fixture, patch_plugin, pyproject

from helpers import write_files
from patchkeeper.runtime.judge.runtime_audit import RuntimeAudit


def fup_plugin(package: str, patches: dict[str, str], register: str) -> dict[str, str]:
    """The files of the plugin project ``package`` configured for ``fup``
    (:func:`plugin_trees.patch_plugin`): its entry point ``package`` in ``fup.plugins``, its
    ``__init__.py`` ``register``, and ``patches`` (module name -> text) in its ``patch``
    package."""
    return patch_plugin(
        package,
        patches,
        entry=package,
        group="fup.plugins",
        register=register,
        version="0.1",
        upstream="fup",
    )


def write_trees(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    releases: dict[str, dict[str, str]],
    package: str,
    plugin: dict[str, str],
) -> Path:
    """Under ``tmp_path``: ``fup-VERSION`` for each of ``releases`` (version -> the files of
    the ``fup`` package besides its empty ``__init__.py``, e.g. ``{"fup/kv.py": ...}``),
    with its ``PKG-INFO``; and the plugin project ``package`` (its ``pyproject.toml`` by
    :func:`plugin_trees.pyproject`, configured for ``fup``, its entry point in ``fup.plugins``),
    an ``__init__.py`` whose ``register()`` imports ``package.patch``, and ``plugin`` (its
    other files). A private cache (``PATCHKEEPER_CACHE``) is set. Returns ``tmp_path``."""
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
            "pyproject.toml": pyproject(
                package,
                {package: f"{package}:register"},
                group="fup.plugins",
                version="0.1",
                upstream="fup",
            ),
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
    return audit_fixture(trees, package, "fup")
