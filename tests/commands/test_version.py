"""The version lives in one place, ``patchkeeper.__version__``, and ``--version`` prints it."""

from __future__ import annotations

from importlib.metadata import version

from helpers import REPO
from patchkeeper import __version__
from patchkeeper.config import tomllib


def test_version_prints_the_package_version(cli) -> None:
    run = cli("--version")
    assert (run.code, run.out, run.err) == (0, f"patchkeeper, version {__version__}\n", "")


def test_pyproject_reads_the_version_from_the_package() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"]
    assert pyproject["project"]["dynamic"] == ["version"]
    dynamic = pyproject["tool"]["setuptools"]["dynamic"]
    assert dynamic == {"version": {"attr": "patchkeeper.__version__"}}
    assert version("patchkeeper") == __version__
