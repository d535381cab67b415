"""A release handed as a wheel file is named by its version, as an sdist is. An unpacked
wheel carries its version in ``NAME-VERSION.dist-info/METADATA``, not in a ``PKG-INFO``:
``runtime lock --at vllm-X-TAGS.whl`` wrote "at directory ~/.cache/.../trees/local/<digest>/
..." into its report and lock file, and the audit evaluated no version gate at that release.
The wheels here are written by the test."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from tinyplug import HEADER, write_plugin

from patchkeeper.runtime.syntax.gates import release_label, release_version

PYPROJECT = """[project]
name = "plug"
version = "0.1"

[tool.patchkeeper]
upstream = "up"

[tool.patchkeeper.runtime]
package = "plug"
upstream-packages = ["up"]
"""

PATCH = HEADER + (
    "from up import engine\n\n\ndef step(self):\n    return 2\n\n\nengine.Engine.step = step\n"
)


def _wheel(base: Path, version: str) -> Path:
    path = base / f"up-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr("up/__init__.py", "")
        wheel.writestr("up/engine.py", "class Engine:\n    def step(self):\n        return 1\n")
        info = f"up-{version}.dist-info"
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: up\nVersion: {version}\n")
        wheel.writestr(f"{info}/RECORD", "")
    return path


def test_lock_at_a_wheel_names_its_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    wheel = _wheel(tmp_path, "2.1.0")
    root = write_plugin(tmp_path, {"plug/patch/p_step.py": PATCH}, pyproject=PYPROJECT)
    lock = tmp_path / "patchkeeper.lock"
    run = cli("runtime", "lock", "--at", str(wheel), "--output", str(lock), "--json", cwd=root)
    assert run.code == 0
    assert json.loads(run.out)["at"] == "2.1.0"
    assert json.loads(lock.read_text())["version"] == "2.1.0"


def test_one_dist_info_names_the_version_several_name_none(tmp_path: Path) -> None:
    tree = tmp_path / "unpacked"
    (tree / "up").mkdir(parents=True)
    (tree / "up-2.1.0.dist-info").mkdir()
    (tree / "up-2.1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: up\nVersion: 2.1.0\n\nVersion: 9 in the description\n"
    )
    assert release_version(str(tree), tree) == "2.1.0"
    # a site-packages holds the dist-info of every project installed: none is the tree's
    (tree / "other-1.0.dist-info").mkdir()
    (tree / "other-1.0.dist-info" / "METADATA").write_text("Name: other\nVersion: 1.0\n")
    assert release_version(str(tree), tree) == ""
    assert release_label(str(tree), tree) == f"directory {tree}"
